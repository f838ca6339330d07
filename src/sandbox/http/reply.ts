import type {ServerResponse} from 'node:http'

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
}

/** What a route answers. The pipeline writes it, so that it can still delay or drop it. */
export interface Reply {
  status: number
  /** A JSON value; none means an empty body. */
  body?: unknown
  /** The body already serialized as JSON, for answers made faster than JSON.stringify would. */
  json?: string | Buffer
  headers?: Record<string, string>
  /** Called once the body has been handed to the system, or will never be (the connection closed first, or the answer was dropped). */
  sent?: () => void
}

/** A refusal at the HTTP level: no route, no token, a body that is not JSON, too large... */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly messages: string | string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(Array.isArray(messages) ? messages.join('; ') : messages)
  }
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({status, body, headers})

export const empty = (status: number, headers?: Record<string, string>): Reply => ({status, headers})

/** The error body the sandbox answers: {statusCode, error, message}, message a text or one per rule. */
export const errorReply = (status: number, messages: string | string[], headers?: Record<string, string>): Reply => ({
  status,
  body: {statusCode: status, error: REASONS[status] ?? 'Error', message: messages},
  headers,
})

export function writeReply(res: ServerResponse, reply: Reply): void {
  const text = reply.json ?? (reply.body === undefined ? undefined : JSON.stringify(reply.body))
  if (text === undefined) {
    res.writeHead(reply.status, reply.headers)
    res.end()
    return
  }
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(typeof text === 'string' ? Buffer.byteLength(text) : text.length),
    ...reply.headers,
  })
  res.end(text)
  if (reply.sent) {
    const sent = reply.sent
    let done = false
    const once = () => {
      if (done) return
      done = true
      sent()
    }
    // 'finish' when the last byte is the system's; 'close' when the connection went first.
    res.once('finish', once)
    res.once('close', once)
  }
}
