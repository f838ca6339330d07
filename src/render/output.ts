/** What the terminal allows: colour, spinners and prompts only for a person at a TTY. */
export interface Terminal {
  stdoutTTY: boolean
  stdinTTY: boolean
  color: boolean
  spinner: boolean
  prompt: boolean
  columns: number
}

export function detectTerminal(env: NodeJS.ProcessEnv = process.env): Terminal {
  const stdoutTTY = Boolean(process.stdout.isTTY)
  const stdinTTY = Boolean(process.stdin.isTTY)
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== ''
  const dumb = env.TERM === 'dumb'
  return {
    stdoutTTY,
    stdinTTY,
    color: stdoutTTY && !noColor && !dumb,
    spinner: stdoutTTY && Boolean(process.stderr.isTTY) && !noColor && !dumb && !env.CI,
    prompt: stdinTTY && stdoutTTY,
    // A pipe has no width: tables keep every column whole there, for grep and cut.
    columns: (stdoutTTY && process.stdout.columns) || Number(env.COLUMNS) || (stdoutTTY ? 80 : Infinity),
  }
}

const codes = {bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39]} as const
export type Style = keyof typeof codes

/** Styles text when colour is on, and leaves it as is otherwise. */
export function painter(enabled: boolean): (style: Style, text: string) => string {
  return (style, text) => (enabled ? `\u001B[${codes[style][0]}m${text}\u001B[${codes[style][1]}m` : text)
}

export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}
