import type {Writable} from 'node:stream'

/**
 * Writes text (or its bytes) to a stream, waiting while its buffer is full (back-pressure), so an export's memory
 * stays flat however fast records arrive. Rejects when the stream fails while it waits. The stream
 * is never ended here: it may be stdout.
 */
export async function writeText(out: Writable, text: string | Uint8Array): Promise<void> {
  if (out.write(text)) return
  await new Promise<void>((resolve, reject) => {
    const onDrain = () => {
      out.off('error', onError)
      resolve()
    }
    const onError = (error: Error) => {
      out.off('drain', onDrain)
      reject(error)
    }
    out.once('drain', onDrain)
    out.once('error', onError)
  })
}
