import type {Deposit} from '../api/types.js'
import type {CsvColumn} from '../output/csv.js'
import type {WorkbookSpec} from '../output/stream.js'
import type {Column} from '../output/table.js'
import {localTime} from '../output/time.js'
import {brl} from './money.js'

/**
 * The page table: every column on a wide terminal; the lower ones go first on a narrow one. The
 * id, the amounts and the day are never cut: the creation time shrinks to its date alone first.
 */
export function depositColumns(zone?: string): Column<Deposit>[] {
  return [
    {header: 'ID', value: (row) => row.id, whole: true, ascii: true},
    {
      header: 'Created',
      value: (row) => localTime(row.createdAt, zone, {seconds: false}),
      compact: (row) => localTime(row.createdAt, zone, {seconds: false}).split(' ')[0],
      ascii: true,
    },
    {header: 'Status', value: (row) => row.status, ascii: true},
    {header: 'Origin', value: (row) => row.depositOrigin ?? '', priority: 3, ascii: true},
    {header: 'Amount', value: (row) => brl(row.amount), align: 'right', whole: true},
    {header: 'Paid', value: (row) => (row.amountPaid === undefined ? '' : brl(row.amountPaid)), align: 'right', priority: 2, whole: true},
    {header: 'Payer', value: (row) => row.payer?.name ?? '', priority: 4, maxWidth: 24},
    {header: 'End-to-end', value: (row) => row.endToEnd ?? '', priority: 5, ascii: true},
  ]
}

/** The export's columns as a workbook: amounts in reais (from their cents), instants in TZ, the rest text. */
export const depositWorkbook = (zone?: string): WorkbookSpec => ({
  sheet: 'Deposits',
  zone,
  kinds: {createdAt: 'date', updatedAt: 'date', paymentDate: 'date', refundDate: 'date', amount: 'money', amountPaid: 'money', feeAmount: 'money', refundAmount: 'money'},
})

/** The CSV export's columns, fixed whatever the records hold. Amounts stay in cents. */
export const DEPOSIT_CSV: readonly CsvColumn<Deposit>[] = [
  ['id', (row) => row.id],
  ['createdAt', (row) => row.createdAt],
  ['updatedAt', (row) => row.updatedAt],
  ['status', (row) => row.status],
  ['depositOrigin', (row) => row.depositOrigin],
  ['amount', (row) => row.amount],
  ['amountPaid', (row) => row.amountPaid],
  ['feeAmount', (row) => row.feeAmount],
  ['paymentDate', (row) => row.paymentDate],
  ['endToEnd', (row) => row.endToEnd],
  ['payerName', (row) => row.payer?.name],
  ['payerDocument', (row) => row.payer?.document],
  ['payerIspb', (row) => row.payer?.bankAccount?.ispb],
  ['externalCode', (row) => row.externalCode],
  ['refundAmount', (row) => row.refundAmount],
  ['refundDate', (row) => row.refundDate],
  ['endToEndRefund', (row) => row.endToEndRefund],
]
