import type {ReadStream} from 'node:tty'

/**
 * Key presses from a terminal, one at a time, in raw mode (no echo); the terminal is restored
 * when the consumer stops iterating. `onReady` runs once raw mode is on, before the first key is
 * awaited: a prompt written there cannot have anything typed after it echoed.
 */
export async function* readKeys(stdin: ReadStream, onReady?: () => void): AsyncGenerator<string> {
  stdin.setRawMode(true)
  stdin.setEncoding('utf8')
  stdin.resume()
  const queue: string[] = []
  let wake: (() => void) | undefined
  const onData = (chunk: string) => {
    // An escape sequence (arrow keys) arrives as one chunk: keep it whole.
    if (chunk.startsWith('\u001B') && chunk.length > 1) queue.push(chunk)
    else queue.push(...chunk)
    wake?.()
  }
  stdin.on('data', onData)
  onReady?.()
  try {
    for (;;) {
      while (queue.length > 0) yield queue.shift()!
      await new Promise<void>((resolve) => {
        wake = resolve
      })
      wake = undefined
    }
  } finally {
    stdin.off('data', onData)
    stdin.setRawMode(false)
    stdin.pause()
  }
}
