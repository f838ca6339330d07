import {composedText, marksOf, unmarked, type Terminal} from '../cli/terminal.js'
import {asciiText, printable} from './printable.js'

export interface Column<T> {
  header: string
  value: (row: T) => string
  align?: 'left' | 'right'
  /**
   * Lower goes first when the terminal is too narrow: columns are dropped from the highest.
   * 0 (the default) is never dropped.
   */
  priority?: number
  /** Longest this column may grow before its cells are cut with an ellipsis. */
  maxWidth?: number
  /** Never cut (an id the operator copies, an amount, a day): other columns shrink or go first. */
  whole?: boolean
  /** A shorter value, never cut, for a terminal too narrow for the full one (a time shown as its date alone). */
  compact?: (row: T) => string
  /** The value's documented form is ASCII (an id, a status, a code, a date): any other character is shown escaped. */
  ascii?: boolean
  /** The value is the CLI's own, painted (a state in colour): its colour stays, anything else is escaped. */
  painted?: boolean
}

/** The lines a table draws besides its rows (compact, one line a row): top border, header, header rule, bottom border. */
export const TABLE_CHROME_LINES = 4

export interface RenderedTable {
  text: string
  /** Headers of the columns left out to fit the width. */
  dropped: string[]
  /** Headers of the columns shown in their compact form (a time as its date alone). */
  compacted: string[]
}

/** What a table did to fit, in one line (or undefined when it left everything as it was). */
export function fitNote(rendered: RenderedTable, columns: number): string | undefined {
  const parts: string[] = []
  if (rendered.dropped.length > 0) parts.push(`left out ${rendered.dropped.join(', ')}`)
  if (rendered.compacted.length > 0) parts.push(`${rendered.compacted.join(', ')} ${rendered.compacted.length === 1 ? 'shows' : 'show'} the date alone`)
  if (parts.length === 0) return undefined
  return wrapText(`To fit ${columns} columns: ${parts.join('; ')} (widen the terminal, or use --output csv or --json).`, columns)
}

/**
 * A text for a terminal `width` columns wide, each of its lines broken at spaces into lines that
 * fit (a word longer than the width is broken where it must be), so the terminal never breaks one
 * itself in the middle of a word or an amount. The painter's marks take no room.
 */
export function wrapText(text: string, width: number): string {
  if (!Number.isFinite(width) || width < 1) return text
  const size = (part: string) => unmarked(part).length
  return text
    .split('\n')
    .map((line) => {
      if (size(line) <= width) return line
      const out: string[] = []
      let current = ''
      for (let word of line.split(' ')) {
        if (current !== '' && size(current) + 1 + size(word) <= width) {
          current += ` ${word}`
          continue
        }
        if (current !== '') out.push(current)
        while (size(word) > width) {
          out.push(word.slice(0, width))
          word = word.slice(width)
        }
        current = word
      }
      out.push(current)
      return out.join('\n')
    })
    .join('\n')
}

function cut(text: string, width: number): string {
  // A painted cell is never cut (its marks would be); the CLI's own painted values are short.
  return unmarked(text).length <= width || unmarked(text) !== text ? text : `${text.slice(0, Math.max(0, width - 1))}…`
}

/**
 * A table that fits the terminal: columns are dropped by priority, then cut, until the rows fit
 * `term.columns`; columns marked whole are never cut. cli-table3 draws it; without colour its style
 * is plain (no ANSI codes).
 */
export async function renderTable<T>(rows: T[], columns: Column<T>[], term: Pick<Terminal, 'columns' | 'color'>): Promise<RenderedTable> {
  const {default: Table} = await import('cli-table3')
  // Outside text is shown, never obeyed; escaped before it is measured, so the columns line up.
  const shown = (column: Column<T>, value: string) => (column.painted ? composedText(value) : column.ascii ? asciiText(value) : printable(value))
  // The painter's marks take no room on screen.
  const width = (text: string) => unmarked(text).length
  const cells = rows.map((row) => columns.map((column) => shown(column, column.value(row))))
  const naturalOf = (index: number) => Math.max(columns[index].header.length, ...cells.map((row) => width(row[index])))
  const natural = columns.map((_, index) => naturalOf(index))
  const widths = natural.map((width, index) => (columns[index].whole ? width : Math.min(columns[index].maxWidth ?? Infinity, width)))
  const keep = columns.map(() => true)
  const compacted = columns.map(() => false)
  const total = () => widths.reduce((sum, width, index) => sum + (keep[index] ? width + 3 : 0), 1)
  const byPriority = columns
    .map((column, index) => ({index, priority: column.priority ?? 0}))
    .sort((a, b) => b.priority - a.priority || b.index - a.index)
  // 1. Leave out the columns that may go, lowest priority first.
  for (const {index} of byPriority) {
    if (total() <= term.columns || keep.filter(Boolean).length <= 2) break
    if ((columns[index].priority ?? 0) > 0) keep[index] = false
  }
  // 2. Still too wide: the compact form of the columns that have one (a time as its date alone).
  for (const [index, column] of columns.entries()) {
    if (total() <= term.columns) break
    if (!keep[index] || !column.compact) continue
    compacted[index] = true
    for (const [row, value] of rows.entries()) cells[row][index] = shown(column, column.compact(value))
    widths[index] = naturalOf(index)
  }
  // 3. Narrow the widest column that may be cut (never a whole or compacted one), a character at a time, down to 6.
  const cuttable = (index: number) => keep[index] && !columns[index].whole && !compacted[index]
  while (total() > term.columns) {
    let widest = -1
    for (const [index, width] of widths.entries()) {
      if (cuttable(index) && width > 6 && (widest === -1 || width > widths[widest])) widest = index
    }
    if (widest === -1) break
    widths[widest] -= 1
  }
  // 4. No row wider than the terminal: the columns that may be cut go, last first, before any whole one.
  for (let index = columns.length - 1; index >= 0 && total() > term.columns; index -= 1) {
    if (cuttable(index) && keep.filter(Boolean).length > 1) keep[index] = false
  }
  // 5. Then the columns in their compact form (a date is never cut, but it may be left out), last first.
  for (let index = columns.length - 1; index >= 0 && total() > term.columns; index -= 1) {
    if (keep[index] && compacted[index] && keep.filter(Boolean).length > 1) keep[index] = false
  }
  // 6. Then whole columns, last first, the first one (the id) kept: a value is left out, never cut
  // or broken across lines by the terminal. Only a terminal narrower than that one column gets a
  // wider table.
  for (let index = columns.length - 1; index > 0 && total() > term.columns; index -= 1) {
    if (keep[index] && keep.filter(Boolean).length > 1) keep[index] = false
  }
  const indexes = columns.map((_, index) => index).filter((index) => keep[index])
  const table = new Table({
    head: indexes.map((index) => columns[index].header),
    colAligns: indexes.map((index) => columns[index].align ?? 'left'),
    colWidths: indexes.map((index) => widths[index] + 2),
    style: term.color ? {head: ['cyan'], border: ['grey'], compact: true} : {head: [], border: [], compact: true},
    wordWrap: false,
  })
  for (const row of cells) table.push(indexes.map((index) => cut(row[index], widths[index])))
  return {
    // The cells were escaped, so every colour sequence in the drawing is cli-table3's own: it
    // becomes the painter's mark, turned into colour (or not) when the text is written.
    text: marksOf(table.toString()),
    dropped: columns.filter((_, index) => !keep[index]).map((column) => column.header),
    compacted: columns.filter((_, index) => keep[index] && compacted[index]).map((column) => column.header),
  }
}
