import {hold, type IO} from '../cli/context.js'
import {terminalText} from '../cli/terminal.js'

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

/**
 * One line of live status on stderr, redrawn in place, for a person watching a terminal; notes go
 * above it on lines of their own. Without a terminal on stderr only the notes are written.
 */
export interface StatusLine {
  /** Shows this status (in a terminal). */
  set(text: string): void
  /** A line of its own, kept on screen. */
  note(text: string): void
  /** Waits ms, redrawing every 100 ms in a terminal (`tick` refreshes the text). */
  wait(ms: number, sleep: (ms: number) => Promise<void>, tick?: () => void): Promise<void>
  clear(): void
}

export function statusLine(io: IO): StatusLine {
  const live = io.spinner
  let text = ''
  let frame = 0
  let drawn = false
  const draw = () => {
    if (!live || !text) return
    frame = (frame + 1) % FRAMES.length
    io.stderr.write(`\r\u001B[2K${FRAMES[frame]} ${text}`)
    drawn = true
  }
  const clear = () => {
    if (drawn) io.stderr.write('\r\u001B[2K')
    drawn = false
  }
  return {
    set(value) {
      text = terminalText(value, {color: io.color})
      draw()
    },
    note(value) {
      const line = `${terminalText(value, {color: io.color})}\n`
      // --quiet: held for a failure's report, never written on success.
      if (io.quiet) return hold(io, line)
      clear()
      io.stderr.write(line)
      draw()
    },
    async wait(ms, sleep, tick) {
      if (!live) return sleep(ms)
      for (let left = ms; left > 0; left -= 100) {
        await sleep(Math.min(100, left))
        tick?.()
        draw()
      }
    },
    clear,
  }
}
