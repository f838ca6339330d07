import {execFileSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {unzipSync} from 'fflate'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

const READER = fileURLToPath(new URL('../helpers/read_workbook.py', import.meta.url))
/** Debian's Python, which python3-openpyxl is installed for (.ci/run), before any other on PATH. */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'

interface Cell {
  type: string
  value: unknown
  format: string
}

/** The workbook as openpyxl reads it. */
function readWorkbook(path: string): {sheets: string[]; rows: Cell[][]} {
  return JSON.parse(execFileSync(PYTHON, [READER, path], {encoding: 'utf8', maxBuffer: 64 * 1024 * 1024})) as {sheets: string[]; rows: Cell[][]}
}

const ZONE = 'America/Sao_Paulo'
const MONEY = ['amount', 'amountPaid', 'feeAmount', 'refundAmount']
const DATES = ['createdAt', 'updatedAt', 'paymentDate', 'refundDate']

/** An instant as the wall clock of ZONE, as a naive ISO date-time (what a spreadsheet shows). */
function wallClock(iso: string): number {
  const ms = Date.parse(iso)
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23'})
      .formatToParts(ms)
      .map((part) => [part.type, part.value]),
  )
  return Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second)) + (ms % 1000)
}

describe('--output xlsx: workbooks read back by openpyxl, cell by cell against the NDJSON export', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  let dir: string

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 400})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir, TZ: ZONE}
    await logIn(sandbox.baseUrl, env)
    dir = mkdtempSync(join(tmpdir(), 'gateway-xlsx-'))
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
    rmSync(dir, {recursive: true, force: true})
  })

  it('deposits list --all: every deposit, amounts as R$ numbers of exactly their cents, times in TZ, ids and documents as text', async () => {
    const ndjson = await runCommand(['deposits', 'list', '--all', '--output', 'ndjson', '--per-page', '50'], {env})
    expect(ndjson.code).toBe(0)
    const records = ndjson.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(records.length).toBe(400)
    const path = join(dir, 'outubro.xlsx')
    const xlsx = await runCommand(['deposits', 'list', '--all', '--output', 'xlsx', '--output-file', path, '--per-page', '50'], {env})
    expect(xlsx.stderr).toBe('')
    expect(xlsx.code).toBe(0)

    const book = readWorkbook(path)
    expect(book.sheets).toEqual(['Deposits'])
    const [header, ...rows] = book.rows
    const names = header.map((cell) => cell.value as string)
    expect(names).toEqual(['id', 'createdAt', 'updatedAt', 'status', 'depositOrigin', 'amount', 'amountPaid', 'feeAmount', 'paymentDate', 'endToEnd', 'payerName', 'payerDocument', 'payerIspb', 'externalCode', 'refundAmount', 'refundDate', 'endToEndRefund'])
    expect(rows.length).toBe(records.length)
    const path2 = (record: Record<string, unknown>, name: string): unknown => {
      const payer = record.payer as {name?: string; document?: string; bankAccount?: {ispb?: string}} | undefined
      if (name === 'payerName') return payer?.name
      if (name === 'payerDocument') return payer?.document
      if (name === 'payerIspb') return payer?.bankAccount?.ispb
      return record[name]
    }
    let leadingZeros = 0
    let amounts = 0
    for (const [index, record] of records.entries()) {
      for (const [column, name] of names.entries()) {
        const cell = rows[index][column] ?? {type: 'n', value: null, format: 'General'}
        const expected = path2(record, name)
        if (expected === undefined || expected === null || expected === '') {
          expect(cell.value, `${name} of ${String(record.id)}`).toBeNull()
        } else if (MONEY.includes(name)) {
          // A number in reais, the nearest double to the cents written as a decimal: exactly the cents.
          expect(cell.type).toBe('n')
          expect(cell.value, `${name} of ${String(record.id)}`).toBe((expected as number) / 100)
          expect(cell.format).toBe('"R$" #,##0.00')
          amounts++
        } else if (DATES.includes(name)) {
          expect(cell.type).toBe('d')
          expect(cell.format).toBe('yyyy-mm-dd hh:mm:ss')
          const shown = Date.parse(`${cell.value as string}Z`)
          expect(Math.abs(shown - wallClock(expected as string)), `${name} of ${String(record.id)}`).toBeLessThanOrEqual(1)
        } else {
          expect(cell.type, `${name} of ${String(record.id)}`).toBe('s')
          expect(cell.value).toBe(expected)
          expect(cell.format).toBe('@')
          if (/^0\d+$/.test(expected as string)) leadingZeros++
        }
      }
    }
    expect(amounts).toBeGreaterThan(400)
    // Documents and ISPBs with leading zeros stayed text, as they were.
    expect(leadingZeros).toBeGreaterThan(0)

    // The cell holds the cents' decimal digits, never a float's tail (781.62, not 781.6199999).
    const sheet = new TextDecoder().decode(unzipSync(readFileSync(path))['xl/worksheets/sheet1.xml'])
    const values = [...sheet.matchAll(/<c s="2"><v>([^<]*)<\/v>/g)].map((match) => match[1])
    expect(values.length).toBe(amounts)
    for (const value of values) expect(value).toMatch(/^-?\d+\.\d\d$/)
  })

  it('deposits list without --all: one page as a workbook, the same deposits as the page in NDJSON', async () => {
    const page = await runCommand(['deposits', 'list', '--status', 'PAID', '--per-page', '7', '--output', 'ndjson'], {env})
    const ids = page.stdout.trim().split('\n').map((line) => (JSON.parse(line) as {id: string}).id)
    const path = join(dir, 'page.xlsx')
    const result = await runCommand(['deposits', 'list', '--status', 'PAID', '--per-page', '7', '--output', 'xlsx', '--output-file', path], {env})
    expect(result.code, result.stderr).toBe(0)
    const book = readWorkbook(path)
    expect(book.rows.slice(1).map((row) => row[0].value)).toEqual(ids)
  })

  it('deposits summary and reconcile write workbooks too', async () => {
    const summaryPath = join(dir, 'summary.xlsx')
    const summary = await runCommand(['deposits', 'summary', '--output', 'xlsx', '--output-file', summaryPath], {env})
    expect(summary.code).toBe(0)
    const json = await runCommand(['deposits', 'summary', '--json'], {env})
    const document = JSON.parse(json.stdout) as {total: {count: number; amount: number}}
    const book = readWorkbook(summaryPath)
    expect(book.sheets).toEqual(['Summary'])
    const header = book.rows[0].map((cell) => cell.value)
    const last = book.rows.at(-1)!
    expect(last[header.indexOf('kind')].value).toBe('total')
    expect(last[header.indexOf('count')].value).toBe(document.total.count)
    expect(last[header.indexOf('amount')].value).toBe(document.total.amount / 100)
    expect(last[header.indexOf('amount')].format).toBe('"R$" #,##0.00')
    const day = book.rows[1][header.indexOf('day')]
    expect(day.type).toBe('d')
    expect(day.format).toBe('yyyy-mm-dd')

    const expectedPath = join(dir, 'expected.csv')
    const deposit = JSON.parse((await runCommand(['deposits', 'list', '--per-page', '1', '--status', 'PAID', '--output', 'ndjson'], {env})).stdout.split('\n')[0]) as {externalCode: string; amount: number}
    const {writeFileSync} = await import('node:fs')
    writeFileSync(expectedPath, `external-code,amount\r\n${deposit.externalCode},${deposit.amount}\r\n00070001,1999\r\n`)
    const result = await runCommand(['deposits', 'reconcile', '--expected', expectedPath, '--output', 'xlsx'], {env})
    // 00070001 is in no deposit: a discrepancy (exit 10), and a workbook all the same.
    expect(result.stderr).toContain("discrepancies found")
    expect(result.code).toBe(10)
    expect(result.stdout.startsWith('PK')).toBe(true)
  })

  it('deposits reconcile reads an --expected workbook from a file, by its content, and its --sheet', async () => {
    const path = join(dir, 'esperado.xlsx')
    const script = `
import sys, openpyxl
book = openpyxl.Workbook()
book.active.title = "Notas"
book.active.append(["nada"])
sheet = book.create_sheet("Cobranças")
sheet.append(["external-code", "amount-brl"])
sheet.append(["00070001", 781.62])
sheet.append(["00070002", "1.050,00"])
book.save(sys.argv[1])
`
    execFileSync(PYTHON, ['-c', script, path])
    const result = await runCommand(['deposits', 'reconcile', '--expected', path, '--sheet', 'Cobranças', '--output', 'ndjson'], {env})
    expect(result.stderr).toContain('2 expected')
    expect(result.code).toBe(10)
    const rows = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as {externalCode: string; expectedAmount: number; class: string})
    expect(rows.filter((row) => row.class === 'missing').map((row) => [row.externalCode, row.expectedAmount])).toEqual([
      ['00070001', 78162],
      ['00070002', 105000],
    ])
  })

  it('is refused to a terminal, before anything is fetched', async () => {
    for (const args of [
      ['deposits', 'list', '--all', '--output', 'xlsx'],
      ['deposits', 'summary', '--output', 'xlsx'],
    ]) {
      const result = await runCommand(args, {env, tty: {stdout: true, stderr: true}})
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('--output xlsx writes a workbook')
    }
  })
})
