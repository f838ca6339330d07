import type {Writable} from 'node:stream'

import {CsvWriter, type CsvColumn} from './csv.js'
import {writeText} from './write.js'

export type RecordFormat = 'ndjson' | 'csv' | 'json'

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
    columns: readonly CsvColumn<T>[] = [],
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
    await this.begin()
    if (rows.length === 0) return
    if (this.csv) {
      await this.csv.writeAll(rows)
      this.count += rows.length
      return
    }
    let chunk = ''
    for (const row of rows) {
      if (this.format === 'ndjson') chunk += `${JSON.stringify(row)}\n`
      else chunk += `${this.count === 0 ? '\n' : ',\n'}${JSON.stringify(row)}`
      this.count += 1
    }
    await writeText(this.out, chunk)
  }

  async end(): Promise<void> {
    await this.begin()
    if (this.format === 'json') await writeText(this.out, this.count === 0 ? ']\n' : '\n]\n')
  }
}
