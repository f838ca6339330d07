import type {Writable} from 'node:stream'

import type {Deposit} from '../api/types.js'
import {brl} from './money.js'
import type {Column} from './table.js'

/** The page table: every column on a wide terminal; the lower ones go first on a narrow one. */
export function depositColumns(): Column<Deposit>[] {
  return [
    {header: 'ID', value: (row) => row.id},
    {header: 'Created', value: (row) => (row.createdAt ?? '').replace('T', ' ').slice(0, 16)},
    {header: 'Status', value: (row) => row.status},
    {header: 'Origin', value: (row) => row.depositOrigin ?? '', priority: 3},
    {header: 'Amount', value: (row) => brl(row.amount), align: 'right'},
    {header: 'Paid', value: (row) => (row.amountPaid === undefined ? '' : brl(row.amountPaid)), align: 'right', priority: 2},
    {header: 'Payer', value: (row) => row.payer?.name ?? '', priority: 4, maxWidth: 24},
    {header: 'End-to-end', value: (row) => row.endToEnd ?? '', priority: 5},
  ]
}

/** The CSV export's columns, fixed whatever the records hold. Amounts stay in cents. */
export const CSV_COLUMNS: Array<[string, (row: Deposit) => unknown]> = [
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

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
export function csvField(value: unknown): string {
  if (value === undefined || value === null) return ''
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function csvRow(values: unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`
}

export type ExportFormat = 'ndjson' | 'csv' | 'json'

/**
 * Writes records as they arrive, in NDJSON, CSV or one JSON array, honouring the stream's
 * back-pressure so memory stays flat however many pages there are.
 */
export class RecordWriter {
  private count = 0

  constructor(
    private readonly out: Writable,
    private readonly format: ExportFormat,
  ) {}

  get written(): number {
    return this.count
  }

  private async write(text: string): Promise<void> {
    if (this.out.write(text)) return
    await new Promise<void>((resolve, reject) => {
      const onDrain = () => {
        this.out.off('error', onError)
        resolve()
      }
      const onError = (error: Error) => {
        this.out.off('drain', onDrain)
        reject(error)
      }
      this.out.once('drain', onDrain)
      this.out.once('error', onError)
    })
  }

  async begin(): Promise<void> {
    if (this.format === 'csv') await this.write(csvRow(CSV_COLUMNS.map(([name]) => name)))
    if (this.format === 'json') await this.write('[')
  }

  async records(rows: Deposit[]): Promise<void> {
    if (rows.length === 0) return
    let chunk = ''
    for (const row of rows) {
      if (this.format === 'csv') chunk += csvRow(CSV_COLUMNS.map(([, value]) => value(row)))
      else if (this.format === 'ndjson') chunk += `${JSON.stringify(row)}\n`
      else chunk += `${this.count === 0 ? '\n' : ',\n'}${JSON.stringify(row)}`
      this.count += 1
    }
    await this.write(chunk)
  }

  async end(): Promise<void> {
    if (this.format === 'json') await this.write(this.count === 0 ? ']\n' : '\n]\n')
  }
}
