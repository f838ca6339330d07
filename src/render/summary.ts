import type {CsvColumn} from '../output/csv.js'
import type {WorkbookSpec} from '../output/stream.js'
import type {Column} from '../output/table.js'
import type {SummaryLine} from '../summary/aggregate.js'
import {brl} from './money.js'

/** The Day column: the day, or "Total" on the grand total. */
const dayText = (line: SummaryLine) => (line.kind === 'total' ? 'Total' : line.day)

/** The Status column: the status, "Day total" on a day's total, nothing on the grand total. */
const statusText = (line: SummaryLine) => (line.kind === 'status' ? line.status : line.kind === 'day' ? 'Day total' : '')

/**
 * The summary table: one line per day and status, each day's total after its statuses, the grand
 * total last. Money in BRL, right-aligned; on a narrow terminal fees go first, then refunds.
 */
export function summaryColumns(): Column<SummaryLine>[] {
  return [
    {header: 'Day', value: dayText, whole: true, ascii: true},
    // A status may be narrowed (cut with …) before any amount or day is.
    {header: 'Status', value: statusText, ascii: true},
    {header: 'Count', value: (line) => String(line.count), align: 'right', whole: true},
    {header: 'Amount', value: (line) => brl(line.amount), align: 'right', whole: true},
    {header: 'Paid', value: (line) => brl(line.amountPaid), align: 'right', whole: true},
    {header: 'Refunded', value: (line) => brl(line.refundAmount), align: 'right', priority: 2, whole: true},
    {header: 'Fees', value: (line) => brl(line.feeAmount), align: 'right', priority: 3, whole: true},
  ]
}

/**
 * The summary as CSV: `kind` says what a line is (status, day, total); day and status are empty
 * where a total spans them. Amounts in integer cents, as every CSV export.
 */
/** The summary as a workbook: days as dates, counts as numbers, amounts in reais (from their cents). */
export const SUMMARY_WORKBOOK: WorkbookSpec = {
  sheet: 'Summary',
  kinds: {day: 'date', count: 'number', amount: 'money', amountPaid: 'money', refundAmount: 'money', feeAmount: 'money'},
}

export const SUMMARY_CSV: readonly CsvColumn<SummaryLine>[] = [
  ['kind', (line) => line.kind],
  ['day', (line) => line.day],
  ['status', (line) => line.status],
  ['count', (line) => line.count],
  ['amount', (line) => line.amount],
  ['amountPaid', (line) => line.amountPaid],
  ['refundAmount', (line) => line.refundAmount],
  ['feeAmount', (line) => line.feeAmount],
]

/**
 * The lines the table shows: a day's total only when the day has more than one status, since
 * with one it would repeat that status's line. CSV and JSON keep every line.
 */
export function tableLines(lines: readonly SummaryLine[]): SummaryLine[] {
  const statuses = new Map<string, number>()
  for (const line of lines) if (line.kind === 'status') statuses.set(line.day, (statuses.get(line.day) ?? 0) + 1)
  return lines.filter((line) => line.kind !== 'day' || (statuses.get(line.day) ?? 0) > 1)
}
