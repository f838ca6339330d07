import {escapeChar, printable, UNSAFE_CHARS} from '../output/printable.js'

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
  /** The terminal's height, when stdout is one that reports it: the pager and the QR code fit it. */
  rows?: number
  /**
   * --quiet: nothing on stderr when the command succeeds (notes, summaries, progress); what would
   * have been said is held in `held` and shown before the error when it fails.
   */
  quiet?: boolean
  held?: string[]
}

export interface TtyFacts {
  stdoutTTY: boolean
  stderrTTY: boolean
  stdinTTY: boolean
  /** The terminal's width, when stdout is one. */
  stdoutColumns?: number
  /** The terminal's height, when stdout is one. */
  stdoutRows?: number
  /** The size stderr's terminal reports, when stderr is one. */
  stderrColumns?: number
  stderrRows?: number
}

/**
 * A terminal that reports no size (0 columns or 0 rows: `script`, `docker exec -t`, CI runners,
 * expect) is treated as no terminal at all: nothing can be fitted to it, and a spinner's
 * line-clearing arithmetic divides by its width. Only a size reported as 0 counts; one not known
 * (undefined) leaves the stream a terminal.
 */
export function sizedTTY(tty: boolean, columns: number | undefined, rows: number | undefined): boolean {
  return tty && columns !== 0 && rows !== 0
}

/** The terminal's abilities from the streams' TTY facts and the environment (NO_COLOR, TERM=dumb, CI). */
export function detectTerminal(facts: TtyFacts, env: NodeJS.ProcessEnv): Terminal {
  const stdoutTTY = sizedTTY(facts.stdoutTTY, facts.stdoutColumns, facts.stdoutRows)
  const stderrTTY = sizedTTY(facts.stderrTTY, facts.stderrColumns, facts.stderrRows)
  const {stdinTTY} = facts
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
    rows: stdoutTTY ? facts.stdoutRows : undefined,
  }
}

// ink and paper: the QR code's explicit black on white, so it reads on any theme.
const codes = {bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39], grey: [90, 39], ink: [30, 39], paper: [47, 49]} as const
export type Style = Exclude<keyof typeof codes, 'grey' | 'ink' | 'paper'>
export type Paint = (style: Style, text: string) => string

/**
 * How colour travels from the painter to the terminal. The painter never writes an escape
 * sequence into the text it composes: it writes one of these marks, C1 characters of the
 * private-use rows that take no width in a table. Outside text cannot hold them by the time it is
 * composed (`printable` escapes every C1 character), and the writers (`terminalText`) escape every
 * control character first and only then turn the marks into the SGR sequences, or drop them when
 * colour is off. So no sequence from outside ever reaches the terminal, whatever it holds.
 */
const SGR: number[] = [...new Set<number>(Object.values(codes).flat())].sort((a, b) => a - b)
const MARK_BASE = 0x80
const markOf = (code: number) => String.fromCharCode(MARK_BASE + SGR.indexOf(code))
const MARKS = new RegExp(`[${markOf(SGR[0])}-${markOf(SGR.at(-1)!)}]`)

/** The painter's mark for a style, as a table's borders and headers use it. */
export function mark(style: keyof typeof codes, text: string): string {
  return marks([style], text)
}

/** The painter's marks for several styles at once around one text (the QR code's ink on paper). */
export function marks(styles: ReadonlyArray<keyof typeof codes>, text: string): string {
  const open = styles.map((style) => markOf(codes[style][0])).join('')
  const close = styles.map((style) => markOf(codes[style][1])).reverse().join('')
  return `${open}${printable(text)}${close}`
}

/**
 * A text the CLI composed (outside values in it already escaped by `printable`) as the terminal
 * gets it: every control or invisible character is shown as an escape, line breaks too unless
 * `lines`, except the painter's marks, which become colour when `color` is on (with colour off
 * the painter writes none, so any there came from outside and is escaped like the rest).
 */
export function terminalText(text: string, options: {lines?: boolean; color?: boolean} = {}): string {
  return String(text).replace(UNSAFE_CHARS, (char) => {
    if (char === '\n' && options.lines) return char
    if (options.color && MARKS.test(char)) return `\u001B[${SGR[char.charCodeAt(0) - MARK_BASE]}m`
    return escapeChar(char)
  })
}

/**
 * A part the CLI composed from painted pieces and escaped values: every control or invisible
 * character is shown as an escape but the painter's marks, which stay for the writer to turn into
 * colour. Outside values are escaped by `printable` before they get here.
 */
export function composedText(text: string): string {
  return String(text).replace(UNSAFE_CHARS, (char) => (MARKS.test(char) ? char : escapeChar(char)))
}

/** The text without the painter's marks: what takes room on screen. */
export function unmarked(text: string): string {
  return text.replace(new RegExp(MARKS.source, 'g'), '')
}

/**
 * The colour sequences a library (cli-table3) wrote into a text whose cells were escaped first, so
 * every raw sequence in it is the library's: each becomes the painter's mark, and any other is dropped.
 */
export function marksOf(text: string): string {
  return text.replace(/\u001B\[(\d+)m/g, (_, code: string) => (SGR.includes(Number(code)) ? markOf(Number(code)) : ''))
}

/** Styles text when colour is on, and leaves it as is otherwise; either way the text is escaped first. */
export function painter(enabled: boolean): Paint {
  // What is painted is shown, never obeyed: the text is escaped, then the colour added around it.
  return (style, text) => (enabled ? mark(style, text) : printable(text))
}

export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}
