import {Buffer} from 'node:buffer'
import type {Writable} from 'node:stream'
// Loaded by the launcher for every command (src/fast/launch.ts): nothing to load here.
import {getHeapSpaceStatistics, setFlagsFromString} from 'node:v8'

import {csvRows, CsvWriter, type CsvColumn} from './csv.js'
import {writeText} from './write.js'

export type RecordFormat = 'ndjson' | 'csv' | 'json'

/** What writes an export's records, whatever the format: RecordWriter, or a workbook's XlsxWriter. */
export interface RecordSink<T> {
  readonly written: number
  prepare(rows: readonly T[]): PreparedText
  prepared(page: PreparedText): Promise<void>
  records(rows: readonly T[]): Promise<void>
  end(): Promise<void>
}

/** How a list becomes a workbook: its sheet's name, and the kind of each column that is not text. */
export interface WorkbookSpec {
  sheet: string
  kinds: Readonly<Record<string, import('./xlsx.js').CellKind>>
  /** The operator's time zone (TZ), for date-times. */
  zone?: string
}

/**
 * The writer of a format: a workbook's (loaded only then) for xlsx, which is never written to a
 * terminal; RecordWriter for the others.
 */
export async function recordSink<T>(out: Writable, format: RecordFormat | 'xlsx', columns: readonly CsvColumn<T>[], workbook?: WorkbookSpec): Promise<RecordSink<T>> {
  if (format !== 'xlsx') return new RecordWriter(out, format, columns)
  if (!workbook) throw new Error('a workbook needs its sheet and column kinds')
  const {XlsxWriter, xlsxColumns} = await import('./xlsx.js')
  return new XlsxWriter(out, xlsxColumns(columns, workbook.kinds), {sheet: workbook.sheet, zone: workbook.zone})
}

let lean = false

/**
 * Before a walk of many pages (an export, a summary), tells V8 to keep the process's memory flat,
 * measured on a 100,000-deposit export (scripts/bench-export.mjs): collect the old generation
 * before it grows by more than 10%, and do not grow the young one as garbage passes through it, or
 * (`growYoung`, for a walk that calls youngGenerationGrown after each page) only up to
 * YOUNG_GENERATION. (undici's WebAssembly HTTP parser, whose optimising compile cost a 15 to 25 MB
 * spike after a few hundred pages, stays in V8's baseline compiler in every command:
 * src/fast/launch.ts.) Node calls flags set after start unsupported: should V8 ignore them, the
 * walk is the same, only its memory is higher. Set once, when the walk starts. A flag changed at
 * run time also changes what V8's code caches are checked against: a bundle loaded afterwards is
 * compiled without its cache.
 */
export function leanHeapForLongWalk(options: {growYoung?: boolean} = {}): void {
  if (lean) return
  lean = true
  setFlagsFromString('--heap-growing-percent=10')
  if (options.growYoung) youngGenerationGrown()
  else holdYoungGeneration()
}

let youngHeld = false

/**
 * The young generation an export lets V8 grow to: 8 MiB. An export started on the fast path begins
 * its walk with 4 MiB, which an export as CSV (csv-stringify makes some 19 KB of short-lived
 * objects a record) fills some 500 times in 100,000 records, each collection copying what is still
 * alive; at 8 MiB, in pairs against a plain fetch loop, the CSV export went from 1.18x to 1.06x its
 * time for 1 MiB more; at 16 MiB, NDJSON's peak went over 110 MiB. V8 grows it itself (doubling,
 * when much of it survives a collection) unless told not to: it grew past 200 MiB.
 */
const YOUNG_GENERATION = 8 * 1024 * 1024

function holdYoungGeneration(): void {
  youngHeld = true
  setFlagsFromString('--semi-space-growth-factor=1')
}

/** After each page of an export: once the young generation has grown to YOUNG_GENERATION, V8 grows it no further. */
export function youngGenerationGrown(): void {
  if (youngHeld || !lean) return
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')
  if (!young || young.space_size >= YOUNG_GENERATION) holdYoungGeneration()
}

let settled = false

/**
 * Once a long walk has warmed up (WARM_PAGES), tells V8 to optimise no function it has not
 * optimised yet. By then what runs for every record is optimised; what becomes hot afterwards is
 * what runs once a page (the HTTP client, streams, timers), and each of those compiles takes
 * megabytes of working memory on V8's threads, which the C library keeps: measured on a
 * 100,000-deposit export (scripts/bench-export.mjs), six runs each, the peak went from 100 to 116
 * MiB (median 115) to 101 to 111 (median 104), in no more time. Code already optimised stays; a
 * function that loses it runs in V8's baseline tiers. (Node 20's V8 had --interrupt-budget, which
 * only made V8 wait longer; Node 24's does not.) Like leanHeapForLongWalk, a flag set after start:
 * should V8 ignore it, the walk is the same, with more memory.
 */
export function settleCompilers(): void {
  if (settled) return
  settled = true
  for (const flag of ['--no-maglev', '--no-turbofan']) setFlagsFromString(flag)
}

/** After this many pages, a walk has optimised what runs for every record (see settleCompilers). */
export const WARM_PAGES = 150

/** A page of records as the bytes to write, ready in its turn (see RecordWriter.prepare). */
export interface PreparedText {
  bytes: Buffer
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
   * A page of records as the bytes this writer would write for them, made at once, so that an export
   * holds each page waiting its turn as one buffer rather than as records (see `prepared`). Bytes,
   * not text: a page's text would wait in V8's young generation, and be copied by every collection
   * of it until its turn came (several a page, in an export fetching four pages at once); its
   * bytes wait outside the heap, and are what writing the text would have made of it anyway.
   */
  prepare(rows: readonly T[]): PreparedText {
    if (rows.length === 0) return {bytes: Buffer.alloc(0), count: 0}
    if (this.format === 'csv') {
      const values = new Array<unknown[]>(rows.length)
      for (const [index, row] of rows.entries()) values[index] = this.columns.map((column) => ('value' in column ? column.value : column[1])(row))
      return {bytes: Buffer.from(csvRows(values)), count: rows.length}
    }
    let text = ''
    // Each record after a separator: a JSON array's first one has its comma taken off when written.
    for (const row of rows) text += this.format === 'ndjson' ? `${JSON.stringify(row)}\n` : `,\n${JSON.stringify(row)}`
    return {bytes: Buffer.from(text), count: rows.length}
  }

  /** Writes a page made by `prepare`, in its turn. */
  async prepared(page: PreparedText): Promise<void> {
    await this.begin()
    if (page.count === 0) return
    // The comma is one byte.
    const bytes = this.format === 'json' && this.count === 0 ? page.bytes.subarray(1) : page.bytes
    this.count += page.count
    await writeText(this.out, bytes)
  }

  async end(): Promise<void> {
    await this.begin()
    if (this.format === 'json') await writeText(this.out, this.count === 0 ? ']\n' : '\n]\n')
  }
}
