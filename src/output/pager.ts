import {terminalText} from '../cli/terminal.js'
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

/** The lines of a screen the pager keeps for itself: its status line, and the line the cursor rests on. */
const PAGER_LINES = 2

/**
 * How many lines of a page's body fit the terminal's height, besides `chrome` lines of its own
 * (a table's borders and header); undefined when the height is not known.
 */
export function linesThatFit(rows: number | undefined, chrome = 0): number | undefined {
  return rows && rows > 0 ? Math.max(1, rows - PAGER_LINES - chrome) : undefined
}

/**
 * The body cut to the terminal's height, from the top, so its header always shows; the last line
 * kept says how many more there were.
 */
function fitted(body: string, rows: number | undefined): string {
  const room = linesThatFit(rows)
  const lines = body.replace(/\n$/, '').split('\n')
  if (room === undefined || lines.length <= room) return body
  const kept = lines.slice(0, Math.max(0, room - 1))
  return `${kept.join('\n')}\n… ${lines.length - kept.length} more lines: a taller terminal shows them\n`
}

/**
 * An interactive pager in the terminal: n (space, →) next, p (←) previous, q (Esc) quits; Ctrl-C
 * quits with 130.
 * It redraws the screen with each page, cut to the terminal's height so that the page's top (a
 * table's header) never scrolls away.
 */
export async function page<P extends PagerPage>(ctx: CommandContext, first: P, options: PagerOptions<P>): Promise<void> {
  let current = first
  const draw = async (notice = '') => {
    const body = fitted(await options.render(current), ctx.io.rows)
    const help = ctx.paint('dim', '[n] next  [p] previous  [q] quit')
    ctx.io.stdout.write(`${CLEAR}${terminalText(`${body}${options.status(current)}  ${help}${notice ? `  ${notice}` : ''}`, {lines: true, color: ctx.io.color})}\n`)
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
