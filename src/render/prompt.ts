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
  return new Promise<string>((resolve) => {
    let value = ''
    // Echo goes off before the question shows, so nothing typed after it can appear on screen.
    stdin.setRawMode(true)
    stderr.write(question)
    stdin.resume()
    stdin.setEncoding('utf8')
    const done = () => {
      stdin.setRawMode(false)
      stdin.pause()
      stdin.off('data', onData)
      stderr.write('\n')
    }
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') {
          done()
          return resolve(value)
        }
        if (char === '\u0003') {
          // Raw mode swallows Ctrl-C's signal: restore the terminal and leave as the signal would.
          done()
          process.exit(130)
        }
        if (char === '\u007F' || char === '\b') value = value.slice(0, -1)
        else if (char >= ' ') value += char
      }
    }
    stdin.on('data', onData)
  })
}
