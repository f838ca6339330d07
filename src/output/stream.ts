import type {Writable} from 'node:stream'

export type RecordFormat = 'ndjson' | 'csv' | 'json'

/** A CSV column: its header and how a record gives its cell. */
export type CsvColumn<T> = readonly [string, (row: T) => unknown]

/** A cell that a spreadsheet would run as a formula gets a leading quote. */
const FORMULA = /^[=+\-@\t\r]/

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled; formulas are defused. */
export function csvField(value: unknown): string {
  if (value === undefined || value === null) return ''
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value)
  if (typeof value === 'string' && FORMULA.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function csvRow(values: unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`
}

/** Writes text, waiting while the stream's buffer is full, so memory stays flat. */
export async function writeAll(out: Writable, text: string): Promise<void> {
  if (out.write(text)) return
  await new Promise<void>((resolve, reject) => {
    const onDrain = () => {
      out.off('error', onError)
      resolve()
    }
    const onError = (error: Error) => {
      out.off('drain', onDrain)
      reject(error)
    }
    out.once('drain', onDrain)
    out.once('error', onError)
  })
}

/**
 * Writes records as they arrive, in NDJSON, CSV (a fixed header) or one JSON array, honouring the
 * stream's back-pressure so memory stays flat however many there are.
 */
export class RecordWriter<T> {
  private count = 0
  private started = false

  constructor(
    private readonly out: Writable,
    private readonly format: RecordFormat,
    private readonly columns: readonly CsvColumn<T>[] = [],
  ) {}

  get written(): number {
    return this.count
  }

  async begin(): Promise<void> {
    this.started = true
    if (this.format === 'csv') await writeAll(this.out, csvRow(this.columns.map(([name]) => name)))
    if (this.format === 'json') await writeAll(this.out, '[')
  }

  async records(rows: readonly T[]): Promise<void> {
    if (!this.started) await this.begin()
    if (rows.length === 0) return
    let chunk = ''
    for (const row of rows) {
      if (this.format === 'csv') chunk += csvRow(this.columns.map(([, value]) => value(row)))
      else if (this.format === 'ndjson') chunk += `${JSON.stringify(row)}\n`
      else chunk += `${this.count === 0 ? '\n' : ',\n'}${JSON.stringify(row)}`
      this.count += 1
    }
    await writeAll(this.out, chunk)
  }

  async end(): Promise<void> {
    if (!this.started) await this.begin()
    if (this.format === 'json') await writeAll(this.out, this.count === 0 ? ']\n' : '\n]\n')
  }
}
