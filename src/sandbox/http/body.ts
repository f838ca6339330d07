import type {IncomingMessage} from 'node:http'

import {jsonDepthExceeds, MAX_JSON_DEPTH} from '../../schemas/depth.js'
import {isJsonObject} from '../../schemas/rules.js'
import {HttpError} from './reply.js'

/** The largest body the sandbox reads. */
export const BODY_LIMIT = 1 << 20

/** How much of a body over the limit is read and thrown away, so that the client sees the 413 rather than a reset. */
export const DRAIN_LIMIT = 16 << 20
/** How long the rest of such a body is waited for before the 413 goes out all the same. */
export const DRAIN_WAIT_MS = 1000

const tooLarge = () => new HttpError(413, 'the body is larger than 1 MiB', {connection: 'close'})

/**
 * The whole body as text; past the limit, declared or not (a chunked body), 413 with the
 * connection closed. The request is left paused, not destroyed, so that what is left of it can be
 * read and thrown away before the answer (see drainRest).
 */
export function readText(req: IncomingMessage): Promise<string> {
  const declared = Number(req.headers['content-length'])
  if (declared > BODY_LIMIT) return Promise.reject(tooLarge())
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const stop = () => {
      req.off('data', take)
      req.off('end', end)
      req.off('error', fail)
    }
    const take = (chunk: Buffer) => {
      size += chunk.length
      if (size <= BODY_LIMIT) {
        chunks.push(chunk)
        return
      }
      stop()
      req.pause()
      reject(tooLarge())
    }
    const end = () => {
      stop()
      resolve(Buffer.concat(chunks).toString('utf8'))
    }
    const fail = (error: Error) => {
      stop()
      reject(error)
    }
    req.on('data', take)
    req.once('end', end)
    req.once('error', fail)
  })
}

/**
 * Reads and throws away what is left of a refused body, up to DRAIN_LIMIT bytes or DRAIN_WAIT_MS,
 * before the answer that closes the connection: a client still sending when the connection closed
 * would see it reset, and never read the answer.
 */
export function drainRest(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve()
  return new Promise((resolve) => {
    let read = 0
    const done = () => {
      clearTimeout(timer)
      req.off('data', count)
      req.off('end', done)
      req.off('error', done)
      req.pause()
      resolve()
    }
    const count = (chunk: Buffer) => {
      read += chunk.length
      if (read > DRAIN_LIMIT) done()
    }
    const timer = setTimeout(done, DRAIN_WAIT_MS)
    req.on('data', count)
    req.once('end', done)
    req.once('error', done)
    req.resume()
  })
}

/** A JSON object from text; `status` for anything else. */
function parseObject(text: string, status: number): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new HttpError(status, 'the body is not valid JSON')
  }
  if (!isJsonObject(value)) throw new HttpError(status, 'the body must be a JSON object')
  // Refused before anything walks it: a body thousands of levels deep would overflow a recursive walk.
  if (jsonDepthExceeds(value)) throw new HttpError(422, `the body nests deeper than ${MAX_JSON_DEPTH} levels`)
  return value
}

/** Reads a JSON object body; anything else is a 422 by default, since the create endpoints document no 400. */
export async function readJson(req: IncomingMessage, status = 422): Promise<Record<string, unknown>> {
  const type = String(req.headers['content-type'] ?? '')
  const text = await readText(req)
  if (!type.includes('json')) throw new HttpError(status, 'the body must be JSON (Content-Type: application/json)')
  return parseObject(text, status)
}

/** The optional body of a sandbox control: none at all (undefined), or a JSON object (422 otherwise), whatever its Content-Type. */
export async function readOptionalJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const text = (await readText(req)).trim()
  return text ? parseObject(text, 422) : undefined
}
