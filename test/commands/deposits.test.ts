import {spawn} from 'node:child_process'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, cleanEnv, tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {startTestSandbox, stats, tokenFor, type Sandbox} from '../helpers/sandbox.js'

/** A small RFC 4180 reader, to check the export as a spreadsheet would read it. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"'
        index += 1
      } else if (char === '"') quoted = false
      else field += char
    } else if (char === '"') quoted = true
    else if (char === ',') {
      row.push(field)
      field = ''
    } else if (char === '\r' && text[index + 1] === '\n') {
      row.push(field)
      rows.push(row)
      row = []
      field = ''
      index += 1
    } else field += char
  }
  if (field || row.length > 0) rows.push([...row, field])
  return rows
}

describe('deposits list, end to end', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  const cli = (args: string[]) => runCommand(args, {env})
  /** What the sandbox holds that matches, straight from its store: the set an export must equal. */
  const expected = (match: (entry: {status: string; origin: string; amount: number}) => boolean) =>
    [...sandbox.domain.records.newestFirst()]
      .filter((entry) => match({status: entry.data.status, origin: entry.origin, amount: entry.data.amount}))
      .map((entry) => entry.id)

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 1500})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  describe('--all', () => {
    it('exports every match as NDJSON, each record once, newest first', async () => {
      const want = expected((entry) => entry.status === 'PAID')
      expect(want.length).toBeGreaterThan(20)
      const result = await cli(['deposits', 'list', '--status', 'PAID', '--all', '--output', 'ndjson', '--per-page', '17'])
      expect(result.code).toBe(0)
      expect(result.stderr).toBe('')
      const rows = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line))
      expect(rows.map((row) => row.id)).toEqual(want)
      for (const row of rows) expect(row).toMatchObject({status: 'PAID'})
    })

    it('exports every match as CSV with a fixed header and proper escaping', async () => {
      const want = expected((entry) => entry.origin === 'PIX_KEY' && entry.amount >= 5000)
      const result = await cli(['deposits', 'list', '--origin', 'PIX_KEY', '--min-amount', '5000', '--all', '--output', 'csv', '--per-page', '100'])
      expect(result.code).toBe(0)
      const [header, ...rows] = parseCsv(result.stdout)
      expect(header.slice(0, 6)).toEqual(['id', 'createdAt', 'updatedAt', 'status', 'depositOrigin', 'amount'])
      for (const row of rows) expect(row).toHaveLength(header.length)
      expect(rows.map((row) => row[0])).toEqual(want)
      for (const row of rows) {
        expect(row[header.indexOf('depositOrigin')]).toBe('PIX_KEY')
        expect(Number(row[header.indexOf('amount')])).toBeGreaterThanOrEqual(5000)
      }
    })

    it('exports every record as one JSON array, with --output json or --json', async () => {
      const want = expected(() => true)
      for (const flag of [['--output', 'json'], ['--json']]) {
        const result = await cli(['deposits', 'list', '--all', ...flag, '--per-page', '100'])
        expect(result.code).toBe(0)
        const rows = JSON.parse(result.stdout) as Array<{id: string}>
        expect(rows.map((row) => row.id)).toEqual(want)
        expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length)
      }
    })

    it('stops quietly, exit 0, when the reader of stdout goes away (| head)', async () => {
      const child = spawn(process.execPath, [BIN, 'deposits', 'list', '--all', '--per-page', '10'], {env: cleanEnv(env)})
      let stderr = ''
      child.stderr.on('data', (chunk) => (stderr += chunk))
      child.stdout.once('data', () => child.stdout.destroy())
      const code = await new Promise((resolve) => child.on('close', resolve))
      expect(code).toBe(0)
      expect(stderr).toBe('')
    })

    it('stays on one snapshot while deposits arrive during the export', async () => {
      const token = await tokenFor(sandbox.baseUrl)
      const before = new Set(expected(() => true))
      let adding = true
      const added: string[] = []
      const adder = (async () => {
        while (adding) {
          const response = await fetch(`${sandbox.baseUrl}/_sandbox/deposits`, {
            method: 'POST',
            headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
            body: JSON.stringify({amount: 4242}),
          })
          added.push(((await response.json()) as {id: string}).id)
        }
      })()
      const result = await cli(['deposits', 'list', '--all', '--per-page', '10'])
      adding = false
      await adder
      expect(result.code).toBe(0)
      const ids = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line).id as string)
      expect(added.length).toBeGreaterThan(0)
      expect(new Set(ids).size).toBe(ids.length)
      // Every deposit that existed before is there; what arrived later is there only if it came before the snapshot.
      for (const id of before) expect(ids).toContain(id)
      const late = ids.filter((id) => !before.has(id))
      expect(late.every((id) => added.includes(id))).toBe(true)
      expect(late).toEqual(added.slice(0, late.length).reverse())
    })
  })

  describe('one page', () => {
    it('shows a table and a footer with the exact command for the next page, which works', async () => {
      const first = await cli(['deposits', 'list', '--status', 'PAID', '--status', 'REFUNDED', '--from', '90d', '--per-page', '5'])
      expect(first.code).toBe(0)
      const header = first.stdout.split('\n').find((line) => line.includes('ID'))!
      for (const column of ['ID', 'Created', 'Status', 'Amount']) expect(header).toContain(column)
      expect(first.stderr).toMatch(/^Page 1 of \d+ · snapshot \S+\nNext page: gateway deposits list .+ --page 2\n$/)
      const next = /Next page: gateway (.+)$/m.exec(first.stderr)![1].split(' ')
      const second = await cli(next)
      expect(second.code).toBe(0)
      expect(second.stderr).toMatch(/^Page 2 of/)
      const snapshot = /snapshot (\S+)/.exec(first.stderr)![1]
      expect(second.stderr).toContain(`snapshot ${snapshot}`)
    })

    it('prints the page body as it came under --json', async () => {
      const result = await cli(['deposits', 'list', '--origin', 'QRCODE', '--per-page', '3', '--json'])
      expect(result.code).toBe(0)
      const page = JSON.parse(result.stdout)
      expect(Object.keys(page).sort()).toEqual(['currentPage', 'data', 'perPage', 'snapshot', 'totalPages'])
      expect(page).toMatchObject({currentPage: 1, perPage: 3})
      expect(page.data).toHaveLength(3)
      for (const row of page.data) expect(row.depositOrigin).toBe('QRCODE')
    })

    it('says the snapshot belongs to other filters, exit 5', async () => {
      const first = JSON.parse((await cli(['deposits', 'list', '--status', 'PAID', '--per-page', '5', '--json'])).stdout)
      const other = await cli(['deposits', 'list', '--status', 'FAILED', '--per-page', '5', '--snapshot', first.snapshot, '--page', '2'])
      expect(other.code).toBe(5)
      expect(other.stderr).toContain(`the snapshot ${first.snapshot} belongs to other filters or another --per-page`)
    })

    it('takes the dates an operator in Brazil types, in the time zone (TZ), and sends ISO date-times', async () => {
      const day = (offset: number) => {
        const at = new Date(Date.now() + offset * 86_400_000 - 3 * 3_600_000)
        return `${String(at.getUTCDate()).padStart(2, '0')}/${String(at.getUTCMonth() + 1).padStart(2, '0')}/${at.getUTCFullYear()}`
      }
      const sp = {...env, TZ: 'America/Sao_Paulo'}
      for (const [from, to] of [[day(-30), 'today'], ['yesterday', 'now'], [`${day(-7)} 10:00`, day(0)]]) {
        const result = await runCommand(['deposits', 'list', '--from', from, '--to', to, '--output', 'json', '--debug'], {env: sp})
        expect(result.code, result.stderr).toBe(0)
        expect(result.stderr).toMatch(/startDate=\d{4}-\d{2}-\d{2}T\d{2}%3A\d{2}%3A\d{2}\.\d{3}Z/)
        expect(result.stderr).toMatch(/endDate=\d{4}-\d{2}-\d{2}T\d{2}%3A\d{2}%3A\d{2}\.\d{3}Z/)
      }
      // A day typed DD/MM/AAAA is the whole day in São Paulo: from 03:00 UTC to 02:59:59.999 UTC the next day.
      const whole = await runCommand(['deposits', 'list', '--from', '27/11/2026', '--to', '27/11/2026', '--output', 'json', '--debug'], {env: sp})
      expect(whole.stderr).toContain('startDate=2026-11-27T03%3A00%3A00.000Z')
      expect(whole.stderr).toContain('endDate=2026-11-28T02%3A59%3A59.999Z')
    })

    it('lists a deposit received by PIX key in the sandbox', async () => {
      const made = await cli(['sandbox', 'deposit', '--amount', '990000', '--status', 'PENDING_COMPLIANCE', '--json'])
      expect(made.code).toBe(0)
      const {id} = JSON.parse(made.stdout)
      const page = JSON.parse((await cli(['deposits', 'list', '--origin', 'PIX_KEY', '--status', 'PENDING_COMPLIANCE', '--from', '1h', '--json'])).stdout)
      expect(page.data.map((row: {id: string}) => row.id)).toContain(id)
    })

    it.each([
      [['--status', 'SETTLED'], /^Error: --status must be one of PENDING, .*, got "SETTLED"\n$/],
      [['--origin', 'CASH'], /^Error: --origin must be one of QRCODE, PIX_KEY, got "CASH"\n$/],
      [['--from', 'last week'], /^Error: --from must be a date: DD\/MM\/AAAA \(27\/11\/2026\), .*today, yesterday, now, or a time ago \(30m, 24h, 7d, 2w\); got "last week"\n$/],
      [['--to', '2026-11-31'], /^Error: --to is not a day of the calendar \(AAAA-MM-DD\); got "2026-11-31"\n$/],
      [['--from', '11/27/2026'], /^Error: --from is read day first \(DD\/MM\/AAAA\), and 27 is no month: did you mean 27\/11\/2026\?; got "11\/27\/2026"\n$/],
      [['--min-amount', '1.5'], /--min-amount takes integer cents, not a decimal: 1.5 is --min-amount 150/],
      [['--max-amount', '10000001'], /--max-amount must be from 1 to 10000000 cents/],
      [['--min-amount', '500', '--max-amount', '100'], /^Error: --min-amount must not exceed --max-amount \(500 > 100\)$/m],
      [['--per-page', '101'], /^Error: --per-page must be from 1 to 100$/m],
      [['--all', '--per-page', '0'], /^Error: --per-page must be a positive integer/m],
      [['--from', '1d', '--to', '2d'], /^Error: --from must not be after --to$/m],
      [['--per-page', '0'], /^Error: --per-page must be a positive integer, got "0"\n$/],
      [['--per-page', 'abc'], /^Error: --per-page must be a positive integer, got "abc"\n$/],
      [['--page', '2', '--all'], /^Error: --all walks every page: leave out --page\n$/],
      [['--output', 'table', '--all'], /--output table shows one page/],
    ])('refuses %j with exit 2 and sends nothing', async (args, message) => {
      const before = await stats(sandbox.baseUrl)
      const result = await cli(['deposits', 'list', ...args])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr.trim().split('\n')).toHaveLength(1)
      expect(result.stderr).toMatch(message)
      expect((await stats(sandbox.baseUrl)).requests).toBe(before.requests)
    })

    it('walks --all at 100 deposits a page unless told otherwise, and a single page at 20', async () => {
      const all = await cli(['deposits', 'list', '--all', '--debug', '--output', 'ndjson'])
      expect(all.code, all.stderr).toBe(0)
      expect(all.stderr).toMatch(/perPage=100/)
      const one = await cli(['deposits', 'list', '--debug', '--output', 'ndjson'])
      expect(one.stderr).toMatch(/perPage=20/)
    })
  })
})
