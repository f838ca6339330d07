/**
 * What a failed request means, by its cause, in one place: a failure of the network (the gateway
 * could not be reached, or the connection failed under the request), or an error of this program's
 * own. Decided by the error codes of Node and undici along the error's chain of causes, never by
 * "anything thrown": only a network-level failure is the gateway being unavailable.
 *
 * - `not-sent`: the connection failed before the request could leave (refused, name lookup, no
 *   route, connect timeout, a failed TLS handshake): nothing reached the gateway.
 * - `maybe-sent`: the connection failed under the request or its answer (reset, closed, timed out,
 *   an answer cut short or not HTTP): the gateway may have received it.
 * - `certificate-required`: the gateway asked for a client certificate that was not given (an
 *   authentication failure, not an outage). Detection is `certificateRequired` below.
 * - `internal`: not a network failure. An error of this program's own (a bug, an option undici
 *   refuses) raised while the request was being built and handed to undici, before it left.
 */
export type FailureKind = 'not-sent' | 'maybe-sent' | 'certificate-required' | 'internal'

export interface Failure {
  kind: FailureKind
  /** The code that decided it (Node's or undici's), when there was one. */
  code?: string
  /** In a few words, for messages: "connection refused", "host not found". */
  reason: string
}

/** Network failures after which nothing reached the gateway, with how they are said. */
const NOT_SENT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed',
  EAI_FAIL: 'host lookup failed',
  EAI_NONAME: 'host not found',
  EAI_NODATA: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network down',
  EHOSTDOWN: 'host down',
  EADDRNOTAVAIL: 'no local address to connect from',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  ERR_SOCKET_CONNECTION_TIMEOUT: 'connection timed out',
  ERR_SOCKET_CLOSED_BEFORE_CONNECTION: 'connection closed before it was made',
  ERR_TLS_HANDSHAKE_TIMEOUT: 'the TLS handshake timed out',
}

/** Network failures under a request that may have been sent, or its answer, with how they are said. */
const MAYBE_SENT: Record<string, string> = {
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ECONNABORTED: 'connection aborted',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the answer',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the answer',
  UND_ERR_SOCKET: 'connection closed by the other side',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_DESTROYED: 'connection closed',
  UND_ERR_INFO: 'connection closed',
  UND_ERR_ABORTED: 'the request was abandoned',
  UND_ERR_ABORT: 'the request was abandoned',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the answer was cut short',
  UND_ERR_RES_EXCEEDED_MAX_SIZE: 'the answer was too large',
  UND_ERR_HEADERS_OVERFLOW: "the answer's headers were too large",
  ERR_STREAM_PREMATURE_CLOSE: 'the answer was cut short',
  ERR_SOCKET_CLOSED: 'connection closed',
  ERR_STREAM_DESTROYED: 'connection closed',
}

/**
 * Certificate checks that fail the TLS handshake (OpenSSL's verify codes, as Node reports them):
 * the request was never written.
 */
const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
])

/** Codes that wrap another failure, named by its cause instead. */
const WRAPPERS = new Set(['UND_ERR', 'UND_ERR_REQ_RETRY'])

/**
 * Whether the gateway asked for a client certificate this program did not give: the TLS alert
 * that says so (TLS 1.3). The place to recognise more of the ways a server refuses a connection
 * without one.
 */
export function certificateRequired(code: string | undefined, message: string): boolean {
  return code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' || /alert certificate required/i.test(message)
}

/** A failed TLS handshake, by its code: nothing was sent. */
function tlsHandshake(code: string): boolean {
  return code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code === 'EPROTO' || CERTIFICATE_CODES.has(code)
}

/**
 * What a failed request means (see FailureKind), from the error or any of its causes: the first
 * error along the chain with a code that names a network failure decides it; a timeout or an
 * abort of the request's own deadline is a timeout; an answer that is not HTTP is a broken answer.
 * Anything else is an error of this program's own.
 */
export function classifyFailure(error: unknown): Failure {
  const seen = new Set<unknown>()
  let current: unknown = error
  let retried = false
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current)
    const {code: raw, name, message: rawMessage, syscall} = current as {code?: unknown; name?: unknown; message?: unknown; syscall?: unknown}
    if (raw === 'UND_ERR_REQ_RETRY') retried = true
    const code = typeof raw === 'string' && !WRAPPERS.has(raw) ? raw : undefined
    const message = typeof rawMessage === 'string' ? rawMessage : ''
    if (certificateRequired(code, message)) return {kind: 'certificate-required', code, reason: 'the gateway asks for a client certificate, and none was given'}
    if (code !== undefined) {
      if (Object.hasOwn(NOT_SENT, code)) return {kind: 'not-sent', code, reason: NOT_SENT[code]}
      if (Object.hasOwn(MAYBE_SENT, code)) return {kind: 'maybe-sent', code, reason: MAYBE_SENT[code]}
      if (tlsHandshake(code)) return {kind: 'not-sent', code, reason: tlsReason(code, message)}
      // The answer was not HTTP (llhttp's errors): the request was sent, and what came back is broken.
      if (code.startsWith('HPE_')) return {kind: 'maybe-sent', code, reason: 'the answer is not valid HTTP'}
      // Any other failure of a socket call: connecting failed before anything left; else the connection failed under the request.
      if (typeof syscall === 'string') {
        const connecting = syscall === 'connect' || syscall === 'getaddrinfo'
        return {kind: connecting ? 'not-sent' : 'maybe-sent', code, reason: `${connecting ? 'connecting failed' : 'the connection failed'} (${code})`}
      }
    }
    if (name === 'HTTPParserError') return {kind: 'maybe-sent', code, reason: 'the answer is not valid HTTP'}
    // The request's own deadline (an AbortSignal's timeout), or its abort.
    if (name === 'TimeoutError' || name === 'AbortError') return {kind: 'maybe-sent', code, reason: 'timed out'}
    current = (current as {cause?: unknown}).cause
  }
  // undici's retry handler, giving up on an answer it had begun to read (cut short, and not to be
  // resumed): the request was sent.
  if (retried) return {kind: 'maybe-sent', code: 'UND_ERR_REQ_RETRY', reason: 'the answer was cut short'}
  const {name, message} = (error ?? {}) as {name?: unknown; message?: unknown}
  const code = (error as {code?: unknown} | undefined)?.code
  return {
    kind: 'internal',
    ...(typeof code === 'string' ? {code} : {}),
    reason: `${typeof name === 'string' ? name : 'Error'}${typeof code === 'string' ? ` ${code}` : ''}: ${typeof message === 'string' ? message : String(error)}`,
  }
}

/** TLS failures that mean the server answered in plain HTTP (an http:// server reached as https://). */
const PLAIN_HTTP = /wrong version number|packet length too long|http request/i

function tlsReason(code: string, message: string): string {
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || (/SSL routines/.test(message) && PLAIN_HTTP.test(message))) {
    return 'this server does not speak TLS (is it a plain http:// server, such as the sandbox?)'
  }
  if (code.startsWith('ERR_SSL_')) return `the TLS handshake failed (${code.slice('ERR_SSL_'.length).toLowerCase().replaceAll('_', ' ')})`
  return `the TLS handshake failed (${code})`
}

/** Why a request or a connection failed, in a few words, from the error or any of its causes. */
export function describeNetworkError(error: unknown): string {
  const failure = classifyFailure(error)
  if (failure.kind !== 'internal') return failure.reason
  return error instanceof Error ? error.message : String(error)
}
