import {terminalText, unmarked} from '../cli/terminal.js'
import {wrapText} from './table.js'
import type {CommandContext} from '../cli/context.js'
import {InterruptedError} from '../cli/errors.js'

export interface PagerPage {
  currentPage: number
  totalPages: number
}

export interface PagerOptions<P extends PagerPage> {
  /** The page's body, as it is printed. */
  render(page: P): Promise<string>
  /** The status line under the page, e.g. "Page 2 of 9 · snapshot 8c1f…". */
  status(page: P): string
  fetch(page: number): Promise<P>
}

const CLEAR = '\u001B[2J\u001B[H'

/** The line the cursor rests on, under the status line: never drawn on, or the screen would scroll. */
const CURSOR_LINE = 1

/** The status line's keys, as much of them as the width leaves room for. */
const HELP = ['[n] next  [p] previous  [q] quit', 'n/p/q']

/**
 * The status line under a page (the page, its snapshot, the keys, a notice) in as few lines as the
 * terminal's width allows, none wider: the keys are said shorter, then left out, before anything
 * of the status is broken onto a second line.
 */
export function statusLines(status: string, notice: string, columns: number, paint?: (text: string) => string): string[] {
  const tail = notice ? `  ${notice}` : ''
  for (const help of HELP) {
    const line = `${status}  ${help}${tail}`
    if (line.length <= columns) return [`${status}  ${paint ? paint(help) : help}${tail}`]
  }
  return wrapText(`${status}${tail}`, columns).split('\n')
}

/**
 * How many lines of a page's body fit the terminal's height, besides `chrome` lines of its own
 * (a table's borders and header, a note under it) and the pager's status line (`status` lines of
 * it: see statusLines); undefined when the height is not known.
 */
export function linesThatFit(rows: number | undefined, chrome = 0, status = 1): number | undefined {
  return rows && rows > 0 ? Math.max(1, rows - CURSOR_LINE - status - chrome) : undefined
}

/** A line wider than the terminal, cut to it (its colour dropped), so the terminal never wraps it and pushes the top off. */
function fitLine(line: string, columns: number): string {
  const text = unmarked(line)
  return text.length <= columns ? line : `${text.slice(0, Math.max(0, columns - 1))}…`
}

/**
 * The body fitted to the screen: each line to its width, and the whole cut to its height (less
 * the status lines) from the bottom, so its header always shows; the last line kept says how many
 * more there were.
 */
export function fitted(body: string, rows: number | undefined, columns: number, status = 1): string {
  const room = linesThatFit(rows, 0, status)
  const lines = body
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => fitLine(line, columns))
  if (room === undefined || lines.length <= room) return body === '' ? '' : `${lines.join('\n')}\n`
  const kept = lines.slice(0, Math.max(0, room - 1))
  return `${kept.join('\n')}\n${fitLine(`… ${lines.length - kept.length} more lines: a taller terminal shows them`, columns)}\n`
}

/**
 * The screen the pager draws for a page: the body and the status lines, each line at most the
 * terminal's width, all of them at most its height less the cursor's line.
 */
export function screen(body: string, status: string, notice: string, term: {rows?: number; columns: number}, paint?: (text: string) => string): string {
  const under = statusLines(status, notice, term.columns, paint)
  return `${fitted(body, term.rows, term.columns, under.length)}${under.join('\n')}`
}

/**
 * An interactive pager in the terminal: n (space, →) next, p (←) previous, q (Esc) quits; Ctrl-C
 * quits with 130.
 * It redraws the screen with each page, fitted to the terminal's width and height so that the
 * page's top (a table's header) never scrolls away.
 */
export async function page<P extends PagerPage>(ctx: CommandContext, first: P, options: PagerOptions<P>): Promise<void> {
  let current = first
  const draw = async (notice = '') => {
    const drawn = screen(await options.render(current), options.status(current), notice, ctx.io, (help) => ctx.paint('dim', help))
    ctx.io.stdout.write(`${CLEAR}${terminalText(drawn, {lines: true, color: ctx.io.color})}\n`)
  }
  // The first page is drawn once the terminal is in raw mode: a key pressed as soon as it shows
  // (Ctrl-C included) is then read as a key, never left to the terminal's own signals.
  let shown: Promise<void> = Promise.resolve()
  for await (const key of ctx.io.keys(() => {
    shown = draw()
  })) {
    await shown
    // Ctrl-C ends as the signal would have: 130, as the exit-code table says.
    if (key === '\u0003') throw new InterruptedError()
    if (key === 'q' || key === '\u001B') break
    const next = key === 'n' || key === ' ' || key === '\u001B[C'
    const previous = key === 'p' || key === '\u001B[D'
    const target = next ? current.currentPage + 1 : previous ? current.currentPage - 1 : undefined
    if (target === undefined) continue
    if (target < 1 || target > current.totalPages) {
      await draw(target < 1 ? '(first page)' : '(last page)')
      continue
    }
    current = await options.fetch(target)
    await draw()
  }
  await shown
}
