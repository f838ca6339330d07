/**
 * Typed errors of the gateway client, with HTTP meaning only: the status, the gateway's messages,
 * the body, and whether a retry may help (and after how long). What a program does with them (an
 * exit code, a wording for a person) is its own affair: the CLI maps them in one place.
 */

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
  /** Whether sending the same request again may succeed. */
  retryable?: boolean
  /** How long the gateway asked to wait before a retry (Retry-After), milliseconds. */
  retryAfterMs?: number
  /** How many attempts were made before giving up. */
  attempts?: number
  /** The idempotency key of the request, to send it again safely. */
  idempotencyKey?: string
  /** Nothing of the request left this machine: every attempt failed before it could be sent. */
  notSent?: boolean
}

export class GatewayError extends Error {
  readonly code: string = 'UNEXPECTED'
  readonly status?: number
  readonly body?: unknown
  readonly messages: string[]
  readonly hint?: string
  readonly retryable: boolean
  readonly retryAfterMs?: number
  readonly attempts?: number
  readonly idempotencyKey?: string
  readonly notSent: boolean

  constructor(message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : {cause: options.cause})
    this.name = new.target.name
    this.status = options.status
    this.body = options.body
    this.messages = options.messages ?? []
    this.hint = options.hint
    this.retryable = options.retryable ?? false
    this.retryAfterMs = options.retryAfterMs
    this.attempts = options.attempts
    this.idempotencyKey = options.idempotencyKey
    this.notSent = options.notSent ?? false
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      ...(this.status === undefined ? {} : {status: this.status}),
      ...(this.messages.length > 0 ? {messages: this.messages} : {}),
      ...(this.hint === undefined ? {} : {hint: this.hint}),
      ...(this.attempts === undefined ? {} : {attempts: this.attempts}),
      ...(this.idempotencyKey === undefined ? {} : {idempotencyKey: this.idempotencyKey}),
      ...(this.body === undefined ? {} : {body: this.body}),
    }
  }
}

/** A client setting that cannot be used as given (a base URL that is not https, say): nothing was sent. */
export class ConfigError extends GatewayError {
  override readonly code = 'CONFIG'
}

/** 401 and 403, a missing login, or credentials that cannot renew the token. */
export class AuthError extends GatewayError {
  override readonly code: string = 'AUTH'
}

export class PermissionError extends AuthError {
  override readonly code = 'FORBIDDEN'
}

export class NotFoundError extends GatewayError {
  override readonly code = 'NOT_FOUND'
}

/** The gateway understood the request and refused it (422, or 400 outside the token endpoint). */
export class RejectedError extends GatewayError {
  override readonly code = 'REJECTED'
}

export class RateLimitError extends GatewayError {
  override readonly code = 'RATE_LIMITED'
}

/** 5xx answers, timeouts, refused connections: the gateway could not be reached or failed. */
export class UnavailableError extends GatewayError {
  override readonly code: string = 'UNAVAILABLE'
}

/**
 * An error of this program's own, not of the gateway or the network: a bug, or an option undici
 * refuses. `notSent` when it came before the request left (it is then never retried, by the client
 * or by a replay of the journal); after an answer arrived, the request's outcome is unknown.
 */
export class InternalError extends GatewayError {
  override readonly code = 'INTERNAL'
}

/** The gateway asked for a client certificate that was not given: an authentication failure, not an outage. */
export class CertificateRequiredError extends AuthError {
  override readonly code = 'CERTIFICATE_REQUIRED'
}

/** The gateway refused the client certificate it was shown (a TLS alert, or a web server's page): exit 3, as credentials refused. */
export class CertificateRefusedError extends AuthError {
  override readonly code = 'CERTIFICATE_REFUSED'
}

/**
 * An HTML error page of something between the CLI and the gateway (a firewall's, a web server's
 * rule): a refusal by the network or the gateway, not a judgement of the credentials. Exit 7.
 */
export class RefusedByNetworkError extends UnavailableError {
  override readonly code = 'REFUSED_BY_NETWORK'
}

/** A TLS handshake that failed for a named cause (an untrusted, expired or misnamed certificate): exit 7. */
export class TlsError extends UnavailableError {
  override readonly code = 'TLS'
}

/** The proxy could not be reached, or refused to carry the request: exit 7, the proxy named. */
export class ProxyError extends UnavailableError {
  override readonly code = 'PROXY'
}

/** Certificate checks turned off for a gateway that is not loopback: nothing is sent, exit 3. */
export class InsecureTlsError extends AuthError {
  override readonly code = 'TLS_CHECKS_OFF'
}

/**
 * A 2xx answer to a request that creates a record, without the record: not JSON, or no `id`. The
 * request may well have been carried out, so its outcome is unknown: retry it under its key.
 */
export class NoRecordError extends UnavailableError {
  override readonly code = 'NO_RECORD'
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

/** Reads Retry-After: delay-seconds or an HTTP date, as milliseconds from now. */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim()
  if (!text) return undefined
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000)
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** The statuses after which the same request may well succeed. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504])

/** Builds the typed error for a non-2xx answer. */
export function errorForStatus(
  status: number,
  body: unknown,
  context: string,
  headers: Record<string, string | string[] | undefined> = {},
): GatewayError {
  const messages = messagesOf(body)
  const detail = messages.length > 0 ? `: ${messages.join('; ')}` : ''
  const options: GatewayErrorOptions = {
    status,
    body,
    messages,
    retryable: RETRYABLE_STATUSES.has(status),
    retryAfterMs: parseRetryAfter(headers['retry-after']),
  }
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
