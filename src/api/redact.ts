const SECRET_KEYS = /^(access_token|refresh_token|client_secret|clientSecret|accessToken|id_token|password)$/i
export const REDACTED = '[REDACTED]'

/** Copies a JSON value with every secret-bearing field replaced. */
export function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson)
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, inner]) => [
        key,
        SECRET_KEYS.test(key) && inner !== undefined && inner !== null ? REDACTED : redactJson(inner),
      ]),
    )
  }
  return value
}

export function redactHeader(name: string, value: string): string {
  const lower = name.toLowerCase()
  if (lower === 'authorization' || lower === 'proxy-authorization') {
    const scheme = value.split(' ')[0]
    return scheme && scheme !== value ? `${scheme} ${REDACTED}` : REDACTED
  }
  if (lower === 'cookie' || lower === 'set-cookie') return REDACTED
  return value
}

/** In a trace, a value longer than this (a base64 QR image) shows its first bytes and its length. */
const TRACE_VALUE_MAX = 120

function shorten(value: unknown): unknown {
  if (typeof value === 'string' && value.length > TRACE_VALUE_MAX) return `${value.slice(0, 48)}… (${value.length} characters)`
  if (Array.isArray(value)) return value.map(shorten)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shorten(inner)]))
  return value
}

/**
 * Redacts a request or answer body for a trace: JSON by key (long values shortened to their first
 * bytes and length), forms by field, anything else as is.
 */
export function redactBody(text: string, contentType = ''): string {
  if (!text) return text
  if (contentType.includes('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(text)
    for (const key of [...form.keys()]) if (SECRET_KEYS.test(key)) form.set(key, REDACTED)
    return form.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED)
  }
  try {
    return JSON.stringify(shorten(redactJson(JSON.parse(text))))
  } catch {
    return text
  }
}

/** Last line of defence: blanks out known secret values wherever they appear in a text. */
export function scrub(text: string, secrets: Iterable<string | undefined>): string {
  let out = text
  for (const secret of secrets) if (secret && secret.length >= 6) out = out.split(secret).join(REDACTED)
  return out
}
