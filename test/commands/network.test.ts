import {chmodSync, copyFileSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/context.js'
import {deadPort, makePki, NO_MACHINE_NETWORK, REMOTE_HOST, startProxy, tlsFront, tlsPage, type Pki} from '../helpers/network.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

const SECRET = 'sandbox-secret'
const CHARGE = ['--amount', '1500', '--customer-name', 'Maria Silva', '--customer-document', '529.982.247-25', '--customer-email', 'maria@example.com', '--customer-mobile', '(11) 98765-4321']
const NO_SUCH_ID = '00000000-0000-4000-8000-000000000000'

describe('real networks: TLS gateways, client certificates, CAs and proxies', () => {
  let sandbox: Sandbox
  let pki: Pki
  let config: ReturnType<typeof tempConfigDir>
  let profiles = 0
  /** A fresh config folder's environment: no proxy variables of the machine's. */
  const fresh = (extra: Record<string, string> = {}): Record<string, string | undefined> => {
    profiles += 1
    return {
      GATEWAY_CONFIG_DIR: join(config.dir, `p${profiles}`),
      ...NO_MACHINE_NETWORK,
      ...extra,
    }
  }
  const login = (baseUrl: string, env: Record<string, string | undefined>, flags: string[] = [], input?: string) =>
    runCommand(['login', '--base-url', baseUrl, '--client-id', 'sandbox', ...flags], {env: {GATEWAY_CLIENT_SECRET: SECRET, ...env}, input})

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    pki = makePki()
    config = tempConfigDir()
  })
  afterAll(async () => {
    await sandbox.close()
    pki.remove()
    config.remove()
  })

  const sandboxPort = () => Number(new URL(sandbox.baseUrl).port)
  const front = (which: 'server' | 'expired' | 'otherName' = 'server', extra: object = {}) =>
    tlsFront(sandboxPort(), {cert: pki.read(pki[which].cert), key: pki.read(pki[which].key), ...extra})
  const mutual = (maxVersion: 'TLSv1.2' | 'TLSv1.3' = 'TLSv1.3') => front('server', {requestCert: true, rejectUnauthorized: true, ca: [pki.read(pki.ca)], maxVersion})

  describe('trusted CAs', () => {
    it('an unknown issuer is named as such, with --ca-file as the fix, and never "could not reach"', async () => {
      const gateway = await front()
      try {
        const result = await login(`https://127.0.0.1:${gateway.port}`, fresh())
        expect(result.code).toBe(7)
        expect(result.stderr).toMatch(/TLS handshake with https:\/\/127\.0\.0\.1:\d+ failed: the gateway at .* showed a certificate from an unknown issuer/)
        expect(result.stderr).toContain('--ca-file')
        expect(result.stderr).not.toMatch(/could not reach/)
        expect(gateway.connections()).toBeGreaterThan(0)
      } finally {
        await gateway.close()
      }
    })

    it('--ca-file trusts the gateway, is kept in the profile, and later commands use it', async () => {
      const gateway = await front()
      try {
        const env = fresh()
        const result = await login(`https://localhost:${gateway.port}`, env, ['--ca-file', pki.ca])
        expect(result.stderr).toBe('')
        expect(result.code).toBe(0)
        const stored = JSON.parse(readFileSync(join(env.GATEWAY_CONFIG_DIR!, 'config.json'), 'utf8')) as Record<string, {caFile?: string}>
        expect(stored.default.caFile).toBe(pki.ca)
        const created = await runCommand(['tx', 'create', ...CHARGE, '--json'], {env})
        expect(created.code).toBe(0)
        const {id} = JSON.parse(created.stdout) as {id: string}
        const got = await runCommand(['tx', 'get', id, '--json'], {env})
        expect(got.code).toBe(0)
        expect(JSON.parse(got.stdout)).toMatchObject({id, amount: 1500})
        const status = await runCommand(['auth', 'status'], {env})
        expect(status.stdout).toContain(`CA file:   ${pki.ca}`)
        expect(status.stdout).toMatch(/Proxy: +none \(the gateway is loopback\)/)
      } finally {
        await gateway.close()
      }
    })

    it.each([
      ['GATEWAY_CA_FILE', (ca: string) => ({GATEWAY_CA_FILE: ca})],
      ['SSL_CERT_FILE', (ca: string) => ({SSL_CERT_FILE: ca})],
      ['SSL_CERT_DIR', (ca: string) => ({SSL_CERT_DIR: join(ca, '..')})],
      ['NODE_EXTRA_CA_CERTS', (ca: string) => ({NODE_EXTRA_CA_CERTS: ca})],
    ])('%s is trusted on top of the usual CAs', async (_name, variables) => {
      const gateway = await front()
      try {
        const result = await login(`https://127.0.0.1:${gateway.port}`, fresh(variables(pki.ca)))
        expect(result.stderr).toBe('')
        expect(result.code).toBe(0)
      } finally {
        await gateway.close()
      }
    })

    it('an expired certificate and one for another name are named, exit 7', async () => {
      const expired = await front('expired')
      const other = await front('otherName')
      try {
        const old = await login(`https://127.0.0.1:${expired.port}`, fresh(), ['--ca-file', pki.ca])
        expect(old.code).toBe(7)
        expect(old.stderr).toMatch(/showed an expired certificate/)
        expect(old.stderr).not.toMatch(/could not reach/)
        const misnamed = await login(`https://127.0.0.1:${other.port}`, fresh(), ['--ca-file', pki.ca, '--json'])
        expect(misnamed.code).toBe(7)
        const {error} = JSON.parse(misnamed.stdout) as {error: {code: string; message: string; hint: string}}
        expect(error.message).toMatch(/certificate is not for 127\.0\.0\.1/)
        expect(error.hint).toMatch(/--base-url/)
      } finally {
        await expired.close()
        await other.close()
      }
    })

    it('an HTML error page is summarised to its title', async () => {
      const page = await tlsPage({cert: pki.read(pki.server.cert), key: pki.read(pki.server.key)}, 502, `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center>${' '.repeat(500)}</body></html>`)
      try {
        const result = await login(`https://127.0.0.1:${page.port}`, fresh({GATEWAY_CA_FILE: pki.ca}), ['--json'])
        expect(result.code).toBe(7)
        const {error} = JSON.parse(result.stdout) as {error: {message: string}}
        expect(error.message).toContain('an HTML page titled "502 Bad Gateway"')
        expect(error.message).not.toContain('<')
      } finally {
        await page.close()
      }
    })
  })

  describe('client certificates (mutual TLS)', () => {
    it.each(['TLSv1.3', 'TLSv1.2'] as const)('a %s gateway that asks for a certificate the CLI has not got: exit 3, naming --cert', async (version) => {
      const gateway = await mutual(version)
      try {
        const result = await login(`https://127.0.0.1:${gateway.port}`, fresh({GATEWAY_CA_FILE: pki.ca}))
        expect(result.code).toBe(3)
        expect(result.stderr).toMatch(/asks for a client certificate \(mutual TLS\), and none was given/)
        expect(result.stderr).toContain('--cert')
        expect(result.stderr).not.toMatch(/could not reach|connection closed/)
      } finally {
        await gateway.close()
      }
    })

    it('a TLS 1.2 handshake failure is read as a certificate request only when the gateway sent one, through a proxy too', async () => {
      const wanting = await mutual('TLSv1.2')
      const proxy = await startProxy()
      // No cipher suite in common: the handshake fails, and no certificate was asked for.
      const picky = await front('server', {maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-CAMELLIA128-SHA256'})
      try {
        const viaProxy = await login(`https://${REMOTE_HOST}:${wanting.port}`, fresh({HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`, GATEWAY_CA_FILE: pki.ca}))
        expect(viaProxy.code).toBe(3)
        expect(viaProxy.stderr).toMatch(/asks for a client certificate \(mutual TLS\), and none was given/)
        expect(proxy.log.filter((entry) => entry.method === 'CONNECT').length).toBeGreaterThanOrEqual(2)
        const other = await login(`https://127.0.0.1:${picky.port}`, fresh({GATEWAY_CA_FILE: pki.ca}), ['--json'])
        expect(other.code).toBe(7)
        expect(JSON.parse(other.stdout).error.message).toMatch(/ended the TLS handshake \(handshake failure\)/)
        expect(other.stderr + other.stdout).not.toMatch(/could not reach/)
      } finally {
        await picky.close()
        await proxy.close()
        await wanting.close()
      }
    })

    it('nginx\'s page for a missing certificate is exit 3 too, never "malformed credentials"', async () => {
      const page = await tlsPage(
        {cert: pki.read(pki.server.cert), key: pki.read(pki.server.key)},
        400,
        '<html>\r\n<head><title>400 No required SSL certificate was sent</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n<center>No required SSL certificate was sent</center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n',
      )
      try {
        const result = await login(`https://127.0.0.1:${page.port}`, fresh({GATEWAY_CA_FILE: pki.ca}))
        expect(result.code).toBe(3)
        expect(result.stderr).toMatch(/asks for a client certificate/)
        expect(result.stderr).toContain('--cert')
        expect(result.stderr).not.toMatch(/malformed|<html>/)
      } finally {
        await page.close()
      }
    })

    it('--cert and --key: login, a charge and a lookup over mutual TLS; the profile keeps the paths, never the key', async () => {
      const gateway = await mutual()
      try {
        const env = fresh()
        const result = await login(`https://127.0.0.1:${gateway.port}`, env, ['--cert', pki.client.cert, '--key', pki.client.key, '--ca-file', pki.ca])
        expect(result.stderr).toBe('')
        expect(result.code).toBe(0)
        const folder = env.GATEWAY_CONFIG_DIR!
        const stored = JSON.parse(readFileSync(join(folder, 'config.json'), 'utf8')) as Record<string, Record<string, string>>
        expect(stored.default).toMatchObject({cert: pki.client.cert, key: pki.client.key})
        const key = readFileSync(pki.client.key, 'utf8').split('\n')[1]
        for (const file of ['config.json', 'credentials.json', 'tokens.json']) expect(readFileSync(join(folder, file), 'utf8')).not.toContain(key)
        const created = await runCommand(['tx', 'create', ...CHARGE, '--json'], {env})
        expect(created.code).toBe(0)
        const got = await runCommand(['tx', 'get', (JSON.parse(created.stdout) as {id: string}).id], {env})
        expect(got.code).toBe(0)
        const status = await runCommand(['auth', 'status', '--json'], {env})
        expect(JSON.parse(status.stdout)).toMatchObject({clientCertificate: `${pki.client.cert} (key ${pki.client.key})`, caFile: pki.ca, proxy: null})
      } finally {
        await gateway.close()
      }
    })

    it('--p12 with its passphrase on stdin, kept for later commands; GATEWAY_P12 with GATEWAY_CERT_PASSPHRASE', async () => {
      const gateway = await mutual()
      try {
        const env = fresh({GATEWAY_CA_FILE: pki.ca})
        const result = await login(`https://127.0.0.1:${gateway.port}`, env, ['--p12', pki.client.p12, '--cert-passphrase-stdin'], `${pki.client.passphrase}\n`)
        expect(result.stderr).toBe('')
        expect(result.code).toBe(0)
        const got = await runCommand(['tx', 'get', NO_SUCH_ID], {env})
        expect(got.code).toBe(4)
        // A certificate file that cannot be read stops a charge before it leaves: its entry is not sent.
        const charge = await runCommand(['tx', 'create', ...CHARGE], {env: {...env, GATEWAY_P12: join(pki.dir, 'missing.p12')}})
        expect(charge.code).toBe(3)
        expect(charge.stderr).toMatch(/missing\.p12 cannot be read \(no such file\)/)
        const journal = await runCommand(['journal', 'list', '--json'], {env})
        expect((JSON.parse(journal.stdout) as Array<{state: string}>).map((entry) => entry.state)).toEqual(['not-sent'])
        const byEnv = await login(`https://127.0.0.1:${gateway.port}`, fresh({GATEWAY_CA_FILE: pki.ca, GATEWAY_P12: pki.client.p12, GATEWAY_CERT_PASSPHRASE: pki.client.passphrase}))
        expect(byEnv.stderr).toBe('')
        expect(byEnv.code).toBe(0)
        const wrong = await login(`https://127.0.0.1:${gateway.port}`, fresh({GATEWAY_CA_FILE: pki.ca, GATEWAY_P12: pki.client.p12, GATEWAY_CERT_PASSPHRASE: 'not-the-passphrase'}))
        expect(wrong.code).toBe(3)
        expect(wrong.stderr).toMatch(/client\.p12 could not be opened: the passphrase is wrong/)
        expect(wrong.stderr).not.toContain('not-the-passphrase')
      } finally {
        await gateway.close()
      }
    })

    it('a key or .p12 readable by others is refused before anything is sent: exit 3, naming the file and the chmod', async () => {
      const gateway = await mutual()
      try {
        for (const [flags, file] of [
          [['--cert', pki.client.cert, '--key'], 'client.key'],
          [['--p12'], 'client.p12'],
        ] as const) {
          const open = join(pki.dir, `open-${file}`)
          copyFileSync(join(pki.dir, file), open)
          chmodSync(open, 0o644)
          const before = gateway.connections()
          const result = await login(`https://127.0.0.1:${gateway.port}`, fresh({GATEWAY_CA_FILE: pki.ca, GATEWAY_CERT_PASSPHRASE: pki.client.passphrase}), [...flags, open])
          expect(result.code).toBe(3)
          expect(result.stderr).toContain(`${open} can be read by others than you (mode 0644)`)
          expect(result.stderr).toContain(`chmod 600 ${open}`)
          expect(gateway.connections()).toBe(before)
        }
      } finally {
        await gateway.close()
      }
    })
  })

  describe('proxies', () => {
    it('HTTPS_PROXY carries every request to a gateway only the proxy can reach, by CONNECT, credentials never shown', async () => {
      const gateway = await front()
      const password = 'proxy-pass-8e1c2d'
      const proxy = await startProxy({credentials: {user: 'ops', password}})
      try {
        const base = `https://${REMOTE_HOST}:${gateway.port}`
        const env = fresh({HTTPS_PROXY: `http://ops:${password}@127.0.0.1:${proxy.port}`, GATEWAY_CA_FILE: pki.ca})
        const result = await login(base, env, ['--debug'])
        expect(result.code).toBe(0)
        expect(proxy.log.length).toBeGreaterThan(0)
        expect(proxy.log.every((entry) => entry.method === 'CONNECT' && entry.target === `${REMOTE_HOST}:${gateway.port}`)).toBe(true)
        expect(proxy.log[0].authorization).toBe(`Basic ${Buffer.from(`ops:${password}`).toString('base64')}`)
        expect(result.stderr).toContain(`* through the proxy http://[REDACTED]@127.0.0.1:${proxy.port} (from HTTPS_PROXY)`)
        const before = proxy.log.length
        const got = await runCommand(['tx', 'get', NO_SUCH_ID, '--debug'], {env})
        expect(got.code).toBe(4)
        expect(proxy.log.length).toBeGreaterThan(before)
        const status = await runCommand(['auth', 'status'], {env})
        expect(status.stdout).toContain(`Proxy:     http://[REDACTED]@127.0.0.1:${proxy.port} (from HTTPS_PROXY)`)
        for (const text of [result.stdout, result.stderr, got.stdout, got.stderr, status.stdout, status.stderr]) {
          expect(text).not.toContain(password)
          expect(text).not.toContain(Buffer.from(`ops:${password}`).toString('base64'))
        }
      } finally {
        await proxy.close()
        await gateway.close()
      }
    })

    it('lower case wins: https_proxy over HTTPS_PROXY; HTTP_PROXY serves https when no https proxy is set', async () => {
      const gateway = await front()
      const used = await startProxy()
      const ignored = await startProxy()
      try {
        const base = `https://${REMOTE_HOST}:${gateway.port}`
        const both = await login(base, fresh({https_proxy: `http://127.0.0.1:${used.port}`, HTTPS_PROXY: `http://127.0.0.1:${ignored.port}`, GATEWAY_CA_FILE: pki.ca}))
        expect(both.code).toBe(0)
        const http = await login(base, fresh({HTTP_PROXY: `127.0.0.1:${used.port}`, GATEWAY_CA_FILE: pki.ca}))
        expect(http.code).toBe(0)
        expect(used.log.filter((entry) => entry.method === 'CONNECT').length).toBeGreaterThanOrEqual(2)
        expect(ignored.log).toEqual([])
      } finally {
        await used.close()
        await ignored.close()
        await gateway.close()
      }
    })

    it('NO_PROXY and loopback gateways go direct: the proxy sees nothing', async () => {
      const proxy = await startProxy()
      const gateway = await front()
      try {
        const viaProxy = `http://127.0.0.1:${proxy.port}`
        const loopback = await login(sandbox.baseUrl, fresh({HTTPS_PROXY: viaProxy, HTTP_PROXY: viaProxy}))
        expect(loopback.code).toBe(0)
        const localhost = await login(`https://localhost:${gateway.port}`, fresh({HTTPS_PROXY: viaProxy, GATEWAY_CA_FILE: pki.ca}))
        expect(localhost.code).toBe(0)
        // Named in NO_PROXY: looked up directly, where no DNS knows it.
        const bypassed = await login(`https://${REMOTE_HOST}:${gateway.port}`, fresh({HTTPS_PROXY: viaProxy, no_proxy: `example.com, .${REMOTE_HOST}`, GATEWAY_CA_FILE: pki.ca}))
        expect(bypassed.code).toBe(7)
        expect(bypassed.stderr).toMatch(/could not reach the gateway at https:\/\/gateway\.test:\d+ .*host (not found|lookup failed)/)
        expect(proxy.log).toEqual([])
      } finally {
        await proxy.close()
        await gateway.close()
      }
    })

    it('a dead proxy is named, exit 7, and nothing was sent; a proxy that refuses too', async () => {
      const gateway = await front()
      const refusing = await startProxy({credentials: {user: 'someone', password: 'else-entirely'}})
      try {
        const port = await deadPort()
        const base = `https://${REMOTE_HOST}:${gateway.port}`
        const dead = await login(base, fresh({HTTPS_PROXY: `http://127.0.0.1:${port}`, GATEWAY_CA_FILE: pki.ca}), ['--json'])
        expect(dead.code).toBe(7)
        const {error} = JSON.parse(dead.stdout) as {error: {message: string}}
        expect(error.message).toMatch(new RegExp(`could not reach the proxy http://127\\.0\\.0\\.1:${port} \\(from HTTPS_PROXY\\), through which the gateway at ${base.replaceAll('.', '\\.')} is reached: connection refused`))
        expect(error.message).toContain('nothing was sent')
        const refused = await login(base, fresh({HTTPS_PROXY: `http://127.0.0.1:${refusing.port}`, GATEWAY_CA_FILE: pki.ca}))
        expect(refused.code).toBe(7)
        expect(refused.stderr).toMatch(/the proxy http:\/\/127\.0\.0\.1:\d+ \(from HTTPS_PROXY\) did not carry the request .* asks for credentials \(407\)/)
        expect(gateway.connections()).toBe(0)
        // Only the proxy looks names up: one it cannot find is its failure, said so.
        const open = await startProxy()
        try {
          const unknown = await login('https://no-such-gateway.invalid', fresh({HTTPS_PROXY: `http://127.0.0.1:${open.port}`}))
          expect(unknown.code).toBe(7)
          expect(unknown.stderr).toMatch(/the proxy http:\/\/127\.0\.0\.1:\d+ \(from HTTPS_PROXY\) did not carry the request to the gateway at https:\/\/no-such-gateway\.invalid: it answered \d+ to its CONNECT/)
          expect(open.log.map((entry) => `${entry.method} ${entry.target}`)).toContain('CONNECT no-such-gateway.invalid:443')
        } finally {
          await open.close()
        }
      } finally {
        await refusing.close()
        await gateway.close()
      }
    })
  })

  describe('what is refused before anything is sent', () => {
    it('NODE_TLS_REJECT_UNAUTHORIZED=0: no secret, token or charge goes to a gateway that is not loopback (exit 3)', async () => {
      const gateway = await front()
      const proxy = await startProxy()
      try {
        const base = `https://${REMOTE_HOST}:${gateway.port}`
        const env = fresh({HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`, GATEWAY_CA_FILE: pki.ca})
        expect((await login(base, env)).code).toBe(0)
        const connect = proxy.log.length
        const insecure = {...env, NODE_TLS_REJECT_UNAUTHORIZED: '0'}
        const again = await login(base, insecure)
        expect(again.code).toBe(3)
        expect(again.stderr).toMatch(/NODE_TLS_REJECT_UNAUTHORIZED=0 turns certificate checks off: no secret, token or request is sent to https:\/\/gateway\.test/)
        const charge = await runCommand(['tx', 'create', ...CHARGE, '--json'], {env: insecure})
        expect(charge.code).toBe(3)
        expect(JSON.parse(charge.stdout)).toMatchObject({error: {code: 'TLS_CHECKS_OFF', exitCode: 3}})
        expect(proxy.log.length).toBe(connect)
        // Its journal entry says it never left: nothing to settle.
        const journal = await runCommand(['journal', 'list', '--json'], {env})
        expect((JSON.parse(journal.stdout) as Array<{state: string}>).map((entry) => entry.state)).toEqual(['not-sent'])
        // A loopback gateway is the operator's own machine: allowed.
        expect((await login(sandbox.baseUrl, fresh({NODE_TLS_REJECT_UNAUTHORIZED: '0'}))).code).toBe(0)
      } finally {
        await proxy.close()
        await gateway.close()
      }
    })

    it('plain http: only loopback addresses and localhost itself; *.localhost is refused before any lookup (exit 2)', async () => {
      const port = new URL(sandbox.baseUrl).port
      expect((await login(`http://localhost:${port}`, fresh())).code).toBe(0)
      const before = (await stats(sandbox.baseUrl)).requests
      for (const host of ['gateway.localhost', 'localhost.example.com', '10.0.0.1']) {
        const result = await login(`http://${host}:${port}`, fresh())
        expect(result.code).toBe(2)
        expect(result.stderr).toMatch(/must use https unless its host is loopback/)
      }
      expect((await stats(sandbox.baseUrl)).requests).toBe(before)
    })
  })
})
