import {createHash} from 'node:crypto'

import {type Options, Parser} from 'csv-parse'

import {UsageError} from '../cli/errors.js'
import {LIMITS} from '../schemas/enums.js'
import {MAX_BATCH_ROWS} from './limits.js'

/**
 * Reads the file of `withdraw --batch` and `tx create --batch`: CSV with a header, or NDJSON
 * (one JSON object per line), told apart by the first character that is not blank (`{` is
 * NDJSON). Each row comes with the line it starts on in the file; each broken row or line is
 * reported with its line, and reading goes on where it safely can, so every problem is listed
 * at once. Nothing here knows the commands' fields: they check the rows themselves.
 */

export type BatchFormat = 'csv' | 'ndjson'

export type BatchValue = string | number | boolean | null | BatchValue[] | {[key: string]: BatchValue}

export interface BatchRow {
  /** The line of the file the row starts on (1-based; a CSV value may span lines). */
  line: number
  /** The row's ordinal among the file's rows (1-based), header and blank lines not counted. */
  row: number
  /**
   * The row's fields by name. Names are in the flags' kebab case unless told otherwise
   * (`pixKey`, `PIX_KEY` and `Pix Key` are all `pix-key`). CSV values are trimmed strings, an
   * empty cell left out; NDJSON values are as the JSON has them.
   */
  fields: Record<string, BatchValue>
}

export interface BatchProblem {
  line: number
  /** The field concerned, when the problem is about one. */
  field?: string
  message: string
}

export type BatchEntry = ({kind: 'row'} & BatchRow) | ({kind: 'problem'} & BatchProblem)

export interface BatchSummary {
  format: BatchFormat
  /** How many rows were read. */
  count: number
  /**
   * SHA-256 (hex) of the rows' content: each row's fields as canonical JSON (keys sorted), in
   * order. The same data is the same batch however the file is laid out (line endings, quoting,
   * blank lines, column order, a BOM); any change to a value is a new batch. Meaningless when
   * the file has problems: such a batch is never sent. Empty when not asked for (`hash: false`).
   */
  sha256: string
}

export interface BatchFile extends BatchSummary {
  rows: BatchRow[]
  problems: BatchProblem[]
}

export type BatchInput = string | Uint8Array | Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>

export interface ReadBatchOptions {
  /** Default: from the first character that is not blank. */
  format?: BatchFormat
  /** CSV delimiter; default: from the header line, the most frequent of `,` `;` and tab (`,` when none). */
  delimiter?: ',' | ';' | '\t'
  /** Field names in kebab case (default true). */
  normalizeNames?: boolean
  /** Compute the content hash (default true); without it the summary's sha256 is empty. */
  hash?: boolean
  /** Of a workbook (.xlsx): the sheet to read (default the first). */
  sheet?: string
  /** Where the file was given (--batch FILE), for what is said about it. */
  flag?: string
  /** Told what the operator should know of how the file was read: that it was not UTF-8. */
  note?: (text: string) => void
}

/** A batch with more rows than allowed; it was not read to its end. */
export class BatchTooLargeError extends UsageError {
  constructor(readonly limit: number) {
    super(`the batch file has more than ${limit} rows`)
  }
}

/** `pixKey`, `PIX_KEY`, `Pix Key`, ` pix-key ` → `pix-key`. */
export function kebabName(name: string): string {
  return name
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[\s_]+/g, '-')
    .replace(/-+/g, '-')
    .toLowerCase()
}

/** JSON with object keys sorted at every depth, for hashing. */
function canonical(value: BatchValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}

/** Line breaks in text: CRLF, LF and a lone CR each count once. */
function lineBreaks(text: string): number {
  let count = 0
  if (!text.includes('\r')) {
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1
    return count
  }
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index)
    if (char === 10) count += 1
    else if (char === 13 && text.charCodeAt(index + 1) !== 10) count += 1
  }
  return count
}

// ---------------------------------------------------------------------------------------------
// Text in
// ---------------------------------------------------------------------------------------------

class EncodingProblem extends Error {
  constructor(readonly line: number) {
    super('is not UTF-8 text: save the file as UTF-8 (in a spreadsheet, "CSV UTF-8")')
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<string | Uint8Array> {
  return typeof (value as AsyncIterable<unknown>)?.[Symbol.asyncIterator] === 'function'
}

/**
 * Whether bytes are Windows-1252 rather than UTF-8, judged at their first byte outside ASCII (all
 * before it reads the same in both): Windows-1252 when what starts there is no UTF-8. A file
 * whose first accented letter is UTF-8 is UTF-8, and a later byte that is not is its problem.
 */
function notUtf8From(chunk: Uint8Array): boolean | undefined {
  const at = chunk.findIndex((byte) => byte >= 0x80)
  if (at === -1) return undefined
  try {
    // The first character's bytes alone, as long as its first byte says (a sequence cut by the chunk's end is no proof).
    const lead = chunk[at]
    const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2
    new TextDecoder('utf-8', {fatal: true}).decode(chunk.subarray(at, at + length), {stream: true})
    return false
  } catch {
    return true
  }
}

/**
 * The input as text, without a leading BOM: UTF-8 (with or without a BOM), or Windows-1252 (what
 * Excel in Portuguese saves as "CSV"), told apart at the first byte outside ASCII; `note` is told
 * when it is Windows-1252.
 */
async function* textOf(input: BatchInput, note?: (text: string) => void): AsyncGenerator<string> {
  let decoder = new TextDecoder('utf-8', {fatal: true, ignoreBOM: false})
  let judged = false
  let lines = 0
  const chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array> =
    typeof input === 'string' || input instanceof Uint8Array ? [input] : input
  const decode = (chunk: Uint8Array, stream: boolean) => {
    if (!judged) {
      const legacy = notUtf8From(chunk)
      if (legacy !== undefined) judged = true
      if (legacy) {
        decoder = new TextDecoder('windows-1252')
        note?.('The file is not UTF-8: read as Windows-1252, as Excel saves "CSV" in Portuguese. Save it as "CSV UTF-8" to be sure of every letter.')
      }
    }
    try {
      return decoder.decode(chunk, {stream})
    } catch {
      const loose = new TextDecoder('utf-8').decode(chunk)
      const at = loose.indexOf('\uFFFD')
      throw new EncodingProblem(lines + lineBreaks(loose.slice(0, Math.max(0, at))) + 1)
    }
  }
  let first = true
  const emit = (text: string) => {
    // TextDecoder drops a BOM from bytes; a string input may still start with one.
    if (first && text.length > 0) {
      first = false
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    lines += lineBreaks(text)
    return text
  }
  if (isAsyncIterable(chunks)) {
    for await (const chunk of chunks) {
      const text = emit(typeof chunk === 'string' ? chunk : decode(chunk, true))
      if (text) yield text
    }
  } else {
    for (const chunk of chunks) {
      const text = emit(typeof chunk === 'string' ? chunk : decode(chunk, true))
      if (text) yield text
    }
  }
  const rest = emit(decode(new Uint8Array(), false))
  if (rest) yield rest
}

/** Reads ahead until `enough(head)` or the end; then yields the head and the rest. */
async function peek(source: AsyncGenerator<string>, enough: (head: string) => boolean): Promise<{head: string; rest: AsyncGenerator<string>}> {
  let head = ''
  let done = false
  while (!enough(head)) {
    const next = await source.next()
    if (next.done) {
      done = true
      break
    }
    head += next.value
  }
  async function* rest(): AsyncGenerator<string> {
    if (head) yield head
    if (!done) yield* source
  }
  return {head, rest: rest()}
}

// ---------------------------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------------------------

/** The delimiter the header line uses most, outside quotes: comma, semicolon or tab. */
export function detectDelimiter(headerLine: string): ',' | ';' | '\t' {
  const counts = {',': 0, ';': 0, '\t': 0}
  let quoted = false
  for (const char of headerLine) {
    if (char === '"') quoted = !quoted
    else if (!quoted && char in counts) counts[char as keyof typeof counts] += 1
  }
  const best = (Object.entries(counts) as Array<[',' | ';' | '\t', number]>).sort((a, b) => b[1] - a[1])[0]
  return best[1] > 0 ? best[0] : ','
}

const CSV_MESSAGES: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'has a quote that is never closed',
  CSV_INVALID_CLOSING_QUOTE: 'has characters after a closing quote; a quote inside a quoted value is written twice ("")',
  INVALID_OPENING_QUOTE: 'has a quote inside a value that does not start with one; quote the whole value and write the quote twice ("")',
  CSV_MAX_RECORD_SIZE: 'is too long for a row',
  CSV_RECORD_INCONSISTENT_COLUMNS: 'has another number of fields than the header',
}

/**
 * Tracks where each record starts. csv-parse counts, with each record, the bytes read up to where
 * it ends (`info.bytes`); the bytes between two records are the record with the blank lines
 * before it, so its first line is the first one that is not blank. Line breaks are single bytes
 * in UTF-8, so the bytes are scanned as they are, never copied.
 */
class LineTracker {
  private readonly chunks: Buffer[] = []
  /** Absolute offset of chunks[0][0]. */
  private base = 0
  /** Absolute offset of the first byte not taken. */
  private cursor = 0
  private line = 1

  push(bytes: Buffer): void {
    if (bytes.length > 0) this.chunks.push(bytes)
  }

  /** The line where the record ending at byte offset `end` starts; moves past it. */
  take(end: number): number {
    const start = this.line + this.scan(end, true)
    this.cursor = end
    this.forget()
    return start
  }

  /** The line where the bytes not yet taken start, blank lines skipped. */
  next(): number {
    return this.line + this.scan(Infinity, false)
  }

  /**
   * The line breaks among the blank bytes (space, tab, CR, LF) from the cursor up to the first
   * other byte or `end`; when `count` is set, every line break up to `end` is also added to
   * this.line. A CR counts unless a LF follows it (CRLF is one break).
   */
  private scan(end: number, count: boolean): number {
    let blankBreaks = 0
    let leading = true
    let breaks = 0
    let offset = this.base
    const {chunks} = this
    for (let index = 0; index < chunks.length; index += 1) {
      const chunk = chunks[index]
      const from = Math.max(0, this.cursor - offset)
      const to = Math.min(chunk.length, end - offset)
      for (let at = from; at < to; at += 1) {
        const byte = chunk[at]
        let isBreak = byte === 10
        if (byte === 13) isBreak = (at + 1 < chunk.length ? chunk[at + 1] : (chunks[index + 1]?.[0] ?? -1)) !== 10
        if (isBreak) breaks += 1
        if (leading) {
          if (byte !== 32 && byte !== 9 && byte !== 10 && byte !== 13) {
            leading = false
            if (!count) return blankBreaks
          } else if (isBreak) blankBreaks += 1
        }
      }
      offset += chunk.length
      if (offset >= end) break
    }
    if (count) this.line += breaks
    return blankBreaks
  }

  /** Drops the chunks wholly before the cursor. */
  private forget(): void {
    while (this.chunks.length > 0 && this.base + this.chunks[0].length <= this.cursor) {
      this.base += this.chunks[0].length
      this.chunks.shift()
    }
  }
}

/**
 * csv-parse's parser, handing each record on as it is parsed, with the bytes read up to its end
 * (`info.bytes`). Its `on_record` option would do the same, but builds a context object for every
 * record (a copy of `info` and more), which cost as much as the parsing of short rows.
 */
class RecordParser extends Parser {
  constructor(
    options: Options,
    private readonly onRecord: (record: string[], bytes: number) => void,
  ) {
    super(options)
  }

  override push(record: unknown, encoding?: BufferEncoding): boolean {
    if (record === null) return super.push(null, encoding)
    this.onRecord(record as string[], this.info.bytes)
    return true
  }
}

interface Reader {
  rows: number
  /** Undefined when the content hash was not asked for. */
  hash?: ReturnType<typeof createHash>
  normalize: (name: string) => string
}

type CsvEvent = {record: string[]; bytes: number} | {error: {code?: string; message: string}}

/** The entries of a CSV file, a list at a time: those each chunk of text completes. */
async function* csvPieces(text: AsyncGenerator<string>, delimiter: string, reader: Reader): AsyncGenerator<BatchEntry[]> {
  // csv-parse's callbacks report records and errors synchronously, in file order, while a chunk
  // is written; a stream's own error would discard the records still buffered before it.
  const events: CsvEvent[] = []
  const parser = new RecordParser(
    {
      delimiter,
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
      skip_records_with_error: true,
      on_skip: (error) => {
        if (error) events.push({error})
      },
    },
    (record, bytes) => events.push({record, bytes}),
  )
  parser.on('error', (error: Error & {code?: string}) => events.push({error}))
  parser.resume()
  const ended = new Promise<void>((resolve) => {
    parser.once('end', resolve).once('close', resolve)
  })
  const lines = new LineTracker()
  let header: string[] | undefined
  /** The header's columns in the order of their sorted names, and each name as JSON, for the hash. */
  let sorted: number[] = []
  let quoted: string[] = []
  let stopped = false

  /** The entries of the events so far. */
  function drain(): BatchEntry[] {
    const out: BatchEntry[] = []
    let index = 0
    for (; index < events.length && !stopped; index += 1) {
      const event = events[index]
      if ('error' in event) {
        // A broken quote leaves the rest of the file unreadable: reported at the row it is in.
        stopped = true
        out.push({kind: 'problem', line: lines.next(), message: (event.error.code && CSV_MESSAGES[event.error.code]) || event.error.message})
        break
      }
      const {record, bytes} = event
      const line = lines.take(bytes)
      if (record.every((value) => value === '')) continue // ",,," rows a spreadsheet leaves
      if (!header) {
        const names = record.map(reader.normalize)
        const problems: BatchProblem[] = []
        const seen = new Map<string, number>()
        names.forEach((name, index) => {
          if (name === '') problems.push({line, message: `the header's column ${index + 1} has no name`})
          else if (seen.has(name)) problems.push({line, field: name, message: `the header names ${name} twice (columns ${seen.get(name)! + 1} and ${index + 1})`})
          else seen.set(name, index)
        })
        if (problems.length > 0) {
          stopped = true
          for (const problem of problems) out.push({kind: 'problem', ...problem})
          break
        }
        header = names
        sorted = names.map((_, index) => index).sort((a, b) => (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0))
        quoted = names.map((name) => `${JSON.stringify(name)}:`)
        continue
      }
      if (record.length !== header.length) {
        out.push({kind: 'problem', line, message: `has ${record.length} fields; the header has ${header.length}`})
        continue
      }
      const fields: Record<string, BatchValue> = {}
      for (let index = 0; index < header.length; index += 1) {
        const value = record[index]
        if (value === '') continue
        const name = header[index]
        // Defined, not assigned: a column named __proto__ is a field like any other.
        if (name === '__proto__') Object.defineProperty(fields, name, {value, enumerable: true, writable: true, configurable: true})
        else fields[name] = value
      }
      reader.rows += 1
      if (reader.hash) {
        // canonical(fields), with the header's names sorted and quoted once: every value is text.
        let text = '{'
        for (const index of sorted) {
          const value = record[index]
          if (value === '') continue
          text += `${text.length > 1 ? ',' : ''}${quoted[index]}${JSON.stringify(value)}`
        }
        reader.hash.update(`${text}}\n`)
      }
      out.push({kind: 'row', line, row: reader.rows, fields})
    }
    events.splice(0, index)
    return out
  }

  try {
    try {
      for await (const chunk of text) {
        const bytes = Buffer.from(chunk, 'utf8')
        lines.push(bytes)
        parser.write(bytes)
        const piece = drain()
        if (piece.length > 0) yield piece
        if (stopped) return
      }
    } catch (error) {
      if (!(error instanceof EncodingProblem)) throw error
      parser.end()
      await ended
      const piece = drain()
      if (!stopped) piece.push({kind: 'problem', line: error.line, message: `the file ${error.message}`})
      if (piece.length > 0) yield piece
      return
    }
    parser.end()
    await ended
    const piece = drain()
    if (!header && !stopped) piece.push({kind: 'problem', line: 1, message: 'the file is empty: it needs a header line and a line per row'})
    if (piece.length > 0) yield piece
  } finally {
    if (!parser.destroyed) parser.destroy()
  }
}

// ---------------------------------------------------------------------------------------------
// NDJSON
// ---------------------------------------------------------------------------------------------

/** The entries of an NDJSON file, a list at a time: those each chunk of text completes. */
async function* ndjsonPieces(text: AsyncGenerator<string>, reader: Reader): AsyncGenerator<BatchEntry[]> {
  let buffer = ''
  let line = 0
  function lineEntry(raw: string): BatchEntry | undefined {
    line += 1
    const content = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (content.trim() === '') return undefined
    let value: unknown
    try {
      value = JSON.parse(content)
    } catch (error) {
      return {kind: 'problem', line, message: `is not valid JSON: ${(error as Error).message}`}
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return {kind: 'problem', line, message: 'must be a JSON object, one per line'}
    }
    const entries: Array<[string, BatchValue]> = []
    const from = new Map<string, string>()
    for (const [key, field] of Object.entries(value as Record<string, BatchValue>)) {
      const name = reader.normalize(key)
      if (from.has(name)) {
        return {kind: 'problem', line, field: name, message: `names ${name} twice ("${from.get(name)}" and "${key}")`}
      }
      from.set(name, key)
      entries.push([name, field])
    }
    // fromEntries: a key named __proto__ is a field like any other.
    const fields: Record<string, BatchValue> = Object.fromEntries(entries)
    reader.rows += 1
    reader.hash?.update(`${canonical(fields)}\n`)
    return {kind: 'row', line, row: reader.rows, fields}
  }
  try {
    for await (const chunk of text) {
      buffer += chunk
      let from = 0
      const piece: BatchEntry[] = []
      for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n', from)) {
        const entry = lineEntry(buffer.slice(from, newline))
        if (entry) piece.push(entry)
        from = newline + 1
      }
      buffer = buffer.slice(from)
      if (piece.length > 0) yield piece
    }
  } catch (error) {
    if (!(error instanceof EncodingProblem)) throw error
    yield [{kind: 'problem', line: error.line, message: `the file ${error.message}`}]
    return
  }
  const last = buffer === '' ? undefined : lineEntry(buffer)
  if (last) yield [last]
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

const digest = (reader: Reader) => reader.hash?.digest('hex') ?? ''

/**
 * Reads a batch file from a string, bytes, or a stream (stdin), yielding its rows and its
 * problems in file order, a list at a time (those each chunk of the input completes): a file of
 * many short rows is read without a turn of the event loop per row. The generator's return value
 * (when iterated by hand) is the summary.
 */
export async function* readBatchPieces(input: BatchInput, options: ReadBatchOptions = {}): AsyncGenerator<BatchEntry[], BatchSummary> {
  const reader: Reader = {rows: 0, hash: options.hash === false ? undefined : createHash('sha256'), normalize: options.normalizeNames === false ? (name) => name.trim() : kebabName}
  let format: BatchFormat = options.format ?? 'csv'
  input = await unlessWorkbook(input, options)
  let text = textOf(input, options.note)
  try {
    const firstChar = (head: string) => /\S/.test(head)
    const {head, rest} = await peek(text, firstChar)
    text = rest
    const first = head.trimStart()[0]
    if (options.format === undefined) {
      if (first === undefined) {
        yield [{kind: 'problem', line: 1, message: 'the file is empty: it needs CSV with a header line, or NDJSON'}]
        return {format, count: 0, sha256: digest(reader)}
      }
      if (first === '[') {
        yield [{kind: 'problem', line: lineBreaks(head.slice(0, head.indexOf('['))) + 1, message: 'a JSON array is not NDJSON: write one JSON object per line'}]
        return {format: 'ndjson', count: 0, sha256: digest(reader)}
      }
      format = first === '{' ? 'ndjson' : 'csv'
    }
  } catch (error) {
    if (!(error instanceof EncodingProblem)) throw error
    yield [{kind: 'problem', line: error.line, message: `the file ${error.message}`}]
    return {format, count: 0, sha256: digest(reader)}
  }
  if (format === 'ndjson') {
    yield* ndjsonPieces(text, reader)
  } else {
    let delimiter = options.delimiter
    if (!delimiter) {
      // The header line: up to the first line break after the first character that is not blank.
      let head: string
      try {
        ;({head, rest: text} = await peek(text, (start) => /\S[^\r\n]*[\r\n]/.test(start)))
      } catch (error) {
        if (!(error instanceof EncodingProblem)) throw error
        yield [{kind: 'problem', line: error.line, message: `the file ${error.message}`}]
        return {format, count: 0, sha256: digest(reader)}
      }
      delimiter = detectDelimiter(head.trimStart().split(/\r\n|\n|\r/)[0] ?? '')
    }
    yield* csvPieces(text, delimiter, reader)
  }
  return {format, count: reader.rows, sha256: digest(reader)}
}

/**
 * The input as it is, or, when it is a workbook (.xlsx: a zip file), its sheet as CSV text (see
 * ./workbook.ts). Told by its first bytes, whatever the file's name.
 */
async function unlessWorkbook(input: BatchInput, options: ReadBatchOptions): Promise<BatchInput> {
  if (typeof input === 'string') return input
  const {Buffer} = await import('node:buffer')
  const whole = async (chunks: Uint8Array[]) => {
    const {isZip, workbookAsCsv} = await import('./workbook.js')
    const bytes = Buffer.concat(chunks)
    return isZip(bytes) ? workbookAsCsv(bytes, {sheet: options.sheet, flag: options.flag ?? 'the file'}) : undefined
  }
  if (input instanceof Uint8Array) return (await whole([input])) ?? input
  const iterator = isAsyncIterable(input) ? input[Symbol.asyncIterator]() : (input as Iterable<string | Uint8Array>)[Symbol.iterator]()
  const first = await iterator.next()
  if (first.done) return []
  const head = first.value
  // A reader stopped early closes what it reads.
  const rest = async function* () {
    try {
      yield head
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value
    } finally {
      await iterator.return?.()
    }
  }
  if (typeof head === 'string' || head.length < 4 || !(head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04)) return rest()
  // A workbook is read whole: its parts are found from the end of the zip.
  const chunks: Uint8Array[] = []
  for await (const chunk of rest()) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return (await whole(chunks)) ?? chunks
}

/** readBatchPieces, an entry at a time. */
export async function* readBatchEntries(input: BatchInput, options: ReadBatchOptions = {}): AsyncGenerator<BatchEntry, BatchSummary> {
  const pieces = readBatchPieces(input, options)
  try {
    for (;;) {
      const next = await pieces.next()
      if (next.done) return next.value
      yield* next.value
    }
  } finally {
    // Stopped early by its reader: the file is closed all the same.
    await pieces.return(undefined as never)
  }
}

/**
 * Reads a whole batch file: rows, problems and the content hash. More than `maxRows` rows
 * (default 10,000) throws BatchTooLargeError, before the rest of the file is read.
 */
export async function readBatch(input: BatchInput, options: ReadBatchOptions & {maxRows?: number} = {}): Promise<BatchFile> {
  const maxRows = options.maxRows ?? MAX_BATCH_ROWS
  const rows: BatchRow[] = []
  const problems: BatchProblem[] = []
  const pieces = readBatchPieces(input, options)
  for (;;) {
    const next = await pieces.next()
    if (next.done) return {...next.value, rows, problems}
    for (const {kind, ...entry} of next.value) {
      if (kind === 'problem') {
        problems.push(entry as BatchProblem)
        continue
      }
      if (rows.length >= maxRows) {
        await pieces.return(undefined as never)
        throw new BatchTooLargeError(maxRows)
      }
      rows.push(entry as BatchRow)
    }
  }
}

export {MAX_BATCH_ROWS} from './limits.js'

// ---------------------------------------------------------------------------------------------
// Idempotency keys
// ---------------------------------------------------------------------------------------------

/** The column (or NDJSON field) in which a row carries its own key. */
export const IDEMPOTENCY_FIELD = 'idempotency-key'

const {min: KEY_MIN, max: KEY_MAX} = LIMITS.code

/**
 * The key of a row without its own: `<prefix>-<first 32 hex digits of the batch's sha256>-<row>`,
 * e.g. `batch-3f0c1c8e2a4b4f7e9d516b8f0a6e2c11-17`. The same file gives the same keys, so a re-run
 * is answered with replays; a changed file is a new batch with new keys.
 */
export function deriveIdempotencyKey(sha256: string, row: number, prefix = 'batch'): string {
  if (!/^[0-9a-f]{64}$/i.test(sha256)) throw new TypeError('sha256 must be 64 hex digits')
  if (!Number.isSafeInteger(row) || row < 1) throw new TypeError('row must be a positive integer')
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(prefix)) throw new TypeError('prefix must be 1 to 64 letters, digits, ".", "_" or "-"')
  return `${prefix}-${sha256.slice(0, 32).toLowerCase()}-${row}`
}

export interface RowKey {
  line: number
  row: number
  key: string
  /** True when derived from the file; false when the row gave its own. */
  derived: boolean
}

/**
 * Each row's idempotency key: its own (`idempotency-key`, trimmed, 8 to 255 characters) or the
 * derived one. A key too short or too long, or one that two rows share, is a problem at its line.
 */
export function rowIdempotencyKeys(
  file: Pick<BatchFile, 'rows' | 'sha256'>,
  options: {field?: string; prefix?: string} = {},
): {keys: RowKey[]; problems: BatchProblem[]} {
  const field = options.field ?? IDEMPOTENCY_FIELD
  const keys: RowKey[] = []
  const problems: BatchProblem[] = []
  const used = new Map<string, number>()
  for (const {line, row, fields} of file.rows) {
    const own = fields[field]
    let key: string
    let derived = false
    if (own === undefined) {
      key = deriveIdempotencyKey(file.sha256, row, options.prefix)
      derived = true
    } else if (typeof own === 'string' || (typeof own === 'number' && Number.isSafeInteger(own))) {
      key = String(own).trim()
      if (key.length < KEY_MIN || key.length > KEY_MAX) {
        problems.push({line, field, message: `must be ${KEY_MIN} to ${KEY_MAX} characters; it has ${key.length}`})
        continue
      }
    } else {
      problems.push({line, field, message: 'must be a text of 8 to 255 characters'})
      continue
    }
    const earlier = used.get(key)
    if (earlier !== undefined) {
      problems.push({line, field, message: `is the key of line ${earlier} too: each row needs its own`})
      continue
    }
    used.set(key, line)
    keys.push({line, row, key, derived})
  }
  return {keys, problems}
}
