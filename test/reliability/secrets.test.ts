import {readFileSync, statSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {runCommand, type InProcessResult} from '../helpers/context.js'
import {recordFigures} from '../helpers/figures.js'
import {control, startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

const SECRET = 'sandbox-secret'

describe('secrets', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  /** Every access token the profile held at any point: none may show anywhere. */
  const tokens = new Set<string>()
  /** Everything the commands wrote. */
  const outputs: string[] = []
  const figures: Record<string, unknown> = {}

  const remember = () => {
    try {
      const cache = JSON.parse(readFileSync(join(config.dir, 'tokens.json'), 'utf8')) as Record<string, {accessToken: string}>
      for (const token of Object.values(cache)) tokens.add(token.accessToken)
    } catch {
      // no cache yet
    }
  }
  const run = async (argv: string[], extra: Record<string, string> = {}): Promise<InProcessResult> => {
    const result = await runCommand([...argv, '--debug'], {env: {...env, ...extra}, sleep: async () => {}})
    outputs.push(result.stdout, result.stderr)
    remember()
    return result
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
  })
  afterAll(async () => {
    recordFigures('secrets', figures)
    await sandbox.close()
    config.remove()
  })

  it('no --debug trace, output or journal line holds the client secret or an access token', async () => {
    expect((await run(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox'], {GATEWAY_CLIENT_SECRET: SECRET})).code).toBe(0)
    const created = await run(['tx', 'create', '--amount', '1000', '--external-code', 'secret-scan-1', '--json'])
    expect(created.code).toBe(0)
    const {id} = JSON.parse(created.stdout) as {id: string}
    await run(['tx', 'create', '--amount', '1000', '--customer-name', 'Ana Lima', '--customer-document', '529.982.247-25'])
    await run(['tx', 'get', id])
    await run(['deposits', 'list', '--per-page', '5'])
    await run(['deposits', 'list', '--all', '--output', 'csv'])
    await run(['auth', 'status'])
    // A revoked token is renewed once with the stored secret: the renewal is traced too.
    await control(sandbox.baseUrl, '/_sandbox/auth/revoke')
    expect((await run(['auth', 'status', '--check'])).code).toBe(0)
    // A charge left pending, then replayed.
    await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', kind: 'reset-after', count: 4})
    expect((await run(['tx', 'create', '--amount', '1500', '--external-code', 'secret-scan-2'])).code).toBe(7)
    expect((await run(['journal', 'retry', '--yes'])).code).toBe(0)
    await run(['journal', 'list', '--json'])
    // Credentials from the environment, a login whose secret is wrong.
    await run(['tx', 'get', id], {GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: SECRET})
    expect((await run(['login', '--client-id', 'sandbox'], {GATEWAY_CLIENT_SECRET: 'wrong-secret-value'})).code).toBe(3)

    const journal = readFileSync(join(config.dir, 'journal.jsonl'), 'utf8')
    const text = [...outputs, journal].join('\n')
    expect(tokens.size).toBeGreaterThanOrEqual(2)
    // The traces did run: requests, answers and the token exchange are in them, redacted.
    expect(text).toContain('> POST')
    expect(text).toContain('client_secret=[REDACTED]')
    expect(text).toContain('"access_token":"[REDACTED]"')
    expect(text).toContain('authorization: Bearer [REDACTED]')
    for (const secret of [SECRET, 'wrong-secret-value', ...tokens]) expect(text.includes(secret), `found ${secret.slice(0, 12)}…`).toBe(false)
    figures.scan = {commandsTraced: outputs.length / 2, accessTokensSought: tokens.size, bytesScanned: text.length, secretsFound: 0}
  })

  it('keeps token, credential, config and journal files 0600 in a 0700 folder', () => {
    const modes = Object.fromEntries(
      ['config.json', 'credentials.json', 'tokens.json', 'journal.jsonl'].map((name) => [name, (statSync(join(config.dir, name)).mode & 0o777).toString(8)]),
    )
    expect(modes).toEqual({'config.json': '600', 'credentials.json': '600', 'tokens.json': '600', 'journal.jsonl': '600'})
    expect((statSync(config.dir).mode & 0o777).toString(8)).toBe('700')
    figures.fileModes = {...modes, folder: '700'}
  })

  it('refuses plain http to a host that is not loopback, before sending or journaling anything', async () => {
    const before = readFileSync(join(config.dir, 'journal.jsonl'), 'utf8')
    const result = await runCommand(['tx', 'create', '--amount', '100', '--base-url', 'http://gateway.example.com'], {env})
    expect(result.code).toBe(2)
    expect(result.stderr).toBe('Error: --base-url must use https unless its host is loopback (127.0.0.1, ::1, localhost); refusing http://gateway.example.com\n')
    expect(readFileSync(join(config.dir, 'journal.jsonl'), 'utf8')).toBe(before)
  })

  describe('a token endpoint that answers garbage', () => {
    let server: Server
    let answer: {status: number; type: string; body: string}
    let baseUrl: string
    beforeAll(async () => {
      server = createServer((req, res) => {
        req.resume()
        res.writeHead(answer.status, {'content-type': answer.type})
        res.end(answer.body)
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    })
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

    const garbage = [
      {status: 200, type: 'text/html', body: '<html><body>Welcome to the proxy</body></html>', says: /the token answer is unusable: the token answer has no access_token/},
      {status: 200, type: 'application/json', body: '{"token": "abc"', says: /the token answer is unusable: the token answer has no access_token/},
      {status: 200, type: 'application/json', body: '{"access_token": 42}', says: /the token answer is unusable: the token answer has no access_token/},
      {status: 200, type: 'application/json', body: '', says: /the token answer is unusable/},
      {status: 502, type: 'text/html', body: '<html>Bad gateway</html>', says: /the token request: the gateway failed \(502\): an HTML page reading "Bad gateway"/},
    ]
    for (const [index, item] of garbage.entries()) {
      it(`login says so clearly, in one line, and keeps the secret out: ${item.status} ${JSON.stringify(item.body.slice(0, 20))}`, async () => {
        answer = item
        const other = tempConfigDir()
        try {
          const result = await runCommand(['login', '--base-url', baseUrl, '--client-id', 'sandbox'], {
            env: {GATEWAY_CONFIG_DIR: other.dir, GATEWAY_CLIENT_SECRET: `garbage-secret-${index}`},
            sleep: async () => {},
          })
          expect(result.code).toBe(7)
          expect(result.stdout).toBe('')
          expect(result.stderr.trim().split('\n')).toHaveLength(1)
          expect(result.stderr).toMatch(item.says)
          expect(result.stderr).not.toContain(`garbage-secret-${index}`)
        } finally {
          other.remove()
        }
      })
    }
  })
})
