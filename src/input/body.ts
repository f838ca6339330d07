import type {IO} from '../cli/context.js'
import {UsageError} from '../cli/errors.js'
import {jsonDepthExceeds, MAX_JSON_DEPTH} from '../schemas/depth.js'

/** The largest body the gateway takes (the sandbox answers 413 beyond it). */
const MAX_BODY_BYTES = 1 << 20

/** Reads --body: a JSON object from a file, or from stdin with "-". */
export async function readJsonBody(source: string, io: IO, flag = '--body'): Promise<Record<string, unknown>> {
  let text: string
  try {
    if (source === '-') {
      const {readStdin} = await import('../output/prompt.js')
      text = await readStdin(io)
    } else {
      const {readFile} = await import('node:fs/promises')
      text = await readFile(source, 'utf8')
    }
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${source}: ${(error as Error).message}`)
  }
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw new UsageError(`${flag}: ${source} is over 1 MiB: a request body is at most ${MAX_BODY_BYTES} bytes`)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`${flag}: ${source} is not valid JSON (${(error as Error).message})`)
  }
  if (jsonDepthExceeds(value)) throw new UsageError(`${flag}: ${source} nests deeper than ${MAX_JSON_DEPTH} levels: no request body is that deep`)
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`${flag}: ${source} must hold a JSON object`)
  return value as Record<string, unknown>
}
