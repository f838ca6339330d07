/** Asks on stderr and reads one line from the terminal, echoing nothing when `hidden`. */
export async function prompt(question: string, options: {hidden?: boolean} = {}): Promise<string> {
  const {stdin, stderr} = process
  stderr.write(question)
  if (!options.hidden || !stdin.isTTY) {
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
  return new Promise<string>((resolve, reject) => {
    let value = ''
    stdin.setRawMode(true)
    stdin.resume()
    stdin.setEncoding('utf8')
    const done = (error?: Error) => {
      stdin.setRawMode(false)
      stdin.pause()
      stdin.off('data', onData)
      stderr.write('\n')
      if (error) reject(error)
      else resolve(value)
    }
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return done()
        if (char === '\u0003') return done(Object.assign(new Error('interrupted'), {code: 'EINTERRUPTED'}))
        if (char === '\u007F' || char === '\b') value = value.slice(0, -1)
        else if (char >= ' ') value += char
      }
    }
    stdin.on('data', onData)
  })
}
