import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {control, startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

const ID = '00000000-0000-4000-8000-000000000000'
const ANSI = /\u001B\[[0-9;]*[A-Za-z]/g

describe('what a new operator meets', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  const cli = (args: string[], options: Parameters<typeof runCommand>[1] = {}) => runCommand(args, {env, ...options})

  const nothingSent = async (args: string[], line: RegExp) => {
    const before = (await stats(sandbox.baseUrl)).requests
    const result = await cli(args)
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(line)
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expect((await stats(sandbox.baseUrl)).requests).toBe(before)
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 30})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  describe('mistakes are usage errors in one style: one line, the flag and the rule, exit 2', () => {
    it.each([
      [['tx', 'create'], /^Error: --amount is required$/m],
      [['tx', 'create', '--ammount', '100'], /^Error: --ammount is not a flag of this command; did you mean --amount\?$/m],
      [['tx', 'get'], /^Error: ID is required: Transaction id \(a UUID\)\.$/m],
      [['tx', 'get', ID, '--timeout', 'abc'], /^Error: --timeout must be a positive duration such as 500ms, 30s or 10m, got "abc"$/m],
      [['tx', 'get', ID, '--watch', '--interval', 'soon'], /^Error: --interval must be a positive duration/m],
      [['tx', 'get', ID, '--until', 'SOON'], /^Error: --until must be one of PENDING, .*, got "SOON"$/m],
      [['tx', 'get', ID, 'extra'], /^Error: unexpected argument extra/m],
      [['deposits', 'list', '--per-page', 'abc'], /^Error: --per-page must be a positive integer, got "abc"$/m],
      [['deposits', 'list', '--concurrency', 'abc'], /^Error: --concurrency must be an integer, got "abc"$/m],
      [['deposits', 'list', '--all', '--page', '2'], /^Error: --all walks every page: leave out --page$/m],
      [['auth', 'status', '--all', '--check'], /^Error: --check cannot be used with --all$/m],
      [['login', '--client-secret', 'hunter2'], /^Error: there is no --client-secret: a secret in a flag would show in `ps`.*GATEWAY_CLIENT_SECRET/m],
    ])('%j', async (args, line) => {
      await nothingSent(args, line)
    })

    it('keeps the one style under --json: one document, exit 2', async () => {
      const result = await cli(['tx', 'get', '--json'])
      expect(result.code).toBe(2)
      expect(JSON.parse(result.stdout).error).toMatchObject({code: 'USAGE', exitCode: 2, message: 'ID is required: Transaction id (a UUID).'})
    })

    it('suggests the command a typo meant, exit 2 (a real process)', async () => {
      const result = await runCli(['tx', 'craete'], {env})
      expect(result.code).toBe(2)
      // Into a log, the line says when, as every other error line does.
      expect(result.stderr).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z Error: tx craete is not a gateway command; did you mean tx create\?/m)
    })

    it('takes -h for --help and -v for --version (a real process)', async () => {
      const help = await runCli(['tx', 'create', '-h'])
      expect(help.code).toBe(0)
      expect(help.stdout).toContain('USAGE')
      const version = await runCli(['-v'])
      expect(version.code).toBe(0)
      expect(version.stdout).toMatch(/^gateway-cli\/\d+\.\d+\.\d+/)
    })
  })

  describe('tolerant in what it reads, exact in what it sends', () => {
    it('reads --status and --origin in any case', async () => {
      const lower = await cli(['deposits', 'list', '--status', 'paid', '--origin', 'qrcode', '--json', '--per-page', '100'])
      const upper = await cli(['deposits', 'list', '--status', 'PAID', '--origin', 'QRCODE', '--json', '--per-page', '100'])
      expect(lower.code).toBe(0)
      const ids = (text: string) => (JSON.parse(text) as {data: Array<{id: string; status: string}>}).data.map((row) => row.id)
      expect(ids(lower.stdout)).toEqual(ids(upper.stdout))
      for (const row of (JSON.parse(lower.stdout) as {data: Array<{status: string}>}).data) expect(row.status).toBe('PAID')
    })

    it('reads a bare --from date as the start of that day in the operator\'s time zone, and --to as its end', async () => {
      const result = await cli(['deposits', 'list', '--from', '2026-11-20', '--to', '2026-11-20', '--per-page', '3', '--debug'], {
        env: {...env, TZ: 'America/Sao_Paulo'},
      })
      expect(result.code).toBe(0)
      const sent = new URL(/> GET (\S+)/.exec(result.stderr)![1])
      expect(sent.searchParams.get('startDate')).toBe('2026-11-20T03:00:00.000Z')
      expect(sent.searchParams.get('endDate')).toBe('2026-11-21T02:59:59.999Z')
    })

    it('sends a name with a typographic apostrophe as the plain one', async () => {
      const result = await cli(['tx', 'create', '--amount', '100', '--customer-name', 'Joana D’Ávila', '--customer-document', '529.982.247-25', '--json'])
      expect(result.code).toBe(0)
      const token = (await cli(['auth', 'token'])).stdout.trim()
      const record = (await (await fetch(`${sandbox.baseUrl}/core/transaction/${JSON.parse(result.stdout).id}`, {headers: {authorization: `Bearer ${token}`}})).json()) as {customer: {name: string}}
      expect(record.customer.name).toBe("Joana D'Ávila")
    })
  })

  describe('tables and time', () => {
    it('never cuts an id in a narrow terminal: other columns go first, and it says which', async () => {
      const result = await cli(['deposits', 'list', '--per-page', '5', '--no-interactive'], {tty: {stdout: true}, columns: 80})
      expect(result.code).toBe(0)
      const rows = result.stdout.replace(ANSI, '').split('\n').filter((line) => /[0-9a-f]{8}-/.test(line))
      expect(rows.length).toBe(5)
      for (const row of rows) {
        expect(row).toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/)
        expect(row.length).toBeLessThanOrEqual(80)
      }
      expect(result.stdout).toMatch(/To fit 80 columns: left out .*End-to-end/)
    })

    it('shows times in the operator\'s time zone, with the zone, and keeps ISO in JSON', async () => {
      const created = JSON.parse((await cli(['tx', 'create', '--amount', '100', '--json'])).stdout) as {id: string}
      const human = await cli(['tx', 'get', created.id], {env: {...env, TZ: 'America/Sao_Paulo'}})
      expect(human.stdout).toMatch(/Created: +\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC-3/)
      const utc = await cli(['tx', 'get', created.id], {env: {...env, TZ: 'UTC'}})
      expect(utc.stdout).toMatch(/Created: +\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\n/)
      const json = JSON.parse((await cli(['tx', 'get', created.id, '--json'])).stdout) as {createdAt: string}
      expect(json.createdAt).toMatch(/T\d{2}:\d{2}:\d{2}/)
    })

    it('says so on an empty result, and past the last page', async () => {
      const empty = await cli(['deposits', 'list', '--min-amount', '9999999', '--status', 'BLOCKED', '--origin', 'PIX_KEY', '--from', '1m'])
      expect(empty.code).toBe(0)
      expect(empty.stdout).toBe('')
      expect(empty.stderr).toContain('No deposits match.')
      const first = await cli(['deposits', 'list', '--per-page', '10', '--json'])
      const {snapshot, totalPages} = JSON.parse(first.stdout) as {snapshot: string; totalPages: number}
      const past = await cli(['deposits', 'list', '--per-page', '10', '--snapshot', snapshot, '--page', '99'])
      expect(past.code).toBe(0)
      expect(past.stderr).toContain(`Page 99 is past the last page, ${totalPages}`)
    })

    it('prints one page or one record as json, ndjson or csv with --output', async () => {
      const ndjson = await cli(['deposits', 'list', '--per-page', '4', '--output', 'ndjson'])
      expect(ndjson.stdout.trim().split('\n')).toHaveLength(4)
      const csv = await cli(['deposits', 'list', '--per-page', '4', '--output', 'csv'])
      expect(csv.stdout.split('\r\n')[0]).toMatch(/^id,createdAt,/)
      expect(csv.stdout.trim().split('\r\n')).toHaveLength(5)
      const id = (JSON.parse(ndjson.stdout.split('\n')[0]) as {id: string}).id
      const one = await cli(['tx', 'get', id, '--output', 'ndjson'])
      expect(JSON.parse(one.stdout)).toMatchObject({id})
      expect(one.stdout.trim().split('\n')).toHaveLength(1)
    })
  })

  describe('progress and waiting', () => {
    it('shows --all progress on a terminal stderr even when stdout goes to a file, never on the data', async () => {
      const result = await cli(['deposits', 'list', '--all', '--per-page', '10'], {tty: {stderr: true}})
      expect(result.code).toBe(0)
      const last = /Exported page (\d+) of \1 \((\d+) deposits\)/.exec(result.stderr)
      expect(last).not.toBeNull()
      expect(result.stdout).not.toContain('Exported')
      expect(result.stdout.trim().split('\n')).toHaveLength(Number(last![2]))
      const quiet = await cli(['deposits', 'list', '--all', '--per-page', '10'])
      expect(quiet.stderr).toBe('')
    })

    it('--watch shows a spinner with the elapsed time and status, warns once in an outage and says when it ends', async () => {
      const created = JSON.parse((await cli(['tx', 'create', '--amount', '100', '--json'])).stdout) as {id: string}
      // An outage that outlasts the client's retries of one lookup (4 attempts): two polls fail.
      await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'GET /core/transaction/:id', status: 503, count: 8})
      let polls = 0
      const result = await cli(['tx', 'get', created.id, '--watch', '--interval', '1s', '--timeout', '1h'], {
        tty: {stderr: true},
        sleep: async () => {
          polls += 1
          // After the outage, the customer pays.
          if (polls === 50) await cli(['sandbox', 'pay', created.id])
        },
      })
      expect(result.code).toBe(0)
      const text = result.stderr.replace(ANSI, '')
      expect(text.match(/Warning: .*503.*still watching/g)).toHaveLength(1)
      expect(text).toMatch(/the gateway answers again/)
      expect(text).toMatch(/Waiting for PAID · PIX_QRCODE_GENERATED · \d+/)
      expect(text).toContain('PIX_QRCODE_GENERATED → PAID')
    })
  })

  describe('logins', () => {
    it('auth status --all lists every profile; --check asks the gateway and renews a revoked token', async () => {
      const all = await cli(['auth', 'status', '--all', '--json'])
      expect(JSON.parse(all.stdout)).toEqual([expect.objectContaining({profile: 'default', clientId: 'sandbox', valid: true})])
      const before = (await stats(sandbox.baseUrl)).tokenRequests
      await control(sandbox.baseUrl, '/_sandbox/auth/revoke')
      const checked = await cli(['auth', 'status', '--check', '--json'])
      expect(checked.code).toBe(0)
      expect(JSON.parse(checked.stdout)).toMatchObject({valid: true})
      expect((await stats(sandbox.baseUrl)).tokenRequests).toBe(before + 1)
    })

    it('auth status --check exits 3 when the token was revoked and cannot be renewed', async () => {
      await control(sandbox.baseUrl, '/_sandbox/auth/revoke')
      const local = await cli(['auth', 'status'])
      expect(local.code).toBe(0)
      const checked = await cli(['auth', 'status', '--check'], {env: {...env, GATEWAY_CLIENT_SECRET: 'rotated-away'}})
      expect(checked.code).toBe(3)
      expect(checked.stdout).toContain('Valid:     no')
    })
  })

  it('--debug shortens long values, such as the QR image, to their first bytes and length', async () => {
    const result = await cli(['tx', 'create', '--amount', '100', '--debug'])
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/"qrCodeBase64":"data:image\/png;base64,[^"]{0,48}… \(\d+ characters\)"/)
  })
})
