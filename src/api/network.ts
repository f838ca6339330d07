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

/** TLS failures that mean the server answered in plain HTTP (an http:// server reached as https://). */
const PLAIN_HTTP = /wrong version number|packet length too long|http request/i

/** Why a request or a connection failed, from the error or any of its causes. */
export function describeNetworkError(error: unknown): string {
  const seen = new Set<unknown>()
  let current: unknown = error
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current)
    const {code, name, message} = current as {code?: string; name?: string; message?: string}
    if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || (typeof message === 'string' && /SSL routines/.test(message) && PLAIN_HTTP.test(message))) {
      return 'this server does not speak TLS (is it a plain http:// server, such as the sandbox?)'
    }
    if (typeof code === 'string' && code.startsWith('ERR_SSL_')) return `the TLS handshake failed (${code.slice('ERR_SSL_'.length).toLowerCase().replaceAll('_', ' ')})`
    if (code && NETWORK_CODES[code]) return NETWORK_CODES[code]
    if (name === 'TimeoutError' || name === 'AbortError') return 'timed out'
    current = (current as {cause?: unknown}).cause
  }
  return error instanceof Error ? error.message : String(error)
}
