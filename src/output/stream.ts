import type {Writable} from 'node:stream'

import {csvRows, CsvWriter, type CsvColumn} from './csv.js'
import {writeText} from './write.js'

export type RecordFormat = 'ndjson' | 'csv' | 'json'

let lean = false

/**
 * Before a walk of many pages (an export, a summary), tells V8 to keep the process's memory flat,
 * measured on a 100,000-deposit export (scripts/bench-export.mjs): keep undici's WebAssembly HTTP
 * parser in its baseline compiler (optimising it costs a 20–25 MB spike after a few hundred pages),
 * do not double the young generation as garbage passes through it, and collect the old one before
 * it grows by more than 10%. Each alone saved little; the three took the peak from about 150 MB
 * to under 100 MB. Node calls flags set after start unsupported: should V8 ignore them, the walk is
 * the same, only its memory is higher. Set once, before the first page is asked for (the parser is
 * compiled with the first connection).
 */
export async function leanHeapForLongWalk(): Promise<void> {
  if (lean) return
  lean = true
  const {setFlagsFromString} = await import('node:v8')
  for (const flag of ['--liftoff-only', '--semi-space-growth-factor=1', '--heap-growing-percent=10']) setFlagsFromString(flag)
}

/** A page of records as text, ready to be written (see RecordWriter.prepare). */
export interface PreparedText {
  text: string
  count: number
}

/**
 * Writes records as they arrive, in NDJSON, CSV (a fixed header; written by CsvWriter, so with
 * RFC 4180 quoting, CRLF and formula defusing) or one JSON array, honouring the stream's
 * back-pressure so memory stays flat however many there are.
 */
export class RecordWriter<T> {
  private count = 0
  private started = false
  private readonly csv?: CsvWriter<T>

  constructor(
    private readonly out: Writable,
    private readonly format: RecordFormat,
    private readonly columns: readonly CsvColumn<T>[] = [],
  ) {
    if (format === 'csv') this.csv = new CsvWriter(out, columns)
  }

  get written(): number {
    return this.count
  }

  async begin(): Promise<void> {
    if (this.started) return
    this.started = true
    if (this.csv) await this.csv.begin()
    if (this.format === 'json') await writeText(this.out, '[')
  }

  async records(rows: readonly T[]): Promise<void> {
    await this.prepared(this.prepare(rows))
  }

  /**
   * A page of records as the text this writer would write for them, made at once, so that an export
   * holds each page waiting its turn as one string rather than as records (see `prepared`).
   */
  prepare(rows: readonly T[]): PreparedText {
    if (rows.length === 0) return {text: '', count: 0}
    if (this.format === 'csv') {
      const values = new Array<unknown[]>(rows.length)
      for (const [index, row] of rows.entries()) values[index] = this.columns.map((column) => ('value' in column ? column.value : column[1])(row))
      return {text: csvRows(values), count: rows.length}
    }
    let text = ''
    // Each record after a separator: a JSON array's first one has its comma taken off when written.
    for (const row of rows) text += this.format === 'ndjson' ? `${JSON.stringify(row)}\n` : `,\n${JSON.stringify(row)}`
    return {text, count: rows.length}
  }

  /** Writes a page made by `prepare`, in its turn. */
  async prepared(page: PreparedText): Promise<void> {
    await this.begin()
    if (page.count === 0) return
    const text = this.format === 'json' && this.count === 0 ? page.text.slice(1) : page.text
    this.count += page.count
    await writeText(this.out, text)
  }

  async end(): Promise<void> {
    await this.begin()
    if (this.format === 'json') await writeText(this.out, this.count === 0 ? ']\n' : '\n]\n')
  }
}
