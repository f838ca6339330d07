import type {IncomingMessage, ServerResponse} from 'node:http'

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
}

/** An error a route throws to answer with the sandbox's error body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly messages: string | string[],
  ) {
    super(Array.isArray(messages) ? messages.join('; ') : messages)
  }
}

export function sendJson(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  if (body === undefined) {
    res.writeHead(status, headers)
    res.end()
    return
  }
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  })
  res.end(text)
}

/** The error body decisions.md fixes: {statusCode, error, message}. */
export function sendError(res: ServerResponse, status: number, messages: string | string[], headers: Record<string, string> = {}): void {
  sendJson(res, status, {statusCode: status, error: REASONS[status] ?? 'Error', message: messages}, headers)
}

const LIMIT = 1 << 20

export async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > LIMIT) throw new HttpError(413, 'the body is larger than 1 MiB')
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** Reads a JSON object body; anything else is a 422, since the create endpoints document no 400. */
export async function readJson(req: IncomingMessage, status = 422): Promise<Record<string, unknown>> {
  const type = String(req.headers['content-type'] ?? '')
  const text = await readText(req)
  if (!type.includes('json')) throw new HttpError(status, 'the body must be JSON (Content-Type: application/json)')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new HttpError(status, 'the body is not valid JSON')
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new HttpError(status, 'the body must be a JSON object')
  return value as Record<string, unknown>
}
