// `tx get` as a process, on the fast path and through oclif (GATEWAY_FAST_PATH=0): both reach a
// gateway that requires a client certificate, only through an HTTP proxy, and both name a dead proxy.
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, tempConfigDir, type CliResult} from '../helpers/cli.js'
import {runCommand} from '../helpers/context.js'
import {deadPort, makePki, REMOTE_HOST, startProxy, tlsFront, type Pki} from '../helpers/network.js'
import {startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

const CHARGE = ['--amount', '2500', '--customer-name', 'Maria Silva', '--customer-document', '529.982.247-25', '--customer-email', 'maria@example.com', '--customer-mobile', '(11) 98765-4321']
const EXECUTABLE = fileURLToPath(new URL('../../dist/package/gateway', import.meta.url))

/** Runs the single executable (npm run package makes it), without blocking the servers of this process. */
function runExecutable(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return runCli(args, {env, program: [EXECUTABLE]})
}

const NO_PROXY_VARIABLES = {HTTPS_PROXY: undefined, https_proxy: undefined, HTTP_PROXY: undefined, http_proxy: undefined, NO_PROXY: undefined, no_proxy: undefined, NODE_TLS_REJECT_UNAUTHORIZED: undefined}

describe('tx get over mutual TLS and a proxy, as a process', () => {
  let sandbox: Sandbox
  let pki: Pki
  let config: ReturnType<typeof tempConfigDir>
  let gateway: Awaited<ReturnType<typeof tlsFront>>
  let proxy: Awaited<ReturnType<typeof startProxy>>
  let env: Record<string, string | undefined>
  let id: string
  const password = 'proxy-password-5b7e'

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    pki = makePki()
    config = tempConfigDir()
    gateway = await tlsFront(Number(new URL(sandbox.baseUrl).port), {
      cert: pki.read(pki.server.cert),
      key: pki.read(pki.server.key),
      requestCert: true,
      rejectUnauthorized: true,
      ca: [pki.read(pki.ca)],
    })
    proxy = await startProxy({credentials: {user: 'ops', password}})
    env = {...NO_PROXY_VARIABLES, GATEWAY_CONFIG_DIR: join(config.dir, 'tls'), HTTPS_PROXY: `http://ops:${password}@127.0.0.1:${proxy.port}`}
    const base = `https://${REMOTE_HOST}:${gateway.port}`
    const login = await runCommand(['login', '--base-url', base, '--client-id', 'sandbox', '--p12', pki.client.p12, '--cert-passphrase-stdin', '--ca-file', pki.ca], {
      env: {...env, GATEWAY_CLIENT_SECRET: 'sandbox-secret'},
      input: pki.client.passphrase,
    })
    expect(login.stderr).toBe('')
    const created = await runCommand(['tx', 'create', ...CHARGE, '--json'], {env})
    expect(created.code).toBe(0)
    id = (JSON.parse(created.stdout) as {id: string}).id
  })
  afterAll(async () => {
    await proxy?.close()
    await gateway?.close()
    await sandbox?.close()
    pki?.remove()
    config?.remove()
  })

  it.each([
    ['the fast path', {}, 'fast-tx-get.cjs'],
    ['oclif', {GATEWAY_FAST_PATH: '0'}, 'gateway.cjs'],
  ])('through %s', async (_name, extra, bundle) => {
    const before = proxy.log.length
    const handshakes = gateway.handshakes()
    const result = await runCli(['tx', 'get', id, '--json'], {env: {...env, ...extra, GATEWAY_CODE_CACHE_REPORT: '1'}})
    expect(result.stderr).toContain(`code cache of ${bundle}`)
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({id, amount: 2500})
    const connects = proxy.log.slice(before)
    expect(connects.length).toBeGreaterThan(0)
    expect(connects.every((entry) => entry.method === 'CONNECT' && entry.target === `${REMOTE_HOST}:${gateway.port}`)).toBe(true)
    expect(gateway.handshakes()).toBeGreaterThan(handshakes)
    expect(`${result.stdout}${result.stderr}`).not.toContain(password)
  })

  it.each([
    ['the fast path', {}, 'fast-tx-create.cjs'],
    ['oclif', {GATEWAY_FAST_PATH: '0'}, 'gateway.cjs'],
  ])('tx create through %s', async (_name, extra, bundle) => {
    const before = proxy.log.length
    const result = await runCli(['tx', 'create', ...CHARGE, '--json'], {env: {...env, ...extra, GATEWAY_CODE_CACHE_REPORT: '1'}})
    expect(result.stderr).toContain(`code cache of ${bundle}`)
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({amount: 2500})
    expect(proxy.log.slice(before).some((entry) => entry.method === 'CONNECT')).toBe(true)
  })

  it('through the single executable', async () => {
    expect(existsSync(EXECUTABLE), `${EXECUTABLE} is missing: run npm run package`).toBe(true)
    const before = proxy.log.length
    for (const extra of [{}, {GATEWAY_FAST_PATH: '0'}]) {
      const result = await runExecutable(['tx', 'get', id, '--json'], {...env, ...extra})
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({id, amount: 2500})
    }
    expect(proxy.log.slice(before).filter((entry) => entry.method === 'CONNECT').length).toBeGreaterThanOrEqual(2)
    const port = await deadPort()
    const dead = await runExecutable(['tx', 'get', id, '--retries', '0'], {...env, HTTPS_PROXY: `http://127.0.0.1:${port}`})
    expect(dead.code).toBe(7)
    expect(dead.stderr).toContain(`could not reach the proxy http://127.0.0.1:${port} (from HTTPS_PROXY)`)
  })

  it.each([
    ['the fast path', {}],
    ['oclif', {GATEWAY_FAST_PATH: '0'}],
  ])('a dead proxy is named through %s: exit 7', async (_name, extra) => {
    const port = await deadPort()
    const result = await runCli(['tx', 'get', id, '--retries', '0'], {env: {...env, ...extra, HTTPS_PROXY: `http://ops:${password}@127.0.0.1:${port}`}})
    expect(result.code).toBe(7)
    expect(result.stderr).toContain(`could not reach the proxy http://[REDACTED]@127.0.0.1:${port} (from HTTPS_PROXY)`)
    expect(result.stderr).not.toContain(password)
  })

  it.each([
    ['the fast path', {}],
    ['oclif', {GATEWAY_FAST_PATH: '0'}],
  ])('without the client certificate, through %s: exit 3, naming --cert', async (_name, extra) => {
    // A cron job's run: credentials and gateway from the environment, no login, no certificate.
    const bare = {
      ...env,
      ...extra,
      GATEWAY_CONFIG_DIR: join(config.dir, 'bare'),
      GATEWAY_BASE_URL: `https://${REMOTE_HOST}:${gateway.port}`,
      GATEWAY_CLIENT_ID: 'sandbox',
      GATEWAY_CLIENT_SECRET: 'sandbox-secret',
      GATEWAY_CA_FILE: pki.ca,
    }
    const result = await runCli(['tx', 'get', id], {env: bare})
    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/asks for a client certificate \(mutual TLS\), and none was given/)
    expect(result.stderr).toContain('--cert')
    const missing = await runCli(['tx', 'get', id], {env: {...env, ...extra, GATEWAY_P12: join(pki.dir, 'missing.p12')}})
    expect(missing.code).toBe(3)
    expect(missing.stderr).toMatch(/client certificate \(\.p12\) .*missing\.p12 cannot be read \(no such file\)/)
  })
})
