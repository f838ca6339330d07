import {printableText} from '../output/printable.js'

/** What the terminal allows: colour, spinners and prompts only for a person at a TTY. */
export interface Terminal {
  stdoutTTY: boolean
  stderrTTY: boolean
  stdinTTY: boolean
  color: boolean
  /** Spinners and progress on stderr: a person watches stderr in a terminal. */
  spinner: boolean
  prompt: boolean
  columns: number
}

export interface TtyFacts {
  stdoutTTY: boolean
  stderrTTY: boolean
  stdinTTY: boolean
  /** The terminal's width, when stdout is one. */
  stdoutColumns?: number
}

/** The terminal's abilities from the streams' TTY facts and the environment (NO_COLOR, TERM=dumb, CI). */
export function detectTerminal(facts: TtyFacts, env: NodeJS.ProcessEnv): Terminal {
  const {stdoutTTY, stderrTTY, stdinTTY} = facts
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== ''
  const dumb = env.TERM === 'dumb'
  return {
    stdoutTTY,
    stderrTTY,
    stdinTTY,
    color: stdoutTTY && !noColor && !dumb,
    spinner: stderrTTY && !noColor && !dumb && !env.CI,
    prompt: stdinTTY && stdoutTTY,
    // A pipe has no width: tables keep every column whole there, for grep and cut.
    columns: (stdoutTTY && facts.stdoutColumns) || Number(env.COLUMNS) || (stdoutTTY ? 80 : Infinity),
  }
}

const codes = {bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39]} as const
export type Style = keyof typeof codes
export type Paint = (style: Style, text: string) => string

/**
 * The painter's own sequences (and the grey of table borders, and the QR code's black on white), and
 * no others: what a view keeps when it escapes outside text.
 */
export const PAINT_SEQUENCE = new RegExp(`\u001B\\[(?:${[...new Set([...Object.values(codes).flat(), 90, '30;47', '39;49'])].join('|')})m`, 'g')

/** A line (or lines) of the CLI's own making for the terminal: its colours stay, any other control character is escaped. */
export const terminalText = (text: string, options: {lines?: boolean} = {}) => printableText(text, PAINT_SEQUENCE, options)

/** Styles text when colour is on, and leaves it as is otherwise. */
export function painter(enabled: boolean): Paint {
  // What is painted is shown, never obeyed: a value painted for emphasis cannot carry controls.
  return (style, text) => (enabled ? `\u001B[${codes[style][0]}m${terminalText(text)}\u001B[${codes[style][1]}m` : terminalText(text))
}

export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}
