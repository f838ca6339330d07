import {terminalText, type Terminal} from '../cli/terminal.js'

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
  /** Never cut (an id the operator copies): other columns shrink or go first. */
  whole?: boolean
}

export interface RenderedTable {
  text: string
  /** Headers of the columns left out to fit the width. */
  dropped: string[]
}

function cut(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`
}

/**
 * A table that fits the terminal: columns are dropped by priority, then cut, until the rows fit
 * `term.columns`; columns marked whole are never cut. cli-table3 draws it; without colour its style
 * is plain (no ANSI codes).
 */
export async function renderTable<T>(rows: T[], columns: Column<T>[], term: Pick<Terminal, 'columns' | 'color'>): Promise<RenderedTable> {
  const {default: Table} = await import('cli-table3')
  // Outside text is shown, never obeyed; escaped before it is measured, so the columns line up.
  const cells = rows.map((row) => columns.map((column) => terminalText(column.value(row))))
  const natural = columns.map((column, index) => Math.max(column.header.length, ...cells.map((row) => row[index].length)))
  const widths = natural.map((width, index) => (columns[index].whole ? width : Math.min(columns[index].maxWidth ?? Infinity, width)))
  const keep = columns.map(() => true)
  const total = () => widths.reduce((sum, width, index) => sum + (keep[index] ? width + 3 : 0), 1)
  const byPriority = columns
    .map((column, index) => ({index, priority: column.priority ?? 0}))
    .sort((a, b) => b.priority - a.priority || b.index - a.index)
  for (const {index} of byPriority) {
    if (total() <= term.columns || keep.filter(Boolean).length <= 2) break
    if ((columns[index].priority ?? 0) > 0) keep[index] = false
  }
  // Still too wide: narrow the widest remaining column that may be cut, a character at a time, down to 6.
  while (total() > term.columns) {
    let widest = -1
    for (const [index, width] of widths.entries()) {
      if (keep[index] && !columns[index].whole && width > 6 && (widest === -1 || width > widths[widest])) widest = index
    }
    if (widest === -1) break
    widths[widest] -= 1
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
  return {text: table.toString(), dropped: columns.filter((_, index) => !keep[index]).map((column) => column.header)}
}
