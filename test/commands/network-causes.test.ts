import {execFileSync, spawn} from 'node:child_process'
import {copyFileSync, lchownSync, mkdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {createServer as createNetServer, connect as netConnect, type AddressInfo, type Socket} from 'node:net'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/context.js'
import {deadPort, makePki, NO_MACHINE_NETWORK, REMOTE_HOST, startProxy, tlsFront, tlsPage, type Pki} from '../helpers/network.js'
import {startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

/** `openssl s_server` on 127.0.0.1 with these arguments (answering HTTP with its status page, -www), once it accepts. */
async function opensslServer(args: string[]): Promise<{port: number; close(): void}> {
  const port = await deadPort()
  const child = spawn('openssl', ['s_server', '-accept', `127.0.0.1:${port}`, '-www', '-quiet', ...args], {stdio: ['pipe', 'pipe', 'pipe']})
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('openssl s_server did not start')), 10_000)
    const check = setInterval(() => {
      const probe = netConnect(port, '127.0.0.1')
      probe.on('connect', () => {
        probe.destroy()
        clearInterval(check)
        clearTimeout(timer)
        resolve()
      })
      probe.on('error', () => probe.destroy())
    }, 50)
    child.on('exit', (code) => reject(new Error(`openssl s_server ended (${code})`)))
  })
  return {port, close: () => child.kill()}
}

/**
 * Proxy and TLS failures named by their cause, against real peers on loopback: a proxy with Basic
 * auth refusing the password it was given, a proxy that answers CONNECT with 200 and then garbage,
 * an HTTPS proxy that asks every client for a certificate (the gateway's client certificate must
 * never be shown to it).
 */
describe('proxies named by cause, and the client certificate shown to the gateway only', () => {
  let sandbox: Sandbox
  let pki: Pki
  let config: ReturnType<typeof tempConfigDir>
  let profiles = 0
  const fresh = (extra: Record<string, string> = {}): Record<string, string | undefined> => {
    profiles += 1
    return {
      GATEWAY_CONFIG_DIR: join(config.dir, `p${profiles}`),
      ...NO_MACHINE_NETWORK,
      GATEWAY_CLIENT_SECRET: 'sandbox-secret',
      ...extra,
    }
  }
  const login = (baseUrl: string, env: Record<string, string | undefined>, flags: string[] = []) => runCommand(['login', '--base-url', baseUrl, '--client-id', 'sandbox', ...flags], {env})

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
  const front = (extra: object = {}) => tlsFront(Number(new URL(sandbox.baseUrl).port), {cert: pki.read(pki.server.cert), key: pki.read(pki.server.key), ...extra})

  it('a proxy that refuses the credentials given in its URL: exit 7, said so, with the encoding rule, never "put them in its URL"', async () => {
    const gateway = await front()
    const proxy = await startProxy({credentials: {user: 'ops', password: 'the-right-one'}})
    try {
      const result = await login(`https://${REMOTE_HOST}:${gateway.port}`, fresh({HTTPS_PROXY: `http://ops:not-the-right-one@127.0.0.1:${proxy.port}`, GATEWAY_CA_FILE: pki.ca}))
      expect(result.code, result.stderr).toBe(7)
      expect(result.stderr).toMatch(/the proxy http:\/\/\[REDACTED\]@127\.0\.0\.1:\d+ \(from HTTPS_PROXY\) did not carry the request .* refused the credentials given in its URL \(407\)/)
      expect(result.stderr).toMatch(/percent-encode @ : % #/)
      expect(result.stderr).not.toMatch(/put them in its URL/)
      expect(result.stderr).not.toContain('not-the-right-one')
      expect(proxy.log[0].authorization).toBe(`Basic ${Buffer.from('ops:not-the-right-one').toString('base64')}`)
      expect(gateway.connections()).toBe(0)
    } finally {
      await proxy.close()
      await gateway.close()
    }
  })

  it('a proxy that answers CONNECT with 200 and then garbage is named, not the gateway: exit 7', async () => {
    const sockets = new Set<Socket>()
    const liar = createNetServer((socket) => {
      sockets.add(socket)
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 Connection established\r\n\r\n')
        socket.once('data', () => socket.end('<html><body>Access policy page</body></html>\r\n'.repeat(4)))
      })
      socket.on('error', () => undefined)
    })
    const port = await new Promise<number>((resolve) => liar.listen(0, '127.0.0.1', () => resolve((liar.address() as AddressInfo).port)))
    try {
      const result = await login('https://api.pix.example.com', fresh({HTTPS_PROXY: `http://127.0.0.1:${port}`}), ['--json'])
      expect(result.code, result.stdout).toBe(7)
      const {error} = JSON.parse(result.stdout) as {error: {message: string}}
      expect(error.message).toMatch(new RegExp(`the proxy http://127\\.0\\.0\\.1:${port} \\(from HTTPS_PROXY\\) answered its CONNECT to the gateway at https://api\\.pix\\.example\\.com, but what came back through it was not TLS`))
      expect(error.message).not.toMatch(/sandbox/)
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => liar.close(resolve))
    }
  })

  it('the client certificate goes to the gateway, never to an HTTPS proxy that asks every client for one', async () => {
    // The gateway requires the client certificate (mutual TLS).
    const gateway = await front({requestCert: true, rejectUnauthorized: true, ca: [pki.read(pki.ca)]})
    const proxy = await startProxy()
    // An HTTPS proxy: TLS in front of the proxy, asking every client for a certificate, taking any.
    const httpsProxy = await tlsFront(proxy.port, {cert: pki.read(pki.server.cert), key: pki.read(pki.server.key), requestCert: true, rejectUnauthorized: false})
    try {
      const env = fresh({HTTPS_PROXY: `https://127.0.0.1:${httpsProxy.port}`, GATEWAY_CA_FILE: pki.ca, GATEWAY_CERT: pki.client.cert, GATEWAY_KEY: pki.client.key})
      const result = await login(`https://${REMOTE_HOST}:${gateway.port}`, env)
      expect(result.code, result.stderr).toBe(0)
      expect(gateway.handshakes()).toBeGreaterThan(0)
      expect(proxy.log.some((entry) => entry.method === 'CONNECT')).toBe(true)
      const shown = httpsProxy.clientCertificates()
      expect(shown.length).toBeGreaterThan(0)
      expect(shown, 'the client certificate was shown to the proxy').toEqual(shown.map(() => undefined))
    } finally {
      await httpsProxy.close()
      await proxy.close()
      await gateway.close()
    }
  })

  const root = typeof process.getuid === 'function' && process.getuid() === 0
  it.skipIf(!root)('a key or certificate reached through another user\'s symbolic link (of the file or of a folder above it) is refused: exit 3 naming the link, nothing sent', async () => {
    const gateway = await front({requestCert: true, rejectUnauthorized: true, ca: [pki.read(pki.ca)]})
    try {
      const base = `https://127.0.0.1:${gateway.port}`
      const dir = join(config.dir, 'links')
      mkdirSync(join(dir, 'real'), {recursive: true})
      copyFileSync(pki.client.key, join(dir, 'real', 'client.key'))
      copyFileSync(pki.client.cert, join(dir, 'real', 'client.pem'))
      // The user's own links are followed.
      symlinkSync(join(dir, 'real', 'client.key'), join(dir, 'own.key'))
      const own = await login(base, fresh({GATEWAY_CA_FILE: pki.ca, GATEWAY_CERT: join(dir, 'real', 'client.pem'), GATEWAY_KEY: join(dir, 'own.key')}))
      expect(own.code, own.stderr).toBe(0)
      const handshakes = gateway.handshakes()
      // A link to the key that another user owns, and a folder link of theirs above it.
      symlinkSync(join(dir, 'real', 'client.key'), join(dir, 'theirs.key'))
      lchownSync(join(dir, 'theirs.key'), 12348, 12348)
      symlinkSync(join(dir, 'real'), join(dir, 'their-folder'))
      lchownSync(join(dir, 'their-folder'), 12348, 12348)
      // The user's own link, to another user's link.
      symlinkSync(join(dir, 'theirs.key'), join(dir, 'mine-to-theirs.key'))
      for (const [key, link] of [
        [join(dir, 'theirs.key'), join(dir, 'theirs.key')],
        [join(dir, 'their-folder', 'client.key'), join(dir, 'their-folder')],
        [join(dir, 'mine-to-theirs.key'), join(dir, 'theirs.key')],
      ]) {
        const result = await login(base, fresh({GATEWAY_CA_FILE: pki.ca, GATEWAY_CERT: join(dir, 'real', 'client.pem'), GATEWAY_KEY: key}))
        expect(result.code, result.stderr).toBe(3)
        expect(result.stderr).toContain(`the client key ${key} goes through the symbolic link ${link}, which belongs to another user (uid 12348)`)
      }
      expect(gateway.handshakes()).toBe(handshakes)
    } finally {
      await gateway.close()
    }
  })

  it('a 403 HTML page of a network device is a refusal by the network or the gateway (exit 7), not a credentials problem', async () => {
    const page = '<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 Forbidden</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n'
    const gateway = await tlsPage({cert: pki.read(pki.server.cert), key: pki.read(pki.server.key)}, 403, page)
    try {
      const result = await login(`https://127.0.0.1:${gateway.port}`, fresh({GATEWAY_CA_FILE: pki.ca}), ['--json'])
      expect(result.code, result.stdout).toBe(7)
      const {error} = JSON.parse(result.stdout) as {error: {message: string; code: string}}
      expect(error.message).toMatch(/was refused by what answers at https:\/\/127\.0\.0\.1:\d+ \(403, an HTML page titled "403 Forbidden"\): a network rule or the gateway, not the credentials/)
      expect(error.message).not.toMatch(/not permitted for these credentials/)
    } finally {
      await gateway.close()
    }
  })

  it('a client certificate the gateway refuses is exit 3 however it says so: a TLS alert, or a web server\'s 400 page', async () => {
    const other = makePki()
    // A gateway that trusts another CA than the one that issued the client certificate, and says so by a TLS alert.
    const gateway = await opensslServer(['-cert', pki.server.cert, '-key', pki.server.key, '-Verify', '1', '-CAfile', other.ca, '-verify_return_error', '-tls1_2'])
    const nginx = await tlsPage(
      {cert: pki.read(pki.server.cert), key: pki.read(pki.server.key)},
      400,
      '<html>\r\n<head><title>400 The SSL certificate error</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n<center>The SSL certificate error</center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n',
    )
    try {
      for (const port of [gateway.port, nginx.port]) {
        const result = await login(`https://127.0.0.1:${port}`, fresh({GATEWAY_CA_FILE: pki.ca, GATEWAY_CERT: pki.client.cert, GATEWAY_KEY: pki.client.key}))
        expect(result.code, result.stderr).toBe(3)
        expect(result.stderr).toMatch(/refused the client certificate/)
      }
    } finally {
      other.remove()
      gateway.close()
      await nginx.close()
    }
  })

  it('a gateway that sends its certificate without the intermediate (the root trusted) is named an incomplete chain, with who fixes it; never a Node.js flag', async () => {
    // A root, an intermediate it signs, and the gateway's certificate the intermediate signs.
    const dir = join(config.dir, 'chain')
    mkdirSync(dir, {recursive: true})
    const openssl = (args: string[]) => execFileSync('openssl', args, {cwd: dir, stdio: ['ignore', 'ignore', 'pipe']})
    const key = (name: string) => openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}.key`])
    key('root')
    openssl(['req', '-x509', '-new', '-key', 'root.key', '-out', 'root.pem', '-days', '30', '-subj', '/CN=Chain Test Root'])
    const sign = (name: string, subject: string, issuer: string, extensions: string) => {
      key(name)
      openssl(['req', '-new', '-key', `${name}.key`, '-out', `${name}.csr`, '-subj', subject])
      writeFileSync(join(dir, `${name}.ext`), `${extensions}\n`)
      openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', `${issuer}.pem`, '-CAkey', `${issuer}.key`, '-CAcreateserial', '-out', `${name}.pem`, '-days', '30', '-extfile', `${name}.ext`])
    }
    sign('intermediate', '/CN=Chain Test Intermediate', 'root', 'basicConstraints=critical,CA:true\nkeyUsage=critical,keyCertSign,cRLSign')
    sign('leaf', '/CN=127.0.0.1', 'intermediate', 'subjectAltName=IP:127.0.0.1,DNS:localhost')
    const read = (name: string) => readFileSync(join(dir, name))
    const port = Number(new URL(sandbox.baseUrl).port)
    const alone = await tlsFront(port, {cert: read('leaf.pem'), key: read('leaf.key')})
    const chained = await tlsFront(port, {cert: Buffer.concat([read('leaf.pem'), read('intermediate.pem')]), key: read('leaf.key')})
    const openAlone = await opensslServer(['-cert', join(dir, 'leaf.pem'), '-key', join(dir, 'leaf.key')])
    const openChained = await opensslServer(['-cert', join(dir, 'leaf.pem'), '-key', join(dir, 'leaf.key'), '-cert_chain', join(dir, 'intermediate.pem')])
    try {
      const trusted = {GATEWAY_CA_FILE: join(dir, 'root.pem')}
      for (const gatewayPort of [alone.port, openAlone.port]) {
        const result = await login(`https://127.0.0.1:${gatewayPort}`, fresh(trusted), ['--json'])
        expect(result.code, result.stdout).toBe(7)
        const {error} = JSON.parse(result.stdout) as {error: {message: string; hint: string}}
        expect(error.message).toMatch(/certificate chain is incomplete \(the intermediate certificate that issued it was not sent\)/)
        expect(error.hint).toMatch(/for the gateway's operators to fix: they must send the intermediate certificate/)
        expect(error.hint).toMatch(/intermediate may be added to the CA file/)
        expect(`${error.message} ${error.hint}`).not.toMatch(/Node\.js|--use-system-ca|--use-openssl-ca/)
      }
      // With its chain, the same gateway is trusted; and the intermediate added to the CA file serves meanwhile.
      expect((await login(`https://127.0.0.1:${chained.port}`, fresh(trusted))).code).toBe(0)
      const handshake = await login(`https://127.0.0.1:${openChained.port}`, fresh(trusted), ['--timeout', '3s'])
      expect(handshake.stderr).not.toMatch(/TLS handshake/)
      writeFileSync(join(dir, 'chain.pem'), Buffer.concat([read('root.pem'), read('intermediate.pem')]))
      expect((await login(`https://127.0.0.1:${alone.port}`, fresh({GATEWAY_CA_FILE: join(dir, 'chain.pem')}))).code).toBe(0)
    } finally {
      await alone.close()
      await chained.close()
      openAlone.close()
      openChained.close()
    }
  })
})

/**
 * The first attempt of a charge or a payout goes through the proxy and reaches the gateway, which
 * acts, and its answer is lost (the sandbox's reset-after); the proxy then refuses the retry's
 * CONNECT (503, 407) or answers it with 200 and garbage. Whatever the retry met, the entry stays
 * pending, the message says the gateway may have made it, and the same request again is refused.
 */
describe('an answer lost, then a proxy that fails the retry', () => {
  let sandbox: Sandbox
  let pki: Pki
  let config: ReturnType<typeof tempConfigDir>
  let gateway: {port: number; close(): Promise<void>}
  beforeAll(async () => {
    sandbox = await startTestSandbox()
    pki = makePki()
    config = tempConfigDir()
    gateway = await tlsFront(Number(new URL(sandbox.baseUrl).port), {cert: pki.read(pki.server.cert), key: pki.read(pki.server.key)})
  })
  afterAll(async () => {
    await gateway.close()
    await sandbox.close()
    pki.remove()
    config.remove()
  })

  const moneyMoved = async () => {
    const {byRoute} = (await (await fetch(`${sandbox.baseUrl}/_sandbox/stats`)).json()) as {byRoute: Record<string, number>}
    return (byRoute['POST /core/transaction'] ?? 0) + (byRoute['POST /core/withdraw'] ?? 0)
  }

  /** A CONNECT proxy on 127.0.0.1 that carries tunnels to the gateway until money has moved, then fails each new one as `later` says. */
  async function switchingProxy(later: '503' | '407' | 'garbage'): Promise<{port: number; close(): Promise<void>}> {
    const before = await moneyMoved()
    const sockets = new Set<Socket>()
    const server = createNetServer((client) => {
      sockets.add(client)
      client.on('close', () => sockets.delete(client))
      client.on('error', () => client.destroy())
      let head = ''
      const onData = (chunk: Buffer) => {
        head += chunk.toString('latin1')
        if (!head.includes('\r\n\r\n')) return
        client.off('data', onData)
        client.pause()
        void answer()
      }
      const answer = async () => {
        if ((await moneyMoved()) === before) {
          const upstream = netConnect(gateway.port, '127.0.0.1', () => {
            client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
            client.pipe(upstream).pipe(client)
            client.resume()
          })
          sockets.add(upstream)
          upstream.on('close', () => sockets.delete(upstream))
          upstream.on('error', () => client.destroy())
          return
        }
        if (later === '503') client.end('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n')
        else if (later === '407') client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n')
        else client.end('HTTP/1.1 200 Connection Established\r\n\r\nthis is not TLS\r\n')
      }
      client.on('data', onData)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return {
      port: (server.address() as AddressInfo).port,
      close: () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy()
          server.close(() => resolve())
        }),
    }
  }

  let run = 0
  it.each([
    ['tx create', '503'],
    ['tx create', '407'],
    ['tx create', 'garbage'],
    ['withdraw', '503'],
    ['withdraw', '407'],
    ['withdraw', 'garbage'],
  ] as const)('%s, the retry refused by the proxy (%s): exit 7, pending, the gateway may have made it, and the same again refused', async (command, later) => {
    run += 1
    const proxy = await switchingProxy(later)
    const env = {
      GATEWAY_CONFIG_DIR: join(config.dir, `p${run}`),
      ...NO_MACHINE_NETWORK,
      HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`,
      GATEWAY_CA_FILE: pki.ca,
      GATEWAY_CLIENT_SECRET: 'sandbox-secret',
    }
    try {
      const login = await runCommand(['login', '--base-url', `https://${REMOTE_HOST}:${gateway.port}`, '--client-id', 'sandbox'], {env})
      expect(login.code, login.stderr).toBe(0)
      const code = `proxy-retry-${run}`
      const args =
        command === 'withdraw'
          ? ['withdraw', '--amount', '1500', '--pix-key', '529.982.247-25', '--external-code', code, '--yes']
          : ['tx', 'create', '--amount', '1500', '--external-code', code]
      await fetch(`${sandbox.baseUrl}/_sandbox/faults`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({route: command === 'withdraw' ? 'POST /core/withdraw' : 'POST /core/transaction', kind: 'reset-after'})})
      const before = await moneyMoved()
      const first = await runCommand(args, {env})
      // The gateway made it, once.
      expect(await moneyMoved()).toBe(before + 1)
      expect(first.code, first.stderr).toBe(7)
      expect(first.stderr).toContain('the gateway may have made it')
      expect(first.stderr).not.toContain('nothing was sent')
      const pending = await runCommand(['journal', 'list', '--pending', '--json'], {env})
      expect(pending.code, pending.stderr).toBe(0)
      expect(JSON.stringify(JSON.parse(pending.stdout))).toContain(code)
      // The same request again, under a new key: refused as a repeat, nothing sent.
      await fetch(`${sandbox.baseUrl}/_sandbox/faults`, {method: 'DELETE'})
      const again = await runCommand(args, {env})
      expect(again.code, again.stderr).toBe(2)
      expect(again.stderr).toContain(code)
      expect(await moneyMoved()).toBe(before + 1)
    } finally {
      await fetch(`${sandbox.baseUrl}/_sandbox/faults`, {method: 'DELETE'})
      await proxy.close()
    }
  })
})
