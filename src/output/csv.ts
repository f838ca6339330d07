import type {Writable} from 'node:stream'

import {stringify, type Options} from 'csv-stringify/sync'

import {writeText} from './write.js'

/**
 * CSV for spreadsheets and scripts, written by csv-stringify: a fixed header, RFC 4180 (CRLF
 * between records; a value holding a comma, a semicolon, a quote or a line break in quotes, its
 * quotes doubled), and values defused for spreadsheets. The semicolon is quoted too because it is
 * the list separator of pt-BR spreadsheets, which split an unquoted `Ana;+1+1` into two cells.
 *
 * Defusing: a spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` (and, in some, a tab
 * or a carriage return) as a formula, so a payer's name such as `=HYPERLINK(...)` would run on
 * the operator's machine. The same holds after leading whitespace (space, tab, CR, LF, NBSP),
 * which spreadsheets trim, after a `;` (where a pt-BR spreadsheet starts a new cell), and for the
 * full-width `＝`. Every such text value gets a leading `'`, which spreadsheets read as
 * "this is text" and do not show. Numbers are written as numbers and never defused: a number the
 * program holds cannot carry a formula, and amounts (integer cents, never negative) must stay
 * numbers. A text that merely looks like a negative number ("-5") is defused all the same:
 * telling a harmless one from "-1+cmd|..." is exactly the parsing an attacker plays with.
 */

/**
 * Where a formula may start in Excel, LibreOffice or Google Sheets: `=`, `+`, `-`, `@` or `＝` at the
 * start of the value or of a `;`-separated part, after any leading whitespace; or a tab or a
 * carriage return first.
 */
const FORMULA_START = /^[\t\r]|(?:^|;)[ \t\r\n\u00a0]*[=+\-@\uff1d]/

/** A text as a spreadsheet must see it: with a leading `'` when it would start a formula. */
export function defuseCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text
}

/** A column: its header, and how to read its value out of a record. */
export type CsvColumn<T> = {header: string; value: (record: T) => unknown} | readonly [header: string, value: (record: T) => unknown]

export interface CsvOptions {
  /** Defuse formula-starting text (default true). */
  defuse?: boolean
  /** Start with a UTF-8 byte-order mark, which Excel on Windows needs to read accents (default false). */
  bom?: boolean
}

const headerOf = <T>(column: CsvColumn<T>) => ('header' in column ? column.header : column[0])
const valueOf = <T>(column: CsvColumn<T>) => ('value' in column ? column.value : column[1])

/**
 * How values become text: numbers and bigints as they are (not-finite numbers empty), booleans
 * `true`/`false`, dates in ISO 8601, objects and arrays as JSON, null and undefined empty.
 */
function stringifyOptions(defuse: boolean): Options {
  const text = defuse ? defuseCell : (value: string) => value
  return {
    record_delimiter: 'windows',
    // csv-stringify quotes a value holding the comma, a quote or the record delimiter (CRLF); a lone
    // CR or LF, and the semicolon of pt-BR spreadsheets, are quoted here.
    quoted_match: /[\r\n;]/,
    cast: {
      string: (value) => text(value),
      number: (value) => (Number.isFinite(value) ? String(value) : ''),
      bigint: (value) => String(value),
      boolean: (value) => (value ? 'true' : 'false'),
      date: (value) => (Number.isNaN(value.getTime()) ? '' : value.toISOString()),
      object: (value) => text(JSON.stringify(value)),
    },
  }
}

/** Lines of CSV (each ending in CRLF) for rows of values. */
export function csvRows(rows: readonly unknown[][], options: CsvOptions = {}): string {
  if (rows.length === 0) return ''
  return stringify(rows as unknown[][], stringifyOptions(options.defuse ?? true))
}

/** A whole CSV document in memory: the header, then a line per record. For small outputs. */
export function csvDocument<T>(columns: readonly CsvColumn<T>[], records: Iterable<T>, options: CsvOptions = {}): string {
  const rows = [columns.map(headerOf), ...[...records].map((record) => columns.map((column) => valueOf(column)(record)))]
  return (options.bom ? '\uFEFF' : '') + csvRows(rows, options)
}

/**
 * Writes CSV to a stream as records arrive, honouring back-pressure, so memory stays flat
 * however many pages an export has. The header is written once, by `begin` or with the first
 * records, and by `end` when there were none. The stream is never ended here: it may be stdout.
 */
export class CsvWriter<T> {
  private headerWritten = false
  private count = 0
  private readonly options: CsvOptions

  constructor(
    private readonly out: Writable,
    private readonly columns: readonly CsvColumn<T>[],
    options: CsvOptions = {},
  ) {
    this.options = options
  }

  /** Records written so far. */
  get written(): number {
    return this.count
  }

  async begin(): Promise<void> {
    if (this.headerWritten) return
    this.headerWritten = true
    await this.send((this.options.bom ? '\uFEFF' : '') + csvRows([this.columns.map(headerOf)], this.options))
  }

  /** Writes one record. */
  async write(record: T): Promise<void> {
    await this.writeAll([record])
  }

  /** Writes a page of records in one go. */
  async writeAll(records: readonly T[]): Promise<void> {
    await this.begin()
    if (records.length === 0) return
    const text = csvRows(
      records.map((record) => this.columns.map((column) => valueOf(column)(record))),
      this.options,
    )
    this.count += records.length
    await this.send(text)
  }

  /** Writes the header if nothing was written, so an empty export still has its columns. */
  async end(): Promise<void> {
    await this.begin()
  }

  private async send(text: string): Promise<void> {
    await writeText(this.out, text)
  }
}
