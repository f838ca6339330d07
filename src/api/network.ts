/** What a failed connection means, in a few words, by the error's code (Node's or undici's). */
const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'connection timed out',
  ENETDOWN: 'network down',
  EHOSTDOWN: 'host down',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the answer',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the answer',
  UND_ERR_SOCKET: 'connection closed by the other side',
  UND_ERR_CLOSED: 'connection closed',
}

/** Why a request or a connection failed, from the error or any of its causes. */
export function describeNetworkError(error: unknown): string {
  const seen = new Set<unknown>()
  let current: unknown = error
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current)
    const {code, name} = current as {code?: string; name?: string}
    if (code && NETWORK_CODES[code]) return NETWORK_CODES[code]
    if (name === 'TimeoutError' || name === 'AbortError') return 'timed out'
    current = (current as {cause?: unknown}).cause
  }
  return error instanceof Error ? error.message : String(error)
}
