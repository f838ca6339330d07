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

/**
 * Every spelling a secret may come back in: as is; URL-encoded as a form encodes it (spaces as +)
 * and as a URL does (%20), with upper- or lower-case hex; JSON-escaped; and base64, alone or as
 * the `id:secret` of HTTP Basic (its tail, which does not depend on the id, once aligned).
 */
export function spellings(secret: string): string[] {
  const form = new URLSearchParams({s: secret}).toString().slice(2)
  const percent = encodeURIComponent(secret)
  const lowerHex = (text: string) => text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())
  const json = JSON.stringify(secret).slice(1, -1)
  const base64: string[] = []
  // Whatever precedes the secret (an id and a colon), the base64 of the secret's bytes, from each
  // of the three alignments, stands in the whole encoding; its first and last characters depend on
  // the neighbours, so the inner run is what is looked for.
  const bytes = Buffer.from(secret, 'utf8')
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64')
    const inner = encoded.slice(Math.ceil((shift * 4) / 3) + 1, -2).replace(/=+$/, '')
    if (inner.length >= 8) base64.push(inner)
  }
  return [...new Set([secret, form, percent, lowerHex(form), lowerHex(percent), json, ...base64])]
}

/** Last line of defence: blanks out known secret values wherever they appear in a text, in every spelling. */
export function scrub(text: string, secrets: Iterable<string | undefined>): string {
  let out = text
  for (const secret of secrets) {
    if (!secret || secret.length < 6) continue
    for (const spelling of spellings(secret)) out = out.split(spelling).join(REDACTED)
  }
  return out
}

/** A user name or password from a URL as given and, when it differs, percent-decoded: both may be printed. None for an empty one. */
export function urlCredential(part: string): string[] {
  if (!part) return []
  try {
    const decoded = decodeURIComponent(part)
    return decoded === part ? [part] : [part, decoded]
  } catch {
    // Not valid percent-encoding: kept as given.
    return [part]
  }
}

/** The variables that may name a proxy, with credentials in its URL. */
const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY', 'all_proxy', 'ALL_PROXY']

/**
 * The secrets the environment holds beside the client secret: the user names and passwords in
 * proxy URLs (as given and decoded) and a client certificate's passphrase. Whatever prints a
 * message blanks them out.
 */
export function environmentSecrets(env: NodeJS.ProcessEnv): string[] {
  const found: string[] = []
  for (const name of PROXY_VARIABLES) {
    const value = env[name]?.trim()
    if (!value) continue
    const userinfo = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([^/@]*)@/i.exec(value)?.[1]
    if (!userinfo) continue
    for (const part of userinfo.split(':')) found.push(...urlCredential(part))
    found.push(userinfo)
  }
  if (env.GATEWAY_CERT_PASSPHRASE) found.push(env.GATEWAY_CERT_PASSPHRASE)
  return [...new Set(found)]
}
