import {UsageError} from '../cli/errors.js'
import type {FlagTable} from '../input/fields.js'
import {readDate} from '../input/dates.js'
import {requireAmount} from '../input/money.js'
import {LIMITS} from '../schemas/enums.js'
import {documentProblem} from '../schemas/rules.js'
import type {BatchInput, BatchProblem, BatchRow} from '../batch/read.js'

/**
 * The file of expected charges of `deposits reconcile`: CSV with a header or NDJSON, read by the
 * same reader and row checks as a `--batch` file. Each row names one charge the operator's system
 * expects to be paid: its external code and its amount in cents (required), its due date and the
 * customer's document (optional). The rows are held once, indexed by external code.
 */

export interface ExpectedRow {
  /** The line of the file the row starts on. */
  line: number
  externalCode: string
  /** Integer cents. */
  amount: number
  /** As written in the file (a date or an ISO date-time), or undefined. */
  dueDate?: string
  /** The instant after which an open charge is overdue: the end of the due day, or the date-time given. */
  dueMs?: number
  document?: string
}

const {min: CODE_MIN, max: CODE_MAX} = LIMITS.code
/**
 * A due date: a day (overdue once it has ended in the operator's time zone), or a date-time, in the
 * forms every date flag takes (DD/MM/AAAA and ISO included), a time of day without an offset read
 * in the operator's zone.
 */
export function parseDueDate(text: string, flag: string, zone?: string): number {
  return Date.parse(readDate(text, {now: Date.now(), zone}, {flag, end: true, relative: false}))
}

function externalCode(text: string, flag: string): string {
  const value = text.trim()
  if (value.length < CODE_MIN || value.length > CODE_MAX) {
    throw new UsageError(`${flag} must be ${CODE_MIN} to ${CODE_MAX} characters long, as the gateway takes it; got ${value.length}`)
  }
  return value
}

function customerDocument(text: string, flag: string): string {
  const value = text.trim()
  const problem = documentProblem(value)
  if (problem) throw new UsageError(`${flag} ${problem}; got "${text}"`)
  return value
}

/** The fields of a row, named as flags are (external-code, amount, due-date, document). */
export function expectedFields(zone?: string): FlagTable {
  // Rows share a few due dates, and reading one in a time zone is slow (Intl): each text is read once.
  const dues = new Map<string, number>()
  const due = (text: string, flag: string) => {
    let ms = dues.get(text)
    if (ms === undefined) {
      ms = parseDueDate(text, flag, zone)
      dues.set(text, ms)
    }
    return ms
  }
  return [
    {flag: 'external-code', path: 'externalCode', description: 'The charge\'s external code, 8 to 255 characters (required).', parse: externalCode},
    {flag: 'amount', path: 'amount', description: 'The amount expected, in integer cents (required; or amount-brl, in reais: 781,62).', parse: requireAmount},
    {flag: 'due-date', path: 'dueDate', description: 'When it is due: a date (DD/MM/AAAA or AAAA-MM-DD), or a date-time (optional).', parse: due},
    {flag: 'document', path: 'document', description: 'The customer\'s CPF or CNPJ (optional).', parse: customerDocument},
  ]
}

/** Names of a row's fields that mean the customer's document, read as `document`. */
const DOCUMENT_ALIASES = new Set(['customer-document', 'customer.document'])

const REQUIRED = ['external-code', 'amount'] as const

export interface ExpectedFile {
  /** Every row, in file order. */
  rows: ExpectedRow[]
  /** The row of each external code. */
  byCode: Map<string, ExpectedRow>
  problems: BatchProblem[]
}

/**
 * A row as it most often is: external-code and amount, perhaps due-date and document, every one a
 * text its parser takes, and a code not seen before. Read here with the very parsers of `table`,
 * without the bookkeeping the general reading does for rows that have problems; undefined for any
 * other row, which the general reading then reads (and says what is wrong with).
 */
function quickRow(fields: BatchRow['fields'], line: number, parsers: QuickParsers, seen: (code: string) => boolean): ExpectedRow | undefined {
  const code = fields['external-code']
  const amount = fields.amount
  const due = fields['due-date']
  const document = fields.document
  if (typeof code !== 'string' || typeof amount !== 'string') return undefined
  let known = 2
  if (due !== undefined) {
    if (typeof due !== 'string') return undefined
    known += 1
  }
  if (document !== undefined) {
    if (typeof document !== 'string') return undefined
    known += 1
  }
  let names = 0
  for (const name in fields) if (Object.hasOwn(fields, name)) names += 1
  if (names !== known) return undefined
  try {
    const row: ExpectedRow = {line, externalCode: parsers.code(code, '--external-code') as string, amount: parsers.amount(amount, '--amount') as number}
    if (seen(row.externalCode)) return undefined
    if (due !== undefined) {
      row.dueDate = due.trim()
      row.dueMs = parsers.due(due, '--due-date') as number
    }
    if (document !== undefined) row.document = parsers.document(document, '--document') as string
    return row
  } catch {
    return undefined
  }
}

type Parse = NonNullable<FlagTable[number]['parse']>
interface QuickParsers {
  code: Parse
  amount: Parse
  due: Parse
  document: Parse
}

/**
 * Reads and checks the whole file: every problem of every row, by line, and the rows by code.
 * An external code on two rows is a problem of the later one: a code names one charge.
 */
export async function readExpected(input: BatchInput, options: {zone?: string; maxRows: number; sheet?: string; flag?: string; note?: (text: string) => void}): Promise<ExpectedFile> {
  const {readBatchPieces} = await import('../batch/read.js')
  const {rowFlags, parseProblems} = await import('./../batch/rows.js')
  const table = expectedFields(options.zone)
  const parserOf = (flag: string) => table.find((field) => field.flag === flag)!.parse!
  const parsers: QuickParsers = {code: parserOf('external-code'), amount: parserOf('amount'), due: parserOf('due-date'), document: parserOf('document')}
  const rows: ExpectedRow[] = []
  const byCode = new Map<string, ExpectedRow>()
  const problems: BatchProblem[] = []
  const unknown = new Set<string>()
  /** The line of each code first seen on a row that has problems (the codes of good rows are in byCode). */
  const lineOf = new Map<string, number>()
  const firstLine = (code: string) => byCode.get(code)?.line ?? lineOf.get(code)
  const seen = (code: string) => firstLine(code) !== undefined
  let count = 0
  // No content hash: an expected file sends nothing, so it needs no idempotency keys.
  for await (const piece of readBatchPieces(input, {hash: false, sheet: options.sheet, flag: options.flag, note: options.note})) {
    for (const entry of piece) {
      if (entry.kind === 'problem') {
        problems.push({line: entry.line, field: entry.field, message: entry.message})
        continue
      }
      count += 1
      if (count > options.maxRows) {
        throw new UsageError(`--expected has more than ${options.maxRows} rows: nothing was fetched`, {hint: `Raise the limit with --max-rows, or split the file.`})
      }
      const {fields} = entry
      if (!('document' in fields)) {
        for (const alias of DOCUMENT_ALIASES) {
          if (alias in fields && !('document' in fields)) {
            fields.document = fields[alias]
            delete fields[alias]
          }
        }
      }
      const quick = quickRow(fields, entry.line, parsers, seen)
      if (quick) {
        rows.push(quick)
        byCode.set(quick.externalCode, quick)
        continue
      }
      const read = rowFlags(table, entry, 'deposits reconcile --expected', unknown)
      // What each field's parser made of its text: the code trimmed, the amount in cents, the due instant.
      const values: Record<string, unknown> = {}
      const parsed = parseProblems(table, read, entry.line, values)
      const rowProblems = [...read.problems, ...parsed]
      const said = new Set(rowProblems.map((problem) => problem.field))
      for (const field of REQUIRED) {
        if (read.flags[field] === undefined && !said.has(field) && !read.meant.has(field)) rowProblems.push({line: entry.line, field, message: `${field} is missing: every row needs an external code and an amount in cents`})
      }
      // A code names one charge: a second row with it is a problem, even when the first has others.
      const code = read.flags['external-code'] === undefined ? undefined : (values['external-code'] as string)
      if (code !== undefined) {
        const earlier = firstLine(code)
        if (earlier === undefined && rowProblems.length > 0) lineOf.set(code, entry.line)
        else if (earlier !== undefined) rowProblems.push({line: entry.line, field: 'external-code', message: `external-code ${code} is on line ${earlier} too: each expected charge has its own code`})
      }
      problems.push(...rowProblems)
      if (rowProblems.length > 0 || code === undefined) continue
      const row: ExpectedRow = {line: entry.line, externalCode: code, amount: values.amount as number}
      const due = read.flags['due-date']
      if (due !== undefined) {
        row.dueDate = String(due).trim()
        row.dueMs = values['due-date'] as number
      }
      if (read.flags.document !== undefined) row.document = String(read.flags.document).trim()
      rows.push(row)
      byCode.set(code, row)
    }
  }
  problems.sort((a, b) => a.line - b.line)
  return {rows, byCode, problems}
}
