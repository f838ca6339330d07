import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {runCommand, type RunOptions} from '../helpers/context.js'
import {startHostileGateway, type HostileGateway, type HostileRequest} from '../helpers/hostile-gateway.js'
import {startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

/**
 * A hostile gateway, round 2: text that hides or impersonates, colour from outside, endless and huge
 * answers, answers of the wrong shape, odd token lifetimes and types, and spreadsheet formulas.
 */

/** Every character that must never reach a terminal raw: controls, bidi, invisibles, tags. */
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0]|[\u{e0000}-\u{e007f}]/u
/** Text in tag characters: invisible in a terminal, yet there. */
const tags = (text: string) => [...text].map((char) => String.fromCodePoint(0xe0000 + char.charCodeAt(0))).join('')
/** Without the CLI's own colours (the only sequences it writes in a terminal). */
const withoutOurs = (text: string) => text.replace(/\u001b\[(?:1|2|22|31|32|33|36|39|90)m/g, '')
const INVISIBLES = ['\u061c', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u3164', '\u{e0041}']

type Json = Record<string, any>  

describe('a hostile gateway, round 2', () => {
  let sandbox: Sandbox
  let hostile: HostileGateway
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  let id: string

  const terminal: RunOptions = {tty: {stdout: true, stderr: true}, columns: 400}
  const cli = (args: string[], options: RunOptions = {}) => runCommand(args, {sleep: async () => {}, ...options, env: {...env, ...options.env}})
  const isLookup = (request: HostileRequest) => request.method === 'GET' && request.url.startsWith('/core/transaction/')
  const isList = (request: HostileRequest) => request.method === 'GET' && request.url.startsWith('/core/deposit')
  const login = () => cli(['login', '--base-url', hostile.baseUrl, '--client-id', 'sandbox'], {env: {GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 6})
    hostile = await startHostileGateway(sandbox.baseUrl)
    hostile.poisonAll = false
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    const logged = await login()
    expect(logged.code, logged.stderr).toBe(0)
    const created = await cli(['tx', 'create', '--amount', '1000', '--json'])
    expect(created.code, created.stderr).toBe(0)
    id = JSON.parse(created.stdout).id
  })
  afterEach(() => {
    hostile.answer = undefined
    hostile.rewrite = undefined
  })
  afterAll(async () => {
    await hostile.close()
    await sandbox.close()
    config.remove()
  })

  describe('1. invisible and look-alike text', () => {
    it('deposits list shows three ids that print alike as three different ids, and a Cyrillic PAID escaped', async () => {
      let ids: string[] = []
      hostile.rewrite = (request, body) => {
        if (!isList(request)) return body
        const page = body as Json
        const first = page.data[0]
        ids = [first.id, `${first.id.slice(0, 8)}\u200b${first.id.slice(8)}`, `${first.id}${tags('x')}`]
        page.data = ids.map((each, index) => ({...first, id: each, status: index === 1 ? '\u0420\u0410ID' : first.status, payer: first.payer && {...first.payer, name: `Ana${tags('R$ 99.999,99')}`}}))
        return page
      }
      for (const options of [{}, terminal]) {
        const shown = await cli(['deposits', 'list', '--no-interactive'], options)
        expect(shown.code, shown.stderr).toBe(0)
        expect(withoutOurs(shown.stdout).match(HIDDEN)?.[0]).toBeUndefined()
        expect(shown.stdout).toContain(`${ids[0].slice(0, 8)}\\u200b${ids[0].slice(8)}`)
        expect(shown.stdout).toContain(`${ids[0]}\\u{e0078}`)
        expect(shown.stdout).toContain('\\u0420\\u0410ID')
      }
      // JSON keeps the values as they came.
      const json = JSON.parse((await cli(['deposits', 'list', '--json'])).stdout)
      expect(json.data.map((row: Json) => row.id)).toEqual(ids)
      expect(json.data[1].status).toBe('\u0420\u0410ID')
    })

    it('tx get shows every invisible, bidi and tag character escaped, in names as in ids', async () => {
      hostile.rewrite = (request, body) =>
        isLookup(request) ? {...(body as Json), customer: {name: `Jo${INVISIBLES.join('')}ao${tags('R$ 99.999,99')}`, document: '123.***.***-09'}} : body
      const shown = await cli(['tx', 'get', id], terminal)
      expect(shown.code, shown.stderr).toBe(0)
      expect(withoutOurs(shown.stdout).match(HIDDEN)?.[0]).toBeUndefined()
      expect(shown.stdout).toContain('Jo\\u061c\\u200b\\u200c\\u200d\\u2060\\ufeff\\u00ad\\u3164\\u{e0041}ao\\u{e0052}\\u{e0024}')
    })
  })

  describe('2. colour from outside', () => {
    const name = 'Jo\u001b[32mao PAID \u001b[2m\u001b[90m'
    it.each([
      ['NO_COLOR=1', {...terminal, env: {NO_COLOR: '1'}}],
      ['colour on', terminal],
    ])('a payer name with the painter\'s own sequences is shown escaped (%s)', async (_, options) => {
      hostile.rewrite = (request, body) => (isLookup(request) ? {...(body as Json), customer: {name, document: '123.***.***-09'}} : body)
      const shown = await cli(['tx', 'get', id], options)
      expect(shown.code, shown.stderr).toBe(0)
      expect(shown.stdout).toContain('Jo\\u001b[32mao PAID \\u001b[2m\\u001b[90m')
      expect(shown.stdout).not.toContain('\u001b[32mao')
      expect(shown.stdout).not.toContain('\u001b[2m\u001b[90m')
      if (options.env?.NO_COLOR) expect(shown.stdout).not.toContain('\u001b')
      else expect(shown.stdout).toContain('\u001b[1m') // our own bold is still there
    })
  })

  describe('3. huge answers', () => {
    it('a body over 16 MiB is exit 7, read no further than the limit', async () => {
      hostile.answer = (request) => (isLookup(request) ? {bytes: 200 * 1024 * 1024} : undefined)
      const result = await cli(['tx', 'get', id])
      expect(result.code, result.stderr).toBe(7)
      expect(result.stderr).toContain("the gateway's answer is larger than 16 MiB")
      // The client stopped taking the body soon after the limit (socket buffers aside).
      expect(hostile.sentBytes).toBeLessThan(64 * 1024 * 1024)
    })

    it('a declared length over 16 MiB is refused before reading', async () => {
      hostile.answer = (request) => (isLookup(request) ? {bytes: 17 * 1024 * 1024, headers: {'content-length': String(17 * 1024 * 1024)}} : undefined)
      const result = await cli(['tx', 'get', id, '--json'])
      expect(result.code).toBe(7)
      expect(JSON.parse(result.stdout).error.message).toContain("the gateway's answer is larger than 16 MiB")
    })
  })

  describe('4. --timeout bounds the whole request', () => {
    it('a body that drips a byte a second: tx get --timeout 2s exits 7 in about 2 s', async () => {
      hostile.answer = (request) => (isLookup(request) ? {body: JSON.stringify({id, status: 'PAID', padding: 'x'.repeat(200)}), dripMs: 1000} : undefined)
      const started = performance.now()
      const result = await cli(['tx', 'get', id, '--timeout', '2s'])
      const took = performance.now() - started
      expect(result.code, result.stderr).toBe(7)
      expect(result.stderr).toMatch(/timed out reading the answer|did not arrive in full/)
      expect(took).toBeGreaterThan(1500)
      expect(took).toBeLessThan(8000)
    })
  })

  describe('5. a 2xx of the wrong shape', () => {
    it('tx get on {"hello":"world"} is exit 7, with and without --json', async () => {
      hostile.answer = (request) => (isLookup(request) ? {body: '{"hello":"world"}'} : undefined)
      const shown = await cli(['tx', 'get', id])
      expect(shown.code).toBe(7)
      expect(shown.stdout).toBe('')
      expect(shown.stderr).toContain('the gateway answered something that is not a transaction')
      const json = await cli(['tx', 'get', id, '--json'])
      expect(json.code).toBe(7)
      expect(JSON.parse(json.stdout).error.message).toContain('not a transaction')
    })

    it('a required field of the wrong type is exit 7; unknown fields and enum values are kept', async () => {
      hostile.rewrite = (request, body) => (isLookup(request) ? {...(body as Json), amount: '1000'} : body)
      expect((await cli(['tx', 'get', id])).code).toBe(7)
      hostile.rewrite = (request, body) => (isLookup(request) ? {...(body as Json), paymentMethod: 'P\u0399X', brandNew: {x: 1}} : body)
      const kept = await cli(['tx', 'get', id, '--json'])
      expect(kept.code, kept.stderr).toBe(0)
      expect(JSON.parse(kept.stdout)).toMatchObject({paymentMethod: 'P\u0399X', brandNew: {x: 1}})
      const shown = await cli(['tx', 'get', id])
      expect(shown.stdout).toContain('P\\u0399X')
    })

    it('deposits list on {"data":"x"} is exit 7, not 1', async () => {
      hostile.answer = (request) => (isList(request) ? {body: '{"data":"x"}'} : undefined)
      const result = await cli(['deposits', 'list', '--no-interactive'])
      expect(result.code).toBe(7)
      expect(result.stderr).toContain('the gateway answered something that is not a page of deposits')
      expect(result.stderr).not.toContain('Cannot read properties')
    })

    it('a create answered with the id alone is no success: exit 7 and the entry stays pending', async () => {
      hostile.rewrite = (request, body) => (request.method === 'POST' && request.url === '/core/transaction' ? {id: (body as Json).id} : body)
      const result = await cli(['tx', 'create', '--amount', '700', '--idempotency-key', 'hostile-shape-0001'])
      expect(result.code).toBe(7)
      expect(result.stderr).toContain('the gateway answered something that is not a transaction')
      hostile.rewrite = undefined
      const pending = JSON.parse((await cli(['journal', 'list', '--pending', '--json'])).stdout) as Array<{idempotencyKey: string}>
      expect(pending.map((entry) => entry.idempotencyKey)).toContain('hostile-shape-0001')
      expect((await cli(['journal', 'retry', '--yes', '--key', 'hostile-shape-0001'])).code).toBe(0)
    })
  })

  describe('6. token lifetimes and types', () => {
    const token = (fields: Json) => {
      hostile.rewrite = (request, body) => (request.url === '/auth/token' ? {...(body as Json), ...fields} : body)
    }
    const tokenRequests = () => hostile.requests.filter((request) => request.url === '/auth/token').length
    afterAll(async () => {
      hostile.rewrite = undefined
      expect((await login()).code).toBe(0)
    })

    it.each([[{expires_in: 0, expires_in_sec: 0}], [{expires_in: -100, expires_in_sec: -100}], [{expires_in: 'soon', expires_in_sec: 'soon'}], [{expires_in: undefined, expires_in_sec: undefined}]])(
      'a lifetime that is not a positive number (%j): the token serves one command, the next asks again',
      async (fields) => {
        token(fields)
        const logged = await login()
        expect(logged.code, logged.stderr).toBe(0)
        expect(logged.stdout).toContain('this command only')
        const before = tokenRequests()
        expect((await cli(['tx', 'get', id])).code).toBe(0)
        expect((await cli(['tx', 'get', id])).code).toBe(0)
        expect(tokenRequests()).toBe(before + 2)
        const status = await cli(['auth', 'status', '--json'])
        expect(status.code, status.stderr).toBe(0)
        expect(JSON.parse(status.stdout).lifetime).toMatch(/^no usable lifetime/)
      },
    )

    it.each([[1e12], [1e13]])('expires_in %d is kept for 24 h, login shows it and auth status says so', async (expiresIn) => {
      token({expires_in: expiresIn, expires_in_sec: expiresIn})
      const logged = await login()
      expect(logged.code, logged.stderr).toBe(0)
      expect(logged.stderr).not.toContain('Invalid time value')
      hostile.rewrite = undefined
      const status = await cli(['auth', 'status', '--json'])
      expect(status.code, status.stderr).toBe(0)
      const view = JSON.parse(status.stdout)
      expect(Date.parse(view.expiresAt) - Date.now()).toBeLessThanOrEqual(24 * 3600 * 1000)
      expect(Date.parse(view.expiresAt) - Date.now()).toBeGreaterThan(23 * 3600 * 1000)
      expect(view.lifetime).toContain('over 24 h')
      expect((await cli(['auth', 'status'])).stdout).toContain("the gateway's lifetime was not used as given")
    })

    it('a lifetime under 1 s counts as 1 s', async () => {
      token({expires_in: 0.2, expires_in_sec: 0.2})
      const logged = await login()
      expect(logged.code).toBe(0)
      expect(JSON.parse((await cli(['auth', 'status', '--json'])).stdout).lifetime).toMatch(/under 1 s: kept for 1 s/)
    })

    it.each(['mac', 'MAC', 'Basic'])('token_type "%s" is refused: exit 3 naming it, nothing stored, nothing sent with it', async (type) => {
      const fresh = tempConfigDir()
      try {
        token({token_type: type})
        const before = hostile.requests.length
        const result = await cli(['login', '--base-url', hostile.baseUrl, '--client-id', 'sandbox'], {env: {GATEWAY_CLIENT_SECRET: 'sandbox-secret', GATEWAY_CONFIG_DIR: fresh.dir}})
        expect(result.code).toBe(3)
        expect(result.stderr).toContain(`token of type "${type}"`)
        const status = await cli(['auth', 'status'], {env: {GATEWAY_CONFIG_DIR: fresh.dir}})
        expect(status.code).toBe(3)
        // A command that would use it asks for a token, is refused it, and sends nothing else.
        const get = await cli(['tx', 'get', id], {env: {GATEWAY_CONFIG_DIR: fresh.dir, GATEWAY_BASE_URL: hostile.baseUrl, GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
        expect(get.code).toBe(3)
        expect(hostile.requests.slice(before).every((request) => request.url === '/auth/token' && request.authorization === undefined)).toBe(true)
      } finally {
        fresh.remove()
      }
    })

    it('a bearer token in any case is taken', async () => {
      token({token_type: 'bEaReR'})
      expect((await login()).code).toBe(0)
    })
  })

  describe('7. CSV for a pt-BR spreadsheet', () => {
    const spreadsheet = (request: HostileRequest, body: unknown) => {
      if (!isList(request)) return body
      const page = body as Json
      page.data = page.data.map((row: Json, index: number) => ({
        ...row,
        status: index === 0 ? 'PAID;=1+1' : row.status,
        externalCode: ['Bia;@SUM(1+1)', ' =1+1', '\u00a0+1', '\n-1', '＝1'][index % 5],
        payer: row.payer && {...row.payer, name: 'Ana;+1+1'},
      }))
      return page
    }

    it('deposits list --output csv quotes semicolons and defuses formulas after whitespace or a semicolon', async () => {
      hostile.rewrite = spreadsheet
      const result = await cli(['deposits', 'list', '--output', 'csv'])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toContain(`"'PAID;=1+1"`)
      expect(result.stdout).toContain(`"'Bia;@SUM(1+1)"`)
      expect(result.stdout).toContain(`' =1+1`)
      expect(result.stdout).toContain(`'\u00a0+1`)
      expect(result.stdout).toContain(`"'\n-1"`)
      expect(result.stdout).toContain(`'＝1`)
      // No cell a pt-BR spreadsheet would split: every ; sits inside quotes.
      for (const line of result.stdout.split('\r\n')) expect(line.replace(/"(?:[^"]|"")*"/g, '')).not.toContain(';')
    })

    it('deposits summary --output csv quotes and defuses a status', async () => {
      hostile.rewrite = spreadsheet
      const result = await cli(['deposits', 'summary', '--output', 'csv'])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toContain(`"'PAID;=1+1"`)
      for (const line of result.stdout.split('\r\n')) expect(line.replace(/"(?:[^"]|"")*"/g, '')).not.toContain(';')
    })
  })
})
