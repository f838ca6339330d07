import {unzipSync} from 'fflate'

import {UsageError} from '../cli/errors.js'

/**
 * A workbook (.xlsx) given where a batch or an expected file is read: one of its sheets (the
 * first, or the one named) as CSV text, one line per row of the sheet (a blank line for a row with
 * nothing in it, so a line is the sheet's row number), which the CSV reader then reads as any other
 * file. Cells become text as a person reads them: text as it is; a number cell as its decimal with
 * a comma (781.62 is `781,62`, which `amount-brl` reads as reais and `amount` refuses as not integer
 * cents, naming them; 1050 is `1050`); a number in a column whose name ends in "date" as its day
 * (or day and time), which is how a date cell is stored; true/false; an error cell (#N/A) as
 * itself, which the row's checks then refuse.
 */

const MAGIC = [0x50, 0x4b, 0x03, 0x04]

/** Whether bytes start as a zip file (an .xlsx is one). */
export function isZip(bytes: Uint8Array): boolean {
  return MAGIC.every((byte, index) => bytes[index] === byte)
}

const ENTITIES: Record<string, string> = {amp: '&', lt: '<', gt: '>', quot: '"', apos: "'"}

/** XML text as it reads: entities, and Excel's _xHHHH_ escapes of characters XML cannot hold. */
function unescapeXml(text: string): string {
  return text
    .replace(/&(?:#x([0-9a-fA-F]+)|#(\d+)|(\w+));/g, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined) =>
      hex ? String.fromCodePoint(Number.parseInt(hex, 16)) : dec ? String.fromCodePoint(Number(dec)) : (ENTITIES[name!] ?? whole),
    )
    .replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
}

/** The text of an element's <t> runs (a shared string, or an inline one), phonetic runs left out. */
function runsText(xml: string): string {
  return [...xml.replace(/<rPh\b[\s\S]*?<\/rPh>/g, '').matchAll(/<t\b[^>]*>([\s\S]*?)<\/t>|<t\b[^>]*\/>/g)].map((match) => unescapeXml(match[1] ?? '')).join('')
}

const attribute = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]

/** A column's letters as its index: A is 0, AA 26. */
function columnIndex(letters: string): number {
  let index = 0
  for (const char of letters) index = index * 26 + (char.charCodeAt(0) - 64)
  return index - 1
}

/** Excel's serial date as a day (2026-11-24) or a local date-time (2026-11-24T09:30:00). */
function serialDate(serial: number): string {
  const ms = Math.round((serial - 25_569) * 86_400_000)
  const iso = new Date(ms).toISOString()
  return ms % 86_400_000 === 0 ? iso.slice(0, 10) : iso.slice(0, 19)
}

/** A value as one CSV field: quoted when it holds a comma, a quote or a line break (then on one line). */
function csvField(value: string): string {
  const flat = value.replace(/\r\n|\r|\n/g, ' ')
  return /[",]/.test(flat) ? `"${flat.replaceAll('"', '""')}"` : flat
}

/** The sheet `sheet` (or the first) of a workbook's bytes, as CSV text; `flag` names where it was given. */
export function workbookAsCsv(bytes: Uint8Array, options: {sheet?: string; flag: string}): string {
  let files: Record<string, Uint8Array>
  try {
    files = unzipSync(bytes, {filter: (file) => file.name === 'xl/workbook.xml' || file.name === 'xl/_rels/workbook.xml.rels' || file.name === 'xl/sharedStrings.xml' || file.name.startsWith('xl/worksheets/')})
  } catch (error) {
    throw new UsageError(`${options.flag} is a zip file that cannot be read as a workbook: ${(error as Error).message}`)
  }
  const text = (name: string) => (files[name] ? new TextDecoder().decode(files[name]) : undefined)
  const book = text('xl/workbook.xml')
  const rels = text('xl/_rels/workbook.xml.rels')
  if (!book || !rels) throw new UsageError(`${options.flag} is a zip file but not a workbook (.xlsx): save it as "Excel Workbook (.xlsx)" or as CSV`)
  const sheets = [...book.matchAll(/<sheet\b[^>]*>/g)].map((match) => ({name: unescapeXml(attribute(match[0], 'name') ?? ''), id: attribute(match[0], 'r:id') ?? ''}))
  if (sheets.length === 0) throw new UsageError(`${options.flag} is a workbook with no sheet`)
  const chosen = options.sheet === undefined ? sheets[0] : sheets.find((sheet) => sheet.name === options.sheet)
  if (!chosen) throw new UsageError(`--sheet ${options.sheet}: ${options.flag} has no such sheet; its sheets are ${sheets.map((sheet) => JSON.stringify(sheet.name)).join(', ')}`)
  const rel = [...rels.matchAll(/<Relationship\b[^>]*>/g)].map((match) => match[0]).find((tag) => attribute(tag, 'Id') === chosen.id)
  const target = rel ? attribute(rel, 'Target') : undefined
  const path = target ? (target.startsWith('/') ? target.slice(1) : `xl/${target}`) : undefined
  const sheetXml = path ? text(path) : undefined
  if (!sheetXml) throw new UsageError(`${options.flag}: the sheet "${chosen.name}" cannot be found in the workbook`)
  const shared = [...(text('xl/sharedStrings.xml') ?? '').matchAll(/<si\b[^>]*>([\s\S]*?)<\/si>|<si\b[^>]*\/>/g)].map((match) => runsText(match[1] ?? ''))

  const lines: string[] = []
  let dateColumns = new Set<number>()
  let width = 0
  let rowNumber = 0
  for (const row of sheetXml.matchAll(/<row\b([^>]*?)(?:\/>|>([\s\S]*?)<\/row>)/g)) {
    const number = Number(attribute(`<row ${row[1]}`, 'r') ?? rowNumber + 1)
    // Rows with nothing in them are left out of the file: each one is a blank line here.
    while (rowNumber + 1 < number) {
      lines.push('')
      rowNumber += 1
    }
    rowNumber = number
    const values: string[] = []
    let column = -1
    for (const cell of (row[2] ?? '').matchAll(/<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const tag = `<c ${cell[1]}`
      const reference = attribute(tag, 'r')
      column = reference ? columnIndex(/^[A-Z]+/.exec(reference)?.[0] ?? 'A') : column + 1
      const body = cell[2] ?? ''
      const type = attribute(tag, 't') ?? 'n'
      const raw = /<v\b[^>]*>([\s\S]*?)<\/v>/.exec(body)?.[1]
      let value = ''
      if (type === 's') value = shared[Number(raw)] ?? ''
      else if (type === 'inlineStr') value = runsText(body)
      else if (type === 'str' || type === 'e') value = unescapeXml(raw ?? '')
      else if (type === 'b') value = raw === '1' ? 'true' : 'false'
      else if (raw !== undefined && raw !== '') {
        const number = Number(raw)
        if (dateColumns.has(column) && Number.isFinite(number)) value = serialDate(number)
        else value = Number.isFinite(number) ? String(number).replace('.', ',') : raw
      }
      while (values.length < column) values.push('')
      values[column] = csvField(value)
    }
    // The header row: which columns hold dates, and how many columns there are (a sheet leaves a
    // row's empty cells at its end out).
    if (width === 0) {
      dateColumns = new Set(values.map((value, index) => (/date$/i.test(value.trim()) ? index : -1)).filter((index) => index >= 0))
      width = values.length
    }
    if (values.length === 0) {
      lines.push('')
      continue
    }
    while (values.length < width) values.push('')
    lines.push(values.join(','))
  }
  return `${lines.join('\r\n')}\r\n`
}
