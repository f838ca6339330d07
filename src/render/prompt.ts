/** Asks on stderr and reads one line from the terminal, echoing nothing when `hidden`. */
export async function prompt(question: string, options: {hidden?: boolean} = {}): Promise<string> {
  const {stdin, stderr} = process
  if (!options.hidden || !stdin.isTTY) {
    stderr.write(question)
    const {createInterface} = await import('node:readline')
    const rl = createInterface({input: stdin, terminal: false})
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
  const {readKeys} = await import('./keys.js')
  let value = ''
  let interrupted = false
  try {
    for await (const key of readKeys(() => stderr.write(question))) {
      if (key === '\r' || key === '\n') break
      if (key === '\u0003') {
        interrupted = true
        break
      }
      if (key === '\u007F' || key === '\b') value = value.slice(0, -1)
      else if (key >= ' ' && !key.startsWith('\u001B')) value += key
    }
  } finally {
    stderr.write('\n')
  }
  // Raw mode swallows Ctrl-C's signal: with the terminal restored, leave as the signal would.
  if (interrupted) process.exit(130)
  return value
}
