import {Buffer} from 'node:buffer'
import type {Writable} from 'node:stream'

import {Zip, ZipDeflate} from 'fflate'

import type {CsvColumn} from './csv.js'
import type {PreparedText} from './stream.js'
import {zoneOffsetMinutes} from './time.js'
import {writeText} from './write.js'

/**
 * Workbooks (.xlsx, Office Open XML) written as records arrive: one sheet, its rows deflated into
 * the zip as each page comes (fflate's streaming zip), so memory stays flat however many there are.
 * Cells are typed for a spreadsheet: amounts (integer cents) as numbers in reais written from their
 * digits, so the cell holds exactly the cents, in the number format `"R$" #,##0.00` (a spreadsheet
 * in Portuguese shows R$ 1.234,56); instants as date-times in the operator's zone (TZ); ids, codes,
 * keys and documents as text cells in the text format, so a CNPJ or a code with leading zeros never
 * becomes a number. Text cells are never formulas: nothing needs defusing.
 */

/** What a column's cells are. */
export type CellKind = 'text' | 'money' | 'date' | 'number' | 'boolean'

export interface XlsxColumn<T> {
  header: string
  value: (record: T) => unknown
  kind: CellKind
}

/**
 * A list's CSV columns as workbook columns: the kind of each named in `kinds` by header; any other
 * is text for a text value, a number for a number, true/false for a boolean.
 */
export function xlsxColumns<T>(columns: readonly CsvColumn<T>[], kinds: Readonly<Record<string, CellKind>>): XlsxColumn<T>[] {
  return columns.map((column) => {
    const [header, value] = 'header' in column ? [column.header, column.value] : column
    return {header, value, kind: kinds[header] ?? 'text'}
  })
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
const RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const PACKAGE_RELATIONSHIPS = 'http://schemas.openxmlformats.org/package/2006/relationships'
const DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'

/** Characters XML 1.0 cannot hold at all (control characters but tab, LF and CR; lone surrogates; U+FFFE, U+FFFF). */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

function escapeXml(text: string): string {
  return text.replace(NOT_XML, '\uFFFD').replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'))
}

/** The number format of amounts: Excel stores it as written, and shows it with the locale's separators. */
export const MONEY_FORMAT = '"R$" #,##0.00'
export const DATE_TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss'
export const DATE_FORMAT = 'yyyy-mm-dd'

/** Cell styles (cellXfs), by position. */
const STYLE = {general: 0, text: 1, money: 2, dateTime: 3, date: 4, header: 5} as const

const STYLES =
  `${DECLARATION}<styleSheet xmlns="${MAIN}">` +
  `<numFmts count="3"><numFmt numFmtId="164" formatCode="${escapeXml(MONEY_FORMAT)}"/><numFmt numFmtId="165" formatCode="${DATE_TIME_FORMAT}"/><numFmt numFmtId="166" formatCode="${DATE_FORMAT}"/></numFmts>` +
  '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="6">' +
  '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
  '<xf numFmtId="49" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="166" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="49" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1" applyNumberFormat="1"/>' +
  '</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'

const CONTENT_TYPES =
  `${DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
  '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
  '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
  '</Types>'

const ROOT_RELS = `${DECLARATION}<Relationships xmlns="${PACKAGE_RELATIONSHIPS}"><Relationship Id="rId1" Type="${RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`

const WORKBOOK_RELS =
  `${DECLARATION}<Relationships xmlns="${PACKAGE_RELATIONSHIPS}">` +
  `<Relationship Id="rId1" Type="${RELATIONSHIPS}/worksheet" Target="worksheets/sheet1.xml"/>` +
  `<Relationship Id="rId2" Type="${RELATIONSHIPS}/styles" Target="styles.xml"/></Relationships>`

const workbook = (sheet: string) => `${DECLARATION}<workbook xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}"><sheets><sheet name="${escapeXml(sheet)}" sheetId="1" r:id="rId1"/></sheets></workbook>`

/** A column's letters: 0 is A, 25 Z, 26 AA. */
export function columnLetters(index: number): string {
  let letters = ''
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters
  return letters
}

/** Integer cents as the decimal text of reais, from the digits: 78162 is 781.62, -5 is -0.05. */
export function centsAsReais(cents: number): string {
  const sign = cents < 0 ? '-' : ''
  const abs = Math.abs(cents)
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`
}

const DAY_MS = 86_400_000
/** Excel's serial date of 1970-01-01 (its day 0 is 1899-12-30). */
const EPOCH_SERIAL = 25_569
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/
const WIDTHS: Record<CellKind, number> = {text: 24, money: 16, date: 20, number: 12, boolean: 10}

export interface XlsxOptions {
  /** The sheet's name (at most 31 characters). */
  sheet: string
  /** The operator's time zone (an IANA name, TZ); without one, the process's own. */
  zone?: string
}

/**
 * Writes one workbook to a stream, its rows as they arrive (the same steps as RecordWriter:
 * `prepare` a page at once, write it with `prepared` in its turn, `end` once). The stream is never
 * ended here: it may be stdout.
 */
export class XlsxWriter<T> {
  private count = 0
  private started = false
  private readonly zip: Zip
  private sheet?: ZipDeflate
  private out: Uint8Array[] = []
  private failure?: Error
  private readonly letters: string[]
  /** Minutes east of UTC by hour since the epoch: a zone's offset changes only on an hour (or half). */
  private readonly offsets = new Map<number, number>()

  constructor(
    private readonly stream: Writable,
    private readonly columns: readonly XlsxColumn<T>[],
    private readonly options: XlsxOptions,
  ) {
    this.letters = columns.map((_, index) => columnLetters(index))
    this.zip = new Zip((error, chunk) => {
      if (error) this.failure = error
      else this.out.push(chunk)
    })
  }

  get written(): number {
    return this.count
  }

  async begin(): Promise<void> {
    if (this.started) return
    this.started = true
    const part = (name: string, text: string) => {
      const file = new ZipDeflate(name, {level: 6})
      this.zip.add(file)
      file.push(Buffer.from(text), true)
    }
    part('[Content_Types].xml', CONTENT_TYPES)
    part('_rels/.rels', ROOT_RELS)
    part('xl/workbook.xml', workbook(this.options.sheet.slice(0, 31)))
    part('xl/_rels/workbook.xml.rels', WORKBOOK_RELS)
    part('xl/styles.xml', STYLES)
    // Level 1: the sheet is most of the bytes, and most of the time; its repeated markup deflates
    // well at any level.
    this.sheet = new ZipDeflate('xl/worksheets/sheet1.xml', {level: 1})
    this.zip.add(this.sheet)
    const cols = this.columns.map((column, index) => `<col min="${index + 1}" max="${index + 1}" width="${WIDTHS[column.kind]}" customWidth="1"/>`).join('')
    const header = this.columns.map((column, index) => `<c r="${this.letters[index]}1" s="${STYLE.header}" t="inlineStr"><is><t>${escapeXml(column.header)}</t></is></c>`).join('')
    const head =
      `${DECLARATION}<worksheet xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}">` +
      '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>' +
      `<sheetFormatPr defaultRowHeight="15"/><cols>${cols}</cols><sheetData><row r="1">${header}</row>`
    await this.send(Buffer.from(head), false)
  }

  async records(rows: readonly T[]): Promise<void> {
    await this.prepared(this.prepare(rows))
  }

  /** A page of records as the sheet's XML, made at once. Rows and cells go in order, so they carry no reference (each one's is optional). */
  prepare(rows: readonly T[]): PreparedText {
    let text = ''
    for (const row of rows) {
      text += '<row>'
      for (let index = 0; index < this.columns.length; index++) text += this.cell(this.columns[index], row)
      text += '</row>'
    }
    return {bytes: Buffer.from(text), count: rows.length}
  }

  /** Writes a page made by `prepare`, in its turn. */
  async prepared(page: PreparedText): Promise<void> {
    await this.begin()
    if (page.count === 0) return
    this.count += page.count
    await this.send(page.bytes, false)
  }

  async end(): Promise<void> {
    await this.begin()
    await this.send(Buffer.from('</sheetData></worksheet>'), true)
    this.zip.end()
    await this.flush()
  }

  private cell(column: XlsxColumn<T>, row: T): string {
    const value = column.value(row)
    if (value === undefined || value === null || value === '') return '<c/>'
    switch (column.kind) {
      case 'money': {
        if (typeof value === 'number' && Number.isSafeInteger(value)) return `<c s="${STYLE.money}"><v>${centsAsReais(value)}</v></c>`
        break
      }
      case 'date': {
        const serial = this.serial(value)
        if (serial) return `<c s="${serial.dateOnly ? STYLE.date : STYLE.dateTime}"><v>${serial.value}</v></c>`
        break
      }
      case 'number': {
        if (typeof value === 'number' && Number.isFinite(value)) return `<c><v>${value}</v></c>`
        break
      }
      case 'boolean': {
        if (typeof value === 'boolean') return `<c t="b"><v>${value ? 1 : 0}</v></c>`
        break
      }
      default:
    }
    const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value)
    const space = /^\s|\s$/.test(text) ? ' xml:space="preserve"' : ''
    return `<c s="${STYLE.text}" t="inlineStr"><is><t${space}>${escapeXml(text)}</t></is></c>`
  }

  /** An instant as Excel's serial date in the operator's zone; a date alone as that day. */
  private serial(value: unknown): {value: number; dateOnly: boolean} | undefined {
    if (typeof value !== 'string') return undefined
    const day = DATE_ONLY.exec(value)
    if (day) return {value: Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])) / DAY_MS + EPOCH_SERIAL, dateOnly: true}
    const ms = Date.parse(value)
    if (Number.isNaN(ms)) return undefined
    const hour = Math.floor(ms / 1_800_000)
    let offset = this.offsets.get(hour)
    if (offset === undefined) {
      offset = zoneOffsetMinutes(ms, this.options.zone)
      this.offsets.set(hour, offset)
    }
    return {value: (ms + offset * 60_000) / DAY_MS + EPOCH_SERIAL, dateOnly: false}
  }

  private async send(bytes: Uint8Array, final: boolean): Promise<void> {
    this.sheet!.push(bytes, final)
    await this.flush()
  }

  private async flush(): Promise<void> {
    if (this.failure) throw this.failure
    const chunks = this.out
    this.out = []
    for (const chunk of chunks) await writeText(this.stream, chunk)
  }
}
