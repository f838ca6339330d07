import type {CsvColumn} from '../output/csv.js'
import type {WorkbookSpec} from '../output/stream.js'
import type {Column} from '../output/table.js'
import {brl} from '../render/money.js'
import {ATTENTION, type ReconcileClass, type ReconcileRow, type ReconcileSummary} from './match.js'

/** How the result reads: a table per class that needs attention, one summary; cents in data, BRL in tables. */

/** The rows as a workbook: amounts in reais (from their cents), the due date a date, the flags true/false. */
export const RECONCILE_WORKBOOK: WorkbookSpec = {
  sheet: 'Reconciliation',
  kinds: {line: 'number', expectedAmount: 'money', paidAmount: 'money', difference: 'money', dueDate: 'date', overdue: 'boolean', expired: 'boolean'},
}

/** The data columns (CSV), the same fields as NDJSON and JSON, amounts in cents. */
export const RECONCILE_CSV: readonly CsvColumn<ReconcileRow>[] = [
  ['class', (row) => row.class],
  ['line', (row) => row.line],
  ['externalCode', (row) => row.externalCode],
  ['expectedAmount', (row) => row.expectedAmount],
  ['paidAmount', (row) => row.paidAmount],
  ['difference', (row) => row.difference],
  ['status', (row) => row.status],
  ['depositIds', (row) => row.depositIds.join(' ')],
  ['otherDepositIds', (row) => row.otherDepositIds.join(' ')],
  ['dueDate', (row) => row.dueDate],
  ['overdue', (row) => row.overdue],
  ['expired', (row) => row.expired],
  ['document', (row) => row.document],
]

export const CLASS_TITLES: Record<ReconcileClass, string> = {
  paid: 'Paid as expected',
  'amount-differs': 'Paid with another amount',
  'paid-more-than-once': 'Paid more than once',
  open: 'Open: not paid yet',
  'not-paid': 'Not paid: the deposit ended in another status',
  missing: 'Missing: no deposit with the code',
  unknown: 'Unknown: deposits whose code is in no row',
}

const signed = (cents: number | null) => (cents === null ? '' : `${cents > 0 ? '+' : cents < 0 ? '-' : ''}${brl(Math.abs(cents))}`)
const ids = (list: string[]) => list.join(' ')

/** The table of one class: only the columns that class has something in. */
export function classColumns(name: ReconcileClass): Column<ReconcileRow>[] {
  const line: Column<ReconcileRow> = {header: 'Line', value: (row) => String(row.line ?? ''), align: 'right'}
  const code: Column<ReconcileRow> = {header: 'External code', value: (row) => row.externalCode ?? '', maxWidth: 32}
  const expected: Column<ReconcileRow> = {header: 'Expected', value: (row) => brl(row.expectedAmount), align: 'right', whole: true}
  const paid: Column<ReconcileRow> = {header: 'Paid', value: (row) => (row.paidAmount === null ? '' : brl(row.paidAmount)), align: 'right', whole: true}
  const deposits: Column<ReconcileRow> = {header: 'Deposits', value: (row) => ids(row.depositIds), whole: true}
  const others: Column<ReconcileRow> = {header: 'Also listed', value: (row) => ids(row.otherDepositIds), priority: 3}
  const due: Column<ReconcileRow> = {header: 'Due', value: (row) => `${row.dueDate ?? ''}${row.overdue ? ' OVERDUE' : ''}`, priority: 2}
  const document: Column<ReconcileRow> = {header: 'Document', value: (row) => row.document ?? '', priority: 4}
  switch (name) {
    case 'amount-differs':
      return [line, code, expected, paid, {header: 'Difference', value: (row) => signed(row.difference), align: 'right', whole: true}, deposits, others, due, document]
    case 'paid-more-than-once':
      return [line, code, expected, paid, {header: 'Times', value: (row) => String(row.depositIds.length), align: 'right'}, deposits, others, due, document]
    case 'open':
      return [line, code, expected, {header: 'Status', value: (row) => `${row.status ?? ''}${row.expired ? ' (expired)' : ''}`}, due, deposits, others, document]
    case 'not-paid':
      return [line, code, expected, {header: 'Status', value: (row) => row.status ?? ''}, deposits, due, document]
    case 'missing':
      return [line, code, expected, due, document]
    case 'unknown':
      return [
        {header: 'Deposit', value: (row) => row.depositIds[0] ?? '', whole: true},
        code,
        {header: 'Status', value: (row) => row.status ?? ''},
        paid,
      ]
    default:
      return [line, code, expected, paid, deposits, others, due, document]
  }
}

export interface SummaryLine {
  class: ReconcileClass
  title: string
  count: number
  expected: number
  paid: number
}

/** The summary, one line per class with its count and amounts. */
export function summaryLines(summary: ReconcileSummary): SummaryLine[] {
  return (['paid', ...ATTENTION] as ReconcileClass[]).map((name) => ({class: name, title: CLASS_TITLES[name], ...summary.classes[name]}))
}

export const SUMMARY_COLUMNS: Column<SummaryLine>[] = [
  {header: 'Class', value: (line) => line.class},
  {header: 'Count', value: (line) => String(line.count), align: 'right'},
  {header: 'Expected', value: (line) => (line.class === 'unknown' ? '' : brl(line.expected)), align: 'right', whole: true},
  {header: 'Paid', value: (line) => brl(line.paid), align: 'right', whole: true},
  {header: 'Meaning', value: (line) => line.title, priority: 2},
]

/** One line for stderr: where the run stands. */
export function verdict(summary: ReconcileSummary): string {
  const {classes} = summary
  const attention = ATTENTION.filter((name) => name !== 'unknown').reduce((sum, name) => sum + classes[name].count, 0)
  if (summary.reconciled) return `Reconciled: all ${summary.rows} expected ${summary.rows === 1 ? 'charge was' : 'charges were'} paid as expected, and every deposit matched a row.`
  const parts: string[] = []
  if (attention > 0) parts.push(`${attention} of ${summary.rows} expected ${summary.rows === 1 ? 'charge needs' : 'charges need'} attention`)
  if (classes.unknown.count > 0) parts.push(`${classes.unknown.count} ${classes.unknown.count === 1 ? 'deposit matches' : 'deposits match'} no row`)
  return `discrepancies found: ${parts.join(', and ')}${summary.overdue > 0 ? ` (${summary.overdue} open past the due date)` : ''}`
}
