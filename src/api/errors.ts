/**
 * Typed errors of the gateway client. Each carries the process exit code the CLI maps it to, so a
 * script using this module as a library can branch on the class or on `exitCode` alike.
 */

export const ExitCode = {
  Ok: 0,
  Unexpected: 1,
  Usage: 2,
  Auth: 3,
  NotFound: 4,
  Rejected: 5,
  RateLimited: 6,
  Unavailable: 7,
  WatchTimeout: 8,
  WatchSettled: 9,
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

export interface GatewayErrorOptions {
  /** HTTP status of the answer that caused the error, when there was one. */
  status?: number
  /** The answer's body as it came: parsed JSON when it was JSON, otherwise text. */
  body?: unknown
  /** The gateway's own messages, read out of the body. */
  messages?: string[]
  cause?: unknown
  /** Extra lines for a person: what to do next. */
  hint?: string
}

export class GatewayError extends Error {
  readonly exitCode: ExitCode = ExitCode.Unexpected
  readonly code: string = 'UNEXPECTED'
  readonly status?: number
  readonly body?: unknown
  readonly messages: string[]
  readonly hint?: string

  constructor(message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : {cause: options.cause})
    this.name = new.target.name
    this.status = options.status
    this.body = options.body
    this.messages = options.messages ?? []
    this.hint = options.hint
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      exitCode: this.exitCode,
      message: this.message,
      ...(this.status === undefined ? {} : {status: this.status}),
      ...(this.messages.length > 0 ? {messages: this.messages} : {}),
      ...(this.hint === undefined ? {} : {hint: this.hint}),
      ...(this.body === undefined ? {} : {body: this.body}),
    }
  }
}

/** Bad input: caught before anything was sent. */
export class UsageError extends GatewayError {
  override readonly exitCode = ExitCode.Usage
  override readonly code = 'USAGE'
}

/** 401 and 403, a missing login, or credentials that cannot renew the token. */
export class AuthError extends GatewayError {
  override readonly exitCode = ExitCode.Auth
  override readonly code: string = 'AUTH'
}

export class PermissionError extends AuthError {
  override readonly code = 'FORBIDDEN'
}

export class NotFoundError extends GatewayError {
  override readonly exitCode = ExitCode.NotFound
  override readonly code = 'NOT_FOUND'
}

/** The gateway understood the request and refused it (422, or 400 outside the token endpoint). */
export class RejectedError extends GatewayError {
  override readonly exitCode = ExitCode.Rejected
  override readonly code = 'REJECTED'
}

export class RateLimitError extends GatewayError {
  override readonly exitCode = ExitCode.RateLimited
  override readonly code = 'RATE_LIMITED'
}

/** 5xx answers, timeouts, refused connections: the gateway could not be reached or failed. */
export class UnavailableError extends GatewayError {
  override readonly exitCode = ExitCode.Unavailable
  override readonly code = 'UNAVAILABLE'
}

/** Reads the gateway's messages out of an error body of any of the shapes gateways use. */
export function messagesOf(body: unknown): string[] {
  if (typeof body === 'string') {
    const text = body.trim()
    return text ? [text.length > 300 ? `${text.slice(0, 300)}…` : text] : []
  }
  if (!body || typeof body !== 'object') return []
  const record = body as Record<string, unknown>
  for (const key of ['message', 'messages', 'errors', 'error_description', 'detail', 'error']) {
    const value = record[key]
    if (typeof value === 'string' && value.trim()) return [value.trim()]
    if (Array.isArray(value)) {
      const list = value.flatMap((item) => {
        if (typeof item === 'string') return [item]
        if (item && typeof item === 'object') {
          const inner = item as Record<string, unknown>
          const text = inner.message ?? inner.msg ?? inner.detail
          if (typeof text === 'string') return [inner.field ? `${String(inner.field)}: ${text}` : text]
          return [JSON.stringify(item)]
        }
        return []
      })
      if (list.length > 0) return list
    }
  }
  return []
}

/** Builds the typed error for a non-2xx answer. */
export function errorForStatus(status: number, body: unknown, context: string): GatewayError {
  const messages = messagesOf(body)
  const detail = messages.length > 0 ? `: ${messages.join('; ')}` : ''
  const options = {status, body, messages}
  if (status === 401) return new AuthError(`${context} was refused: invalid credentials or token (401)${detail}`, options)
  if (status === 403) return new PermissionError(`${context} is not permitted for these credentials (403)${detail}`, options)
  if (status === 404) return new NotFoundError(`${context}: not found (404)${detail}`, options)
  if (status === 429) return new RateLimitError(`${context}: rate limited by the gateway (429)${detail}`, options)
  if (status === 400 || status === 409 || status === 422) {
    return new RejectedError(`${context} was rejected by the gateway (${status})${detail}`, options)
  }
  if (status >= 500) return new UnavailableError(`${context}: the gateway failed (${status})${detail}`, options)
  return new GatewayError(`${context}: unexpected answer ${status}${detail}`, options)
}

/** A watch ran out of time before the record reached the awaited status. */
export class WatchTimeoutError extends GatewayError {
  override readonly exitCode = ExitCode.WatchTimeout
  override readonly code = 'WATCH_TIMEOUT'
}

/** A watched record settled in a final status other than the awaited one. */
export class WatchSettledError extends GatewayError {
  override readonly exitCode = ExitCode.WatchSettled
  override readonly code = 'WATCH_SETTLED'
}
