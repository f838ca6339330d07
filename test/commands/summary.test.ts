import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {PNG} from 'pngjs'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {brl} from '../../src/render/money.js'
import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

const ZONE = 'America/Sao_Paulo'
const SEEDED = 1500

interface Sums {
  count: number
  amount: number
  amountPaid: number
  refundAmount: number
  feeAmount: number
}

interface ListedDeposit {
  createdAt: string
  status: string
  amount: number
  amountPaid?: number
  refundAmount?: number
  feeAmount?: number
}

/** Text without its ANSI colours. */
const plain = (text: string) => text.replace(/\u001B\[\d+m/g, '')

const zero = (): Sums => ({count: 0, amount: 0, amountPaid: 0, refundAmount: 0, feeAmount: 0})

function add(sums: Sums, deposit: ListedDeposit): void {
  sums.count += 1
  sums.amount += deposit.amount
  sums.amountPaid += deposit.amountPaid ?? 0
  sums.refundAmount += deposit.refundAmount ?? 0
  sums.feeAmount += deposit.feeAmount ?? 0
}

/** The calendar day of an instant in the zone, straight from Intl ("en-CA" writes YYYY-MM-DD). */
const dayIn = (zone: string) => {
  const format = new Intl.DateTimeFormat('en-CA', {timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit'})
  return (iso: string) => format.format(new Date(iso))
}

/** The totals by day and status, by day, and in all, summed from the full export's records. */
function sumsOf(deposits: ListedDeposit[], zone: string) {
  const day = dayIn(zone)
  const byDayStatus = new Map<string, Sums>()
  const byDay = new Map<string, Sums>()
  const total = zero()
  for (const deposit of deposits) {
    const key = `${day(deposit.createdAt)} ${deposit.status}`
    if (!byDayStatus.has(key)) byDayStatus.set(key, zero())
    if (!byDay.has(day(deposit.createdAt))) byDay.set(day(deposit.createdAt), zero())
    add(byDayStatus.get(key)!, deposit)
    add(byDay.get(day(deposit.createdAt))!, deposit)
    add(total, deposit)
  }
  return {byDayStatus, byDay, total}
}

describe('deposits summary, against the full export', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  let files: string
  /** One clock for every run, so relative dates resolve to the same instants in both commands. */
  const now = Date.now()

  const cli = (args: string[], options: {columns?: number; tty?: {stdout?: boolean; stderr?: boolean}; zone?: string} = {}) =>
    runCommand(args, {env: {...env, TZ: options.zone ?? ZONE}, now: () => now, columns: options.columns, tty: options.tty})

  /** Every deposit `deposits list --all --json` exports for the filters. */
  async function exported(filters: string[], zone = ZONE): Promise<ListedDeposit[]> {
    const result = await cli(['deposits', 'list', ...filters, '--all', '--json', '--per-page', '100'], {zone})
    expect(result.code).toBe(0)
    return JSON.parse(result.stdout) as ListedDeposit[]
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: SEEDED})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    files = mkdtempSync(join(tmpdir(), 'gateway-summary-'))
    await logIn(sandbox.baseUrl, env)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
    rmSync(files, {recursive: true, force: true})
  })

  /** A date (YYYY-MM-DD) some days before now, in the zone. */
  const daysAgo = (days: number) => dayIn(ZONE)(new Date(now - days * 86_400_000).toISOString())

  const combos: Array<[string, string[]]> = [
    ['no filter', []],
    ['two statuses, in any case', ['--status', 'PAID', '--status', 'refunded']],
    ['an origin and an amount range', ['--origin', 'PIX_KEY', '--min-amount', '5000', '--max-amount', '500000']],
    ['relative dates', ['--from', '30d', '--to', '7d']],
    ['whole days in the zone, and a status', ['--from', daysAgo(40), '--to', daysAgo(20), '--status', 'PAID']],
    ['one origin, one status, a minimum', ['--origin', 'QRCODE', '--status', 'INFRACTION', '--min-amount', '100']],
  ]

  it.each(combos)('its totals equal the sums of the full export (%s)', async (_, filters) => {
    const deposits = await exported(filters)
    const want = sumsOf(deposits, ZONE)
    const result = await cli(['deposits', 'summary', ...filters, '--json'])
    expect(result.code).toBe(0)
    const summary = JSON.parse(result.stdout) as {
      timeZone: string
      rows: Array<Sums & {day: string; status: string}>
      days: Array<Sums & {day: string}>
      total: Sums
    }
    expect(summary.timeZone).toBe(ZONE)
    expect(summary.total).toEqual(want.total)
    expect(new Map(summary.rows.map(({day, status, ...sums}) => [`${day} ${status}`, sums]))).toEqual(want.byDayStatus)
    expect(new Map(summary.days.map(({day, ...sums}) => [day, sums]))).toEqual(want.byDay)
    // Rows come by day, then status; days ascend.
    expect(summary.days.map((day) => day.day)).toEqual([...want.byDay.keys()].sort())
  })

  it('the filters matter: the combinations do not all sum to the same set', async () => {
    const all = JSON.parse((await cli(['deposits', 'summary', '--json'])).stdout).total.count
    const paid = JSON.parse((await cli(['deposits', 'summary', '--status', 'PAID', '--json'])).stdout).total.count
    expect(all).toBe(SEEDED)
    expect(paid).toBeGreaterThan(0)
    expect(paid).toBeLessThan(all)
  })

  it('cuts days in the time zone TZ gives', async () => {
    const deposits = await exported([], 'Asia/Tokyo')
    const result = await cli(['deposits', 'summary', '--json'], {zone: 'Asia/Tokyo'})
    const summary = JSON.parse(result.stdout)
    expect(summary.timeZone).toBe('Asia/Tokyo')
    expect(new Map(summary.days.map(({day, ...sums}: Sums & {day: string}) => [day, sums]))).toEqual(sumsOf(deposits, 'Asia/Tokyo').byDay)
  })

  it('walks one snapshot, 100 deposits a page, and gives the same totals at any concurrency', async () => {
    const before = await stats(sandbox.baseUrl)
    const one = await cli(['deposits', 'summary', '--json', '--concurrency', '1'])
    const after = await stats(sandbox.baseUrl)
    expect(after.byRoute['GET /core/deposit'] - (before.byRoute['GET /core/deposit'] ?? 0)).toBe(Math.ceil(SEEDED / 100))
    const many = await cli(['deposits', 'summary', '--json', '--concurrency', '8'])
    const [a, b] = [JSON.parse(one.stdout), JSON.parse(many.stdout)]
    expect(a.snapshot).toBeTruthy()
    expect(a.snapshot).not.toBe(b.snapshot)
    expect({...a, snapshot: undefined}).toEqual({...b, snapshot: undefined})
  })

  it('gives the same totals as CSV: a line per day and status, the day totals, the grand total, in cents', async () => {
    const filters = ['--status', 'PAID', '--status', 'REFUNDED', '--status', 'BLOCKED']
    const want = sumsOf(await exported(filters), ZONE)
    const result = await cli(['deposits', 'summary', ...filters, '--output', 'csv'])
    expect(result.code).toBe(0)
    expect(result.stdout.split('\r\n')[0]).toBe('kind,day,status,count,amount,amountPaid,refundAmount,feeAmount')
    const lines = parse<Record<string, string>>(result.stdout, {columns: true})
    const sums = (line: Record<string, string>): Sums => ({
      count: Number(line.count),
      amount: Number(line.amount),
      amountPaid: Number(line.amountPaid),
      refundAmount: Number(line.refundAmount),
      feeAmount: Number(line.feeAmount),
    })
    const statusLines = lines.filter((line) => line.kind === 'status')
    expect(new Map(statusLines.map((line) => [`${line.day} ${line.status}`, sums(line)]))).toEqual(want.byDayStatus)
    const dayLines = lines.filter((line) => line.kind === 'day')
    expect(dayLines.every((line) => line.status === '')).toBe(true)
    expect(new Map(dayLines.map((line) => [line.day, sums(line)]))).toEqual(want.byDay)
    expect(lines.at(-1)).toMatchObject({kind: 'total', day: '', status: ''})
    expect(sums(lines.at(-1)!)).toEqual(want.total)
    expect(lines.filter((line) => line.kind === 'total')).toHaveLength(1)
  })

  describe('the human view', () => {
    it('a table in BRL with a total row, then a chart of the daily paid amount that fits the width', async () => {
      const filters = ['--status', 'PAID', '--from', '10d']
      const want = sumsOf(await exported(filters), ZONE)
      const result = await cli(['deposits', 'summary', ...filters], {tty: {stdout: true}, columns: 100})
      expect(result.code).toBe(0)
      // In a terminal the table's borders and the bars are coloured.
      expect(result.stdout).toContain('\u001B[')
      const [table, chart] = plain(result.stdout).split('\n\nAmount paid per day')
      const rows = table.split('\n')
      expect(rows[1]).toMatch(/Day\s+│\s+Status\s+│\s+Count\s+│\s+Amount\s+│\s+Paid/)
      const totalRow = rows.find((row) => /│ Total\s/.test(row))!
      expect(totalRow).toContain(` ${want.total.count} │`)
      expect(totalRow).toContain(` ${brl(want.total.amountPaid)} │`)
      // One status a day: no day-total line repeats it.
      expect(table).not.toContain('Day total')
      for (const row of rows) expect(row.length).toBeLessThanOrEqual(100)
      const bars = chart.split('\n').slice(1).filter(Boolean)
      const days = [...want.byDay.keys()].sort()
      // One bar a day from the first to the last, gaps included, each line within the width.
      expect(bars[0].startsWith(days[0])).toBe(true)
      expect(bars.at(-1)!.startsWith(days.at(-1)!)).toBe(true)
      for (const bar of bars) expect([...bar].length).toBeLessThanOrEqual(100)
      expect(result.stderr).toContain(`${want.total.count} deposits · days in ${ZONE} · snapshot `)
    })

    it('shows a day total where a day has several statuses', async () => {
      const result = await cli(['deposits', 'summary', '--from', '10d'], {tty: {stdout: true}, columns: 160})
      expect(result.code).toBe(0)
      expect(result.stdout).toContain('Day total')
    })

    it('fits the chart in 80 columns when stdout is not a terminal, and leaves it out with --chart none', async () => {
      const piped = await cli(['deposits', 'summary', '--from', '20d'])
      const chart = piped.stdout.split('Amount paid per day')[1].split('\n').slice(1).filter(Boolean)
      expect(chart.length).toBeGreaterThan(1)
      for (const line of chart) expect([...line].length).toBeLessThanOrEqual(80)
      expect(chart.some((line) => [...line].length === 80)).toBe(true)
      const none = await cli(['deposits', 'summary', '--from', '20d', '--chart', 'none'])
      expect(none.stdout).not.toContain('Amount paid per day')
      expect(none.stdout).toContain('│ Total')
    })

    it('says so when nothing matches', async () => {
      const result = await cli(['deposits', 'summary', '--from', '2099-01-01'])
      expect(result.code).toBe(0)
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(/^No deposits match\./)
      const json = await cli(['deposits', 'summary', '--from', '2099-01-01', '--json'])
      expect(JSON.parse(json.stdout)).toMatchObject({rows: [], days: [], total: {count: 0, amount: 0}})
    })
  })

  describe('--chart png FILE', () => {
    it('writes the chart as a PNG, one row per day', async () => {
      const file = join(files, 'paid.png')
      const filters = ['--from', '14d', '--status', 'PAID']
      const result = await cli(['deposits', 'summary', ...filters, '--chart', 'png', file, '--output', 'json'])
      expect(result.code).toBe(0)
      expect(result.stderr).toContain(`written to ${file}`)
      const days = JSON.parse(result.stdout).days as Array<{day: string}>
      const image = PNG.sync.read(readFileSync(file))
      expect(image.width).toBeGreaterThanOrEqual(800)
      const first = Date.parse(`${days[0].day}T00:00:00Z`)
      const last = Date.parse(`${days.at(-1)!.day}T00:00:00Z`)
      const rows = (last - first) / 86_400_000 + 1
      // 2 px a dot: 4 px margins top and bottom, 11 dots a row.
      expect(image.height).toBe(16 + rows * 22)
    })

    it('refuses a path it cannot write before fetching anything (exit 2)', async () => {
      for (const [path, message] of [
        [join(files, 'missing', 'paid.png'), /cannot be written: the folder .*missing does not exist/],
        [files, /is a folder/],
      ] as const) {
        const before = await stats(sandbox.baseUrl)
        const result = await cli(['deposits', 'summary', '--chart', 'png', path])
        expect(result.code).toBe(2)
        expect(result.stdout).toBe('')
        expect(result.stderr).toMatch(message)
        expect((await stats(sandbox.baseUrl)).requests).toBe(before.requests)
      }
      expect(existsSync(join(files, 'missing'))).toBe(false)
    })

    it('refuses other words', async () => {
      for (const words of [['png'], ['svg', 'x.svg'], ['png', 'a.png', 'b.png']]) {
        const result = await cli(['deposits', 'summary', '--chart', ...words])
        expect(result.code, words.join(' ')).toBe(2)
        expect(result.stderr).toMatch(/^Error: --chart takes "png FILE"/)
      }
    })
  })

  describe('refused input, nothing sent', () => {
    it.each([
      [['--min-amount', '10.00'], /--min-amount/],
      [['--status', 'PAYED'], /--status/],
      [['--from', '11/27/2026'], /^Error: --from is read day first \(DD\/MM\/AAAA\)/],
      [['--to', 'amanhã'], /^Error: --to must be a date: DD\/MM\/AAAA/],
      [['--min-amount', '500', '--max-amount', '100'], /--min-amount must not exceed --max-amount/],
      [['--output', 'ndjson'], /--output/],
      [['--per-page', '10'], /--per-page/],
    ])('%j', async (args, message) => {
      const before = await stats(sandbox.baseUrl)
      const result = await cli(['deposits', 'summary', ...args])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(message)
      expect((await stats(sandbox.baseUrl)).requests).toBe(before.requests)
    })

    it('an unknown time zone', async () => {
      const result = await cli(['deposits', 'summary'], {zone: 'Mars/Olympus_Mons'})
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(/time zone "Mars\/Olympus_Mons" is not an IANA time zone/)
    })
  })
})
