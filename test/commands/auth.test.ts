import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {runCli} from '../helpers/cli.js'
import {runCommand} from '../helpers/context.js'
import {control, startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

const SECRET = 'sandbox-secret'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('login, auth status, auth token, logout', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })
  afterAll(() => sandbox.close())
  beforeEach(() => {
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
  })
  afterEach(() => config.remove())

  const login = (extra: Record<string, string> = {}, args: string[] = []) =>
    runCommand(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox', ...args], {env: {...env, GATEWAY_CLIENT_SECRET: SECRET, ...extra}})

  it('logs in with the secret from the environment and prints the login, never the token', async () => {
    const before = await stats(sandbox.baseUrl)
    const result = await login()
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`Base URL:  ${sandbox.baseUrl}`)
    expect(result.stdout).toContain('Client ID: sandbox')
    expect(result.stdout).toContain('resend_dispatcher')
    expect(result.stdout).not.toContain(SECRET)
    expect(result.stdout).not.toMatch(/eyJ/)
    expect((await stats(sandbox.baseUrl)).tokenRequests).toBe(before.tokenRequests + 1)
  })

  it('logs in with the secret on stdin and answers the documented JSON fields', async () => {
    const result = await runCommand(
      ['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox', '--client-secret-stdin', '--json'],
      {env, input: `${SECRET}\n`},
    )
    expect(result.code).toBe(0)
    const body = JSON.parse(result.stdout)
    expect(Object.keys(body).sort()).toEqual(['baseUrl', 'clientId', 'expiresAt', 'profile', 'scopes'])
    expect(body).toMatchObject({profile: 'default', baseUrl: sandbox.baseUrl, clientId: 'sandbox'})
    expect(body.scopes).toContain('resend_dispatcher')
    expect(Date.parse(body.expiresAt)).toBeGreaterThan(Date.now() + 3_500_000)
  })

  it('takes the client id from GATEWAY_CLIENT_ID and keeps profiles apart', async () => {
    const result = await runCommand(['login', '--profile', 'limited', '--base-url', sandbox.baseUrl, '--json'], {
      env: {...env, GATEWAY_CLIENT_ID: 'sandbox-limited', GATEWAY_CLIENT_SECRET: SECRET},
    })
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).scopes).not.toContain('resend_dispatcher')
    const other = await runCommand(['auth', 'status'], {env})
    expect(other.code).toBe(3)
  })

  it('shows auth status and prints a usable token, reusing the cached token', async () => {
    expect((await login()).code).toBe(0)
    const after = await stats(sandbox.baseUrl)

    const status = await runCommand(['auth', 'status', '--json'], {env})
    expect(status.code).toBe(0)
    const body = JSON.parse(status.stdout)
    expect(body).toMatchObject({profile: 'default', baseUrl: sandbox.baseUrl, clientId: 'sandbox', valid: true})

    const human = await runCommand(['auth', 'status'], {env})
    expect(human.code).toBe(0)
    expect(human.stdout).toContain('Valid:     yes')

    const token = await runCommand(['auth', 'token'], {env})
    expect(token.code).toBe(0)
    const jwt = token.stdout.trim()
    expect(jwt.split('.')).toHaveLength(3)
    expect(token.stdout).toBe(`${jwt}\n`)
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString())
    expect(claims.sub).toBe('sandbox')

    // The token works against the gateway: an authenticated route answers 404 for an unknown id, not 401.
    const lookup = await fetch(`${sandbox.baseUrl}/core/transaction/00000000-0000-4000-8000-000000000000`, {
      headers: {authorization: `Bearer ${jwt}`},
    })
    expect(lookup.status).toBe(404)

    // Three commands after login, and not one more token request.
    expect((await stats(sandbox.baseUrl)).tokenRequests).toBe(after.tokenRequests)
  })

  it('renews the token when less than 60 s of it is left', async () => {
    const short = await startTestSandbox({tokenTtlSec: 62})
    try {
      const result = await runCommand(['login', '--base-url', short.baseUrl, '--client-id', 'sandbox'], {
        env: {...env, GATEWAY_CLIENT_SECRET: SECRET},
      })
      expect(result.code).toBe(0)
      const first = (await runCommand(['auth', 'token'], {env})).stdout.trim()
      expect((await stats(short.baseUrl)).tokenRequests).toBe(1)
      await sleep(3000)
      const second = await runCommand(['auth', 'token'], {env})
      expect(second.code).toBe(0)
      expect(second.stdout.trim()).not.toBe(first)
      expect((await stats(short.baseUrl)).tokenRequests).toBe(2)
      const third = (await runCommand(['auth', 'token'], {env})).stdout.trim()
      expect(third).toBe(second.stdout.trim())
    } finally {
      await short.close()
    }
  })

  it('shares one renewal between concurrent processes', async () => {
    const short = await startTestSandbox({tokenTtlSec: 62})
    try {
      expect(
        (await runCommand(['login', '--base-url', short.baseUrl, '--client-id', 'sandbox'], {env: {...env, GATEWAY_CLIENT_SECRET: SECRET}})).code,
      ).toBe(0)
      await sleep(2500)
      const runs = await Promise.all(Array.from({length: 6}, () => runCli(['auth', 'token'], {env})))
      for (const run of runs) expect(run.code).toBe(0)
      expect(new Set(runs.map((run) => run.stdout)).size).toBe(1)
      expect((await stats(short.baseUrl)).tokenRequests).toBe(2)
    } finally {
      await short.close()
    }
  })

  it('exits 3 with a clear message on a wrong secret', async () => {
    const result = await login({GATEWAY_CLIENT_SECRET: 'not-the-secret'})
    expect(result.code).toBe(3)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(/the gateway at http:\/\/127\.0\.0\.1:\d+ refused the client credentials \(401\): invalid client credentials/)
    expect(result.stderr).not.toContain('not-the-secret')
    const json = await login({GATEWAY_CLIENT_SECRET: 'not-the-secret'}, ['--json'])
    expect(json.code).toBe(3)
    expect(JSON.parse(json.stdout).error).toMatchObject({code: 'AUTH', exitCode: 3, status: 401})
  })

  it('refuses plain http to a host that is not loopback, before sending anything', async () => {
    const result = await runCommand(['login', '--base-url', 'http://example.com', '--client-id', 'x'], {
      env: {...env, GATEWAY_CLIENT_SECRET: SECRET},
    })
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toContain('--base-url must use https')
    const json = await runCommand(['login', '--base-url', 'http://example.com', '--client-id', 'x', '--json'], {
      env: {...env, GATEWAY_CLIENT_SECRET: SECRET},
    })
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stdout).error.code).toBe('USAGE')
  })

  it('exits 2 without a TTY and without a secret, naming where a secret can come from', async () => {
    const before = await stats(sandbox.baseUrl)
    const result = await runCommand(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox'], {env})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--client-secret-stdin')
    expect(result.stderr).toContain('GATEWAY_CLIENT_SECRET')
    expect((await stats(sandbox.baseUrl)).requests).toBe(before.requests)
  })

  it('writes config, credentials and token cache with mode 0600 in a 0700 folder', async () => {
    expect((await login()).code).toBe(0)
    expect(statSync(config.dir).mode & 0o777).toBe(0o700)
    for (const name of ['config.json', 'credentials.json', 'tokens.json']) {
      expect(statSync(join(config.dir, name)).mode & 0o777).toBe(0o600)
    }
  })

  it('keeps the secret and the token out of every line printed, --debug included', async () => {
    const outputs: string[] = []
    const first = await login({}, ['--debug'])
    expect(first.code).toBe(0)
    outputs.push(first.stdout, first.stderr)
    expect(first.stderr).toContain('client_secret=[REDACTED]')
    expect(first.stderr).toContain('"access_token":"[REDACTED]"')
    const token = (await runCommand(['auth', 'token'], {env})).stdout.trim()
    for (const args of [['auth', 'status', '--debug'], ['auth', 'status', '--json', '--debug'], ['logout', '--debug']]) {
      const result = await runCommand(args, {env})
      outputs.push(result.stdout, result.stderr)
    }
    // A 401 after a revocation makes the CLI renew: the exchange shows the bearer, redacted.
    expect((await login()).code).toBe(0)
    await control(sandbox.baseUrl, '/_sandbox/auth/revoke')
    const lookup = await runCommand(['tx', 'get', '00000000-0000-4000-8000-000000000000', '--debug'], {env})
    expect(lookup.code).toBe(4)
    expect(lookup.stderr).toContain('authorization: Bearer [REDACTED]')
    outputs.push(lookup.stdout, lookup.stderr)
    const fresh = JSON.parse(readFileSync(join(config.dir, 'tokens.json'), 'utf8')).default.accessToken
    for (const text of outputs) {
      expect(text).not.toContain(SECRET)
      expect(text).not.toContain(token)
      expect(text).not.toContain(fresh)
    }
  })

  it('re-authenticates once after a 401 and retries the request', async () => {
    expect((await login()).code).toBe(0)
    await control(sandbox.baseUrl, '/_sandbox/auth/revoke')
    const before = await stats(sandbox.baseUrl)
    const result = await runCommand(['tx', 'get', '00000000-0000-4000-8000-000000000000', '--json'], {env})
    expect(result.code).toBe(4)
    expect(JSON.parse(result.stdout).error).toMatchObject({code: 'NOT_FOUND', status: 404})
    const after = await stats(sandbox.baseUrl)
    expect(after.tokenRequests).toBe(before.tokenRequests + 1)
    expect(after.byRoute['GET /core/transaction/:id'] - (before.byRoute['GET /core/transaction/:id'] ?? 0)).toBe(2)
  })

  it('renews from GATEWAY_CLIENT_ID and GATEWAY_CLIENT_SECRET alone, with no login at all', async () => {
    const result = await runCommand(['auth', 'token'], {
      env: {...env, GATEWAY_BASE_URL: sandbox.baseUrl, GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: SECRET},
    })
    expect(result.code).toBe(0)
    expect(result.stdout.trim().split('.')).toHaveLength(3)
  })

  it('exits 3 when the token expired and cannot be renewed', async () => {
    const short = await startTestSandbox({tokenTtlSec: 1})
    try {
      expect(
        (await runCommand(['login', '--base-url', short.baseUrl, '--client-id', 'sandbox'], {env: {...env, GATEWAY_CLIENT_SECRET: SECRET}})).code,
      ).toBe(0)
      await sleep(1100)
      const result = await runCommand(['auth', 'status', '--json'], {env: {...env, GATEWAY_CLIENT_SECRET: 'rotated-away'}})
      expect(result.code).toBe(3)
      const body = JSON.parse(result.stdout)
      expect(body).toMatchObject({valid: false, clientId: 'sandbox'})
      expect(body.error.code).toBe('AUTH')
      expect(result.stdout).not.toContain('rotated-away')
    } finally {
      await short.close()
    }
  })

  it('exits 3 from auth status without a login, and logout forgets the login', async () => {
    const none = await runCommand(['auth', 'status'], {env})
    expect(none.code).toBe(3)
    expect(none.stderr).toContain('not logged in')
    expect((await login()).code).toBe(0)
    const out = await runCommand(['logout', '--json'], {env})
    expect(out.code).toBe(0)
    expect(JSON.parse(out.stdout)).toEqual({profile: 'default', loggedOut: true})
    expect((await runCommand(['auth', 'status'], {env})).code).toBe(3)
    expect(JSON.parse(readFileSync(join(config.dir, 'credentials.json'), 'utf8'))).toEqual({})
  })

  it('exits 7 when the gateway cannot be reached', async () => {
    const gone = await startTestSandbox()
    const url = gone.baseUrl
    await gone.close()
    const result = await runCommand(['login', '--base-url', url, '--client-id', 'sandbox', '--json'], {env: {...env, GATEWAY_CLIENT_SECRET: SECRET}})
    expect(result.code).toBe(7)
    expect(JSON.parse(result.stdout).error.message).toContain('connection refused')
  })

  it('exits 7 when the identity provider fails (502)', async () => {
    await control(sandbox.baseUrl, '/_sandbox/auth/idp', {fail: true})
    try {
      const result = await login()
      expect(result.code).toBe(7)
      expect(result.stderr).toContain('502')
    } finally {
      await control(sandbox.baseUrl, '/_sandbox/auth/idp', {fail: false})
    }
  })
})
