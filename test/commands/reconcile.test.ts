import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {logIn, refusedBeforeSending, runCommand} from '../helpers/context.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'
import {expectedCsv, insertDeposit, type DepositSeed} from '../../src/sandbox/domain/seed.js'
import {loggedInSandbox} from '../helpers/world.js'
import {mulberry32} from '../../src/sandbox/domain/random.js'
import type {ReconcileRow} from '../../src/reconcile/match.js'

/**
 * `deposits reconcile` against a sandbox whose deposits are laid out by hand: each class, each
 * boundary on both sides (the window's ends, the amount, one PAID against two, the due date), a
 * file with bad rows, stdin, every output format and the exit codes.
 */

const HOUR = 3_600_000
/** The window: [FROM, TO], both ends included, as for deposits list. */
const FROM = Date.parse('2026-11-20T10:00:00.000Z')
const TO = Date.parse('2026-11-20T18:00:00.000Z')
const iso = (ms: number) => new Date(ms).toISOString()
/** The command's clock: after the window, so due dates can fall on either side of it. */
const NOW = Date.parse('2026-11-21T12:00:00.000Z')
/** A clean window of its own, where everything matches: the exit-0 case. */
const CLEAN_FROM = Date.parse('2026-11-10T10:00:00.000Z')
const CLEAN_TO = Date.parse('2026-11-10T11:00:00.000Z')

interface Row {
  code: string
  amount: number
  due?: string
  document?: string
}

const ROWS: Row[] = [
  {code: 'CODE-PAID-0001', amount: 1000},
  {code: 'CODE-UNDER-001', amount: 1000},
  {code: 'CODE-OVER-0001', amount: 1000},
  {code: 'CODE-TWICE-001', amount: 2000},
  {code: 'CODE-PAID-OPEN', amount: 3000},
  {code: 'CODE-OPEN-LATE', amount: 4000, due: iso(NOW - 1)},
  {code: 'CODE-OPEN-DUE0', amount: 4000, due: iso(NOW)},
  {code: 'CODE-PENDING-1', amount: 4100, due: '2026-11-22'},
  {code: 'CODE-FAILED-01', amount: 5000},
  {code: 'CODE-REFUND-01', amount: 5100},
  {code: 'CODE-MISSING-1', amount: 6000, document: '529.982.247-25'},
  // The window's ends: a deposit at each end is in; a millisecond outside, it is not.
  {code: 'CODE-AT-FROM-1', amount: 700},
  {code: 'CODE-BEFORE-01', amount: 700},
  {code: 'CODE-AT-TO-001', amount: 800},
  {code: 'CODE-AFTER-001', amount: 800},
]

const DEPOSITS: DepositSeed[] = [
  {externalCode: 'CODE-PAID-0001', amount: 1000, status: 'PAID', createdAtMs: FROM + HOUR},
  {externalCode: 'CODE-UNDER-001', amount: 999, status: 'PAID', createdAtMs: FROM + HOUR},
  {externalCode: 'CODE-OVER-0001', amount: 1001, status: 'PAID', createdAtMs: FROM + HOUR},
  {externalCode: 'CODE-TWICE-001', amount: 2000, status: 'PAID', createdAtMs: FROM + HOUR},
  {externalCode: 'CODE-TWICE-001', amount: 2000, status: 'PAID', createdAtMs: FROM + 2 * HOUR},
  {externalCode: 'CODE-PAID-OPEN', amount: 3000, status: 'PAID', createdAtMs: FROM + HOUR},
  {externalCode: 'CODE-PAID-OPEN', amount: 3000, status: 'PIX_QRCODE_GENERATED', createdAtMs: FROM + 2 * HOUR},
  {externalCode: 'CODE-OPEN-LATE', amount: 4000, status: 'PIX_QRCODE_GENERATED', createdAtMs: FROM + HOUR},
  {externalCode: 'CODE-OPEN-DUE0', amount: 4000, status: 'PIX_QRCODE_GENERATED', createdAtMs: FROM + HOUR},
  {externalCode: 'CODE-PENDING-1', amount: 4100, status: 'PENDING', createdAtMs: FROM + HOUR},
  {externalCode: 'CODE-FAILED-01', amount: 5000, status: 'FAILED', createdAtMs: FROM + HOUR},
  {externalCode: 'CODE-REFUND-01', amount: 5100, status: 'REFUNDED', createdAtMs: FROM + HOUR},
  {externalCode: 'CODE-AT-FROM-1', amount: 700, status: 'PAID', createdAtMs: FROM},
  {externalCode: 'CODE-BEFORE-01', amount: 700, status: 'PAID', createdAtMs: FROM - 1},
  {externalCode: 'CODE-AT-TO-001', amount: 800, status: 'PAID', createdAtMs: TO},
  {externalCode: 'CODE-AFTER-001', amount: 800, status: 'PAID', createdAtMs: TO + 1},
  // Unknown: a code in no row, and a deposit without a code, each inside the window; one outside it.
  {externalCode: 'CODE-STRANGER', amount: 1234, status: 'PAID', createdAtMs: FROM + 3 * HOUR},
  {amount: 4321, status: 'DEPOSIT_PIXKEY_GENERATED', createdAtMs: FROM + 3 * HOUR, origin: 'PIX_KEY'},
  {externalCode: 'CODE-STRANGER-OUT', amount: 99, status: 'PAID', createdAtMs: FROM - HOUR},
  // The clean window: two rows, each paid once as expected.
  {externalCode: 'CLEAN-CODE-01', amount: 1500, status: 'PAID', createdAtMs: CLEAN_FROM + 1000},
  {externalCode: 'CLEAN-CODE-02', amount: 2500, status: 'PAID', createdAtMs: CLEAN_FROM + 2000},
]

const csvOf = (rows: Row[]) => `external-code,amount,due-date,document\n${rows.map((row) => `${row.code},${row.amount},${row.due ?? ''},${row.document ?? ''}`).join('\n')}\n`

/** A row of --output json|ndjson|csv: the command's own row type. */
type DataRow = ReconcileRow

describe('deposits reconcile', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  let file: string
  let cleanFile: string
  const ids = new Map<string, string[]>()
  const window = ['--from', iso(FROM), '--to', iso(TO)]
  const cli = (args: string[], options: {input?: string; tty?: boolean} = {}) =>
    runCommand(['deposits', 'reconcile', ...args], {env, now: () => NOW, input: options.input, tty: options.tty ? {stdout: true, stderr: true} : undefined, columns: 400})

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    const random = mulberry32(7)
    for (const seed of [...DEPOSITS].sort((a, b) => a.createdAtMs - b.createdAtMs)) {
      const id = insertDeposit(sandbox.domain.records, seed, random)
      const key = seed.externalCode ?? '(none)'
      ids.set(key, [...(ids.get(key) ?? []), id])
    }
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
    file = join(config.dir, '..', 'expected.csv')
    writeFileSync(file, csvOf(ROWS))
    cleanFile = join(config.dir, '..', 'clean.csv')
    writeFileSync(cleanFile, csvOf([{code: 'CLEAN-CODE-01', amount: 1500}, {code: 'CLEAN-CODE-02', amount: 2500}]))
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  const ndjson = (text: string) => text.trim().split('\n').map((line) => JSON.parse(line) as DataRow)
  const byCode = (rows: DataRow[]) => new Map(rows.map((row) => [row.externalCode ?? '(none)', row]))

  it('puts each expected row in exactly one class, and lists the unknown deposits (exit 10)', async () => {
    const result = await cli(['--expected', file, ...window, '--output', 'ndjson'])
    expect(result.code).toBe(10)
    const rows = ndjson(result.stdout)
    // One line per expected row, in file order, then one per unknown deposit.
    expect(rows.slice(0, ROWS.length).map((row) => row.externalCode)).toEqual(ROWS.map((row) => row.code))
    expect(rows.slice(0, ROWS.length).map((row) => row.line)).toEqual(ROWS.map((_, index) => index + 2))
    const found = byCode(rows)
    const classOf = (code: string) => found.get(code)?.class
    expect(classOf('CODE-PAID-0001')).toBe('paid')
    expect(found.get('CODE-PAID-0001')).toMatchObject({expectedAmount: 1000, paidAmount: 1000, difference: 0, status: 'PAID', depositIds: ids.get('CODE-PAID-0001')})
    // The amount: one cent under or over is another amount, with the difference.
    expect(found.get('CODE-UNDER-001')).toMatchObject({class: 'amount-differs', paidAmount: 999, difference: -1})
    expect(found.get('CODE-OVER-0001')).toMatchObject({class: 'amount-differs', paidAmount: 1001, difference: 1})
    // One PAID is paid; two are paid more than once, every deposit named.
    expect(found.get('CODE-TWICE-001')).toMatchObject({class: 'paid-more-than-once', paidAmount: 4000})
    expect([...found.get('CODE-TWICE-001')!.depositIds].sort()).toEqual([...ids.get('CODE-TWICE-001')!].sort())
    // Paid once with another QR code open: paid, the open one listed under it.
    expect(found.get('CODE-PAID-OPEN')).toMatchObject({class: 'paid', depositIds: [ids.get('CODE-PAID-OPEN')![0]], otherDepositIds: [ids.get('CODE-PAID-OPEN')![1]]})
    // Open, with the status; past the due date by a millisecond is overdue, at it is not.
    expect(found.get('CODE-OPEN-LATE')).toMatchObject({class: 'open', status: 'PIX_QRCODE_GENERATED', overdue: true, expired: true})
    expect(found.get('CODE-OPEN-DUE0')).toMatchObject({class: 'open', overdue: false})
    expect(found.get('CODE-PENDING-1')).toMatchObject({class: 'open', status: 'PENDING', dueDate: '2026-11-22', overdue: false})
    expect(found.get('CODE-FAILED-01')).toMatchObject({class: 'not-paid', status: 'FAILED', depositIds: ids.get('CODE-FAILED-01')})
    expect(found.get('CODE-REFUND-01')).toMatchObject({class: 'not-paid', status: 'REFUNDED'})
    expect(found.get('CODE-MISSING-1')).toMatchObject({class: 'missing', depositIds: [], paidAmount: null, document: '529.982.247-25'})
    // The window's ends, both included; a millisecond outside, the deposit is not seen.
    expect(classOf('CODE-AT-FROM-1')).toBe('paid')
    expect(classOf('CODE-BEFORE-01')).toBe('missing')
    expect(classOf('CODE-AT-TO-001')).toBe('paid')
    expect(classOf('CODE-AFTER-001')).toBe('missing')
    // Unknown: a code in no row and a deposit without a code, inside the window only.
    const unknown = rows.slice(ROWS.length)
    expect(unknown.every((row) => row.class === 'unknown' && row.line === null)).toBe(true)
    expect(unknown.map((row) => row.externalCode).sort()).toEqual(['CODE-STRANGER', null].sort())
    expect(found.get('CODE-STRANGER')).toMatchObject({paidAmount: 1234, depositIds: ids.get('CODE-STRANGER')})
    expect(found.has('CODE-STRANGER-OUT')).toBe(false)
    // Each deposit is used once: no id on two lines.
    const used = rows.flatMap((row) => [...row.depositIds, ...row.otherDepositIds])
    expect(new Set(used).size).toBe(used.length)
    expect(result.stderr).toMatch(/Error: discrepancies found/)
  })

  it('exits 0 when every row is paid as expected and no deposit is unknown', async () => {
    const result = await cli(['--expected', cleanFile, '--from', iso(CLEAN_FROM), '--to', iso(CLEAN_TO), '--output', 'ndjson'])
    expect(result.code).toBe(0)
    expect(ndjson(result.stdout).map((row) => row.class)).toEqual(['paid', 'paid'])
    expect(result.stderr).toMatch(/Reconciled: all 2 expected charges were paid as expected/)
  })

  it('a clean file is not clean when the window holds a deposit no row names (exit 10)', async () => {
    const result = await cli(['--expected', cleanFile, '--from', iso(CLEAN_FROM), '--to', iso(TO), '--output', 'ndjson'])
    expect(result.code).toBe(10)
    const rows = ndjson(result.stdout)
    expect(rows.filter((row) => row.class === 'paid').length).toBe(2)
    expect(rows.some((row) => row.class === 'unknown')).toBe(true)
  })

  it('the status and origin filters choose the deposits as for deposits list', async () => {
    const result = await cli(['--expected', file, ...window, '--status', 'paid', '--origin', 'qrcode', '--output', 'ndjson'])
    expect(result.code).toBe(10)
    const found = byCode(ndjson(result.stdout))
    // Without its open or failed deposits in the window, those rows are missing.
    expect(found.get('CODE-OPEN-LATE')?.class).toBe('missing')
    expect(found.get('CODE-FAILED-01')?.class).toBe('missing')
    expect(found.get('CODE-PAID-0001')?.class).toBe('paid')
    // The open QR code of a paid code is out of the window too.
    expect(found.get('CODE-PAID-OPEN')).toMatchObject({class: 'paid', otherDepositIds: []})
    expect(found.has('(none)')).toBe(false)
  })

  it('reads the file from stdin with -, NDJSON too, names in any case', async () => {
    const input = ROWS.slice(0, 2)
      .map((row) => JSON.stringify({externalCode: row.code, Amount: row.amount}))
      .join('\n')
    const result = await cli(['--expected', '-', ...window, '--output', 'ndjson'], {input})
    expect(result.code).toBe(10)
    const rows = ndjson(result.stdout)
    expect(rows.slice(0, 2).map((row) => [row.externalCode, row.class])).toEqual([
      ['CODE-PAID-0001', 'paid'],
      ['CODE-UNDER-001', 'amount-differs'],
    ])
  })

  it('CSV: a header, one row per expected line and unknown deposit, class and cents', async () => {
    const result = await cli(['--expected', file, ...window, '--output', 'csv'])
    expect(result.code).toBe(10)
    const lines = result.stdout.trimEnd().split('\r\n')
    expect(lines[0]).toBe('class,line,externalCode,expectedAmount,paidAmount,difference,status,depositIds,otherDepositIds,dueDate,overdue,expired,document')
    expect(lines).toHaveLength(1 + ROWS.length + 2)
    expect(lines[2]).toBe(`amount-differs,3,CODE-UNDER-001,1000,999,-1,PAID,${ids.get('CODE-UNDER-001')![0]},,,false,false,`)
    const twice = lines.find((line) => line.includes('CODE-TWICE-001'))!
    expect(twice.startsWith('paid-more-than-once,5,CODE-TWICE-001,2000,4000,2000,PAID,')).toBe(true)
  })

  it('--output json: one array of the same rows; --json: one document with the summary, and the error', async () => {
    const array = await cli(['--expected', file, ...window, '--output', 'json'])
    expect(array.code).toBe(10)
    const rows = JSON.parse(array.stdout) as DataRow[]
    expect(rows).toHaveLength(ROWS.length + 2)
    expect(rows[0]).toMatchObject({class: 'paid', externalCode: 'CODE-PAID-0001'})

    const document = await cli(['--expected', file, ...window, '--json'])
    expect(document.code).toBe(10)
    const parsed = JSON.parse(document.stdout) as {summary: {rows: number; reconciled: boolean; overdue: number; classes: Record<string, {count: number; expected: number; paid: number}>}; rows: DataRow[]; error: {code: string; exitCode: number}}
    expect(parsed.error).toMatchObject({code: 'DISCREPANCIES', exitCode: 10})
    expect(parsed.rows).toHaveLength(ROWS.length + 2)
    expect(parsed.summary).toMatchObject({rows: ROWS.length, reconciled: false, overdue: 1})
    expect(parsed.summary.classes).toEqual({
      paid: {count: 4, expected: 1000 + 3000 + 700 + 800, paid: 1000 + 3000 + 700 + 800},
      'amount-differs': {count: 2, expected: 2000, paid: 2000},
      'paid-more-than-once': {count: 1, expected: 2000, paid: 4000},
      open: {count: 3, expected: 12_100, paid: 0},
      'not-paid': {count: 2, expected: 10_100, paid: 0},
      missing: {count: 3, expected: 7500, paid: 0},
      unknown: {count: 2, expected: 0, paid: 1234},
    })

    const clean = await cli(['--expected', cleanFile, '--from', iso(CLEAN_FROM), '--to', iso(CLEAN_TO), '--json'])
    expect(clean.code).toBe(0)
    expect(JSON.parse(clean.stdout)).toMatchObject({summary: {reconciled: true, rows: 2}})
  })

  it('for a person: a table per class that needs attention, BRL, overdue marked, and one summary', async () => {
    const result = await cli(['--expected', file, ...window])
    expect(result.code).toBe(10)
    const out = result.stdout
    for (const name of ['amount-differs', 'paid-more-than-once', 'open', 'not-paid', 'missing', 'unknown']) expect(out).toContain(`(${name}):`)
    expect(out).not.toContain('(paid):')
    expect(out).toContain('-R$ 0,01')
    expect(out).toContain('OVERDUE')
    expect(out).toMatch(/Summary: 15 expected charges, \d+ deposits in the window/)
    expect(out).toMatch(/│ paid\s+│\s+4 │\s+R\$ 55,00 │\s+R\$ 55,00 │/)
    expect(out).toMatch(/│ missing\s+│\s+3 │\s+R\$ 75,00 │/)
  })

  it('a file with bad rows: every one listed by line, exit 2, and not a request sent', async () => {
    const bad = [
      'external-code,amount,due-date,document,colour',
      'CODE-GOOD-0001,1000,,,red',
      'short,1000,,,',
      'CODE-DECIMAL-1,10.50,,,',
      'CODE-NOAMOUNT,,,,',
      'CODE-BADDATE-1,100,2026-02-30,,',
      'CODE-BADDOC-01,100,,111.111.111-11,',
      'CODE-GOOD-0001,1000,,,',
      'CODE-ZERO-0001,0,,,',
    ].join('\n')
    const before = (await stats(sandbox.baseUrl)).requests
    const result = await refusedBeforeSending(sandbox.baseUrl, () => cli(['--expected', '-', ...window], {input: bad}), /line 2: colour is not a field/)
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('Error:'))
    expect(lines.map((line) => /line (\d+)/.exec(line)?.[1])).toEqual(['2', '3', '4', '5', '6', '7', '8', '9'])
    expect(result.stderr).toMatch(/line 3: external-code must be 8 to 255 characters/)
    expect(result.stderr).toMatch(/line 4: amount takes integer cents, not a decimal: 10.50 is amount 1050/)
    expect(result.stderr).toMatch(/line 5: amount is missing/)
    expect(result.stderr).toMatch(/line 6: due-date is not a day of the calendar/)
    expect(result.stderr).toMatch(/line 7: document must be a valid CPF or CNPJ/)
    expect(result.stderr).toMatch(/line 8: external-code CODE-GOOD-0001 is on line 2 too/)
    expect(result.stderr).toMatch(/line 9: amount must be from 1 to/)
    expect(result.stderr).toMatch(/nothing was fetched/)
    expect((await stats(sandbox.baseUrl)).requests).toBe(before)
  })

  it('refuses a broken file, an empty one and a bad window before any request', async () => {
    await refusedBeforeSending(sandbox.baseUrl, () => cli(['--expected', '-', ...window], {input: 'external-code,amount\n"CODE-OPEN,1\n'}), /quote that is never closed/)
    await refusedBeforeSending(sandbox.baseUrl, () => cli(['--expected', '-'], {input: 'external-code,amount\n'}), /holds no rows/)
    await refusedBeforeSending(sandbox.baseUrl, () => cli(['--expected', join(config.dir, 'nope.csv')]), /cannot be read: no such file/)
    await refusedBeforeSending(sandbox.baseUrl, () => cli(['--expected', file, '--from', iso(TO), '--to', iso(FROM)]), /--from must not be after/)
    await refusedBeforeSending(sandbox.baseUrl, () => cli(['--expected', file, '--status', 'SETTLED']), /--status/)
  })

  it('could not reconcile: the usual exit code (7 when the gateway fails), and no verdict', async () => {
    const fault = await fetch(`${sandbox.baseUrl}/_sandbox/faults`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({route: 'GET /core/deposit', status: 503, count: 5})})
    expect(fault.status).toBe(204)
    try {
      const result = await cli(['--expected', file, ...window, '--retries', '0', '--output', 'ndjson'])
      expect(result.code).toBe(7)
      expect(result.stdout).toBe('')
      expect(result.stderr).not.toMatch(/discrepancies|Reconciled/)
    } finally {
      await fetch(`${sandbox.baseUrl}/_sandbox/faults`, {method: 'DELETE'})
    }
  })

  it('could not reconcile: exit 3 when not logged in', async () => {
    const other = tempConfigDir()
    try {
      const result = await runCommand(['deposits', 'reconcile', '--expected', file, '--base-url', sandbox.baseUrl], {env: {GATEWAY_CONFIG_DIR: other.dir}})
      expect([3]).toContain(result.code)
      expect(result.stdout).toBe('')
    } finally {
      other.remove()
    }
  })
})

describe('the sandbox seeds a day to reconcile', () => {
  const world = loggedInSandbox({seedReconcile: 200})

  it('its expected file reconciles to the fates it promises, one in twenty each', async () => {
    const file = join(world.config.dir, '..', 'seeded.csv')
    writeFileSync(file, expectedCsv(world.sandbox.domain.expectedSeeds))
    const result = await runCommand(['deposits', 'reconcile', '--expected', file, '--from', '1d', '--json'], {env: world.env})
    expect(result.code).toBe(10)
    const {summary} = JSON.parse(result.stdout) as {summary: {overdue: number; classes: Record<string, {count: number}>}}
    const counts = Object.fromEntries(Object.entries(summary.classes).map(([name, total]) => [name, total.count]))
    expect(counts).toEqual({paid: 140, 'amount-differs': 10, 'paid-more-than-once': 10, open: 20, 'not-paid': 10, missing: 10, unknown: 10})
    expect(summary.overdue).toBe(10)
    expect(world.sandbox.domain.expectedSeeds[0].externalCode).toMatch(/^REC-\d{8}-000001$/)
  })
})

describe('sandbox start --seed-reconcile --expected-file', () => {
  it('writes the expected file of the seeded day, and refuses a file it cannot write (exit 2)', async () => {
    const dir = tempConfigDir()
    try {
      const file = join(dir.dir, '..', 'day.csv')
      const started = await runCommand(['sandbox', 'start', '--port', '0', '--seed-reconcile', '25', '--expected-file', file], {
        interrupted: () => new Promise((resolve) => setTimeout(() => resolve('SIGINT'), 200)),
      })
      expect(started.code).toBe(0)
      expect(started.stdout).toContain(`Seeded 25 expected charges of the last 20 hours and their deposits; the expected file is ${file}`)
      const lines = readFileSync(file, 'utf8').trim().split('\n')
      expect(lines[0]).toBe('external-code,amount,due-date')
      expect(lines).toHaveLength(26)
      expect(lines[1]).toMatch(/^REC-\d{8}-000001,\d+,\d{4}-\d{2}-\d{2}$/)

      const refused = await runCommand(['sandbox', 'start', '--port', '0', '--seed-reconcile', '5', '--expected-file', '/no/such/dir/day.csv'])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toMatch(/--expected-file \/no\/such\/dir\/day.csv cannot be written/)
      const alone = await runCommand(['sandbox', 'start', '--port', '0', '--expected-file', file])
      expect(alone.code).toBe(2)
      const tooMany = await runCommand(['sandbox', 'start', '--port', '0', '--seed-reconcile', '1000001'])
      expect(tooMany.code).toBe(2)
      expect(tooMany.stderr).toMatch(/--seed-reconcile/)
    } finally {
      dir.remove()
    }
  })
})
