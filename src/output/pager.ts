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

/**
 * An interactive pager in the terminal: n (space, →) next, p (←) previous, q (Esc) quits; Ctrl-C
 * quits with 130.
 * It redraws the screen with each page.
 */
export async function page<P extends PagerPage>(ctx: CommandContext, first: P, options: PagerOptions<P>): Promise<void> {
  let current = first
  const draw = async (notice = '') => {
    const body = await options.render(current)
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
