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

/**
 * Where a URL's user name and password are, found before the URL is parsed so that no reading of
 * it (ours, a library's, an error's) ever holds them: from after `scheme://` (or the start) to the
 * last `@`, as curl reads a URL whose credentials were not percent-encoded. A value without an `@`
 * after its scheme has none. Over-reaching into a path that holds an `@` only hides more.
 */
export function userinfoSpan(value: string): {start: number; end: number} | undefined {
  const start = /^[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0].length ?? 0
  const end = value.lastIndexOf('@')
  return end >= start ? {start, end} : undefined
}

/** A URL as it may be shown: its user name and password (found as userinfoSpan finds them) replaced. */
export function withoutUserinfo(value: string): string {
  const span = userinfoSpan(value)
  return span ? `${value.slice(0, span.start)}${REDACTED}${value.slice(span.end)}` : value
}

/**
 * The secrets of a URL's credentials, whatever their shape: the whole user-and-password, the user
 * name and the password (split at the first `:`, as URL parsers do), each part between colons, each
 * as given and percent-decoded. scrub() then blanks each in every spelling.
 */
export function userinfoSecrets(value: string): string[] {
  const span = userinfoSpan(value)
  if (!span) return []
  const userinfo = value.slice(span.start, span.end)
  const colon = userinfo.indexOf(':')
  const parts = [userinfo, ...(colon === -1 ? [] : [userinfo.slice(0, colon), userinfo.slice(colon + 1)]), ...userinfo.split(':'), ...userinfo.split('@')]
  return [...new Set(parts.flatMap(urlCredential))]
}

/** How a user name or password must be written in a URL: the rule a refusal states. */
export const USERINFO_RULE = 'percent-encode @ : % # / and spaces in the user name and password (@ is %40, : is %3A, % is %25, # is %23, / is %2F, a space %20)'

/**
 * Why a URL's user name and password cannot be read one way only, or undefined when they can: an
 * unencoded `@`, a second `:`, a `%` not starting a percent-encoding, a `#`, `/`, `?`, `\`, a
 * space or a control character. Refused even where a lenient reading (the last `@`) would parse.
 */
export function userinfoProblem(value: string): string | undefined {
  const span = userinfoSpan(value)
  if (!span) return undefined
  const userinfo = value.slice(span.start, span.end)
  if (userinfo.includes('@')) return 'its user name or password holds an @'
  if ((userinfo.match(/:/g)?.length ?? 0) > 1) return 'its password holds a :'
  if (/%(?![0-9a-f]{2})/i.test(userinfo)) return 'its user name or password holds a % that starts no percent-encoding'
  if (userinfo.includes('#')) return 'its user name or password holds a #'
  if (/[/?\\]/.test(userinfo)) return 'its user name or password holds a /, ? or \\'
  if (/[\s\u0000-\u001f\u007f-\u009f]/.test(userinfo)) return 'its user name or password holds a space or a control character'
  if (/["<>^`{|}[\]]/.test(userinfo)) return 'its user name or password holds a character a URL does not carry as is'
  for (const part of userinfo.split(':')) {
    try {
      decodeURIComponent(part)
    } catch {
      return 'its user name or password holds a percent-encoding that is not UTF-8 text'
    }
  }
  return undefined
}

/** The variables that may name a proxy, with credentials in its URL. */
const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY', 'all_proxy', 'ALL_PROXY']

/**
 * The secrets the environment holds beside the client secret: the user names and passwords in
 * proxy URLs and in GATEWAY_BASE_URL (whatever their shape, as given and decoded) and a client
 * certificate's passphrase. Whatever prints a message blanks them out.
 */
export function environmentSecrets(env: NodeJS.ProcessEnv): string[] {
  const found: string[] = []
  for (const name of [...PROXY_VARIABLES, 'GATEWAY_BASE_URL']) {
    const value = env[name]?.trim()
    if (value) found.push(...userinfoSecrets(value))
  }
  if (env.GATEWAY_CERT_PASSPHRASE) found.push(env.GATEWAY_CERT_PASSPHRASE)
  return [...new Set(found)]
}
