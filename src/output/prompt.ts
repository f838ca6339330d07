import type {IO} from '../cli/context.js'
import {InterruptedError} from '../cli/errors.js'
import {terminalText} from '../cli/terminal.js'

/** Asks on stderr and reads one line from stdin, echoing nothing when `hidden` and stdin is a terminal. */
export async function prompt(io: IO, text: string, options: {hidden?: boolean} = {}): Promise<string> {
  // A question the CLI composed (outside values escaped in it): its colour added, any other control shown escaped.
  const question = terminalText(text, {color: io.color})
  if (!options.hidden || !io.stdinTTY) {
    io.stderr.write(question)
    const {createInterface} = await import('node:readline')
    const rl = createInterface({input: io.stdin, terminal: false})
    try {
      const line = await new Promise<string>((resolve) => {
        rl.once('line', resolve)
        rl.once('close', () => resolve(''))
      })
      return line.trim()
    } finally {
      rl.close()
    }
  }
  let value = ''
  let interrupted = false
  try {
    for await (const key of io.keys(() => io.stderr.write(question))) {
      if (key === '\r' || key === '\n') break
      if (key === '\u0003') {
        interrupted = true
        break
      }
      if (key === '\u007F' || key === '\b') value = value.slice(0, -1)
      else if (key >= ' ' && !key.startsWith('\u001B')) value += key
    }
  } finally {
    io.stderr.write('\n')
  }
  // Raw mode swallows Ctrl-C's signal: with the terminal restored, leave as the signal would.
  if (interrupted) throw new InterruptedError()
  return value
}

/**
 * A yes/no question that defaults to no: only "y" or "yes" (any case) is a yes. Ctrl-C or the end
 * of input is a no.
 */
export async function confirm(io: IO, question: string): Promise<boolean> {
  const answer = await prompt(io, `${question} [y/N] `)
  return /^y(es)?$/i.test(answer)
}

/** Reads all of stdin, without its trailing newline. */
export async function readStdin(io: IO): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer))
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}
