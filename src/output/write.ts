import type {Writable} from 'node:stream'

/**
 * Writes text (or its bytes) to a stream, waiting while its buffer is full (back-pressure), so an export's memory
 * stays flat however fast records arrive. Rejects when the stream has failed, before or while it
 * waits (a stream that failed is closed, and would never drain). The stream is never ended here:
 * it may be stdout.
 */
export async function writeText(out: Writable, text: string | Uint8Array): Promise<void> {
  if (out.errored) return afterItsErrorEvent(out.errored)
  if (out.write(text)) return
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error | null) => {
      out.off('drain', onDrain)
      out.off('error', onError)
      out.off('close', onClose)
      if (error) reject(error)
      else resolve()
    }
    const onDrain = () => done()
    const onError = (error: Error) => done(error)
    const onClose = () => done(out.errored ?? new Error('the output was closed before everything was written'))
    if (out.errored || out.destroyed) {
      afterItsErrorEvent(out.errored ?? new Error('the output was closed before everything was written')).catch(reject)
      return
    }
    out.once('drain', onDrain)
    out.once('error', onError)
    out.once('close', onClose)
  })
}

/**
 * A stream's failure, given once the stream has had its turn to say it: its 'error' event goes out
 * on the next tick, and a listener there (stdout's: src/cli/outcome.ts, guardStdout) speaks first.
 */
function afterItsErrorEvent(error: Error): Promise<never> {
  return new Promise((_resolve, reject) => setImmediate(() => reject(error)))
}
