import type {IncomingMessage} from 'node:http'

import {isJsonObject} from '../../schemas/rules.js'
import {HttpError} from './reply.js'

/** The largest body the sandbox reads. */
export const BODY_LIMIT = 1 << 20

const tooLarge = () => new HttpError(413, 'the body is larger than 1 MiB', {connection: 'close'})

/** The whole body as text; 413 (and the connection closed) past the limit, before reading it when the length says so. */
export async function readText(req: IncomingMessage): Promise<string> {
  const declared = Number(req.headers['content-length'])
  if (declared > BODY_LIMIT) throw tooLarge()
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > BODY_LIMIT) throw tooLarge()
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
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
