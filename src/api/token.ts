/** A token as the cache keeps it: never printed, never logged. */
export interface StoredToken {
  accessToken: string
  /** Expiry, Unix epoch milliseconds. */
  expiresAt: number
  /** Lifetime the gateway announced, seconds. */
  lifetimeSec: number
  scopes: string[]
  obtainedAt: number
  /** Whom and where the token was issued for: a token for other credentials is never reused. */
  clientId: string
  baseUrl: string
  /**
   * The gateway gave no usable lifetime (missing, not a positive finite number, or already past):
   * the token serves the command that got it, is never stored, and the next command asks for another.
   */
  commandOnly?: boolean
  /** When the lifetime was not used as the gateway gave it, what was used instead, in words. */
  lifetimeNote?: string
}

/** The shortest and the longest lifetime a token is kept for, whatever the gateway says. */
export const MIN_LIFETIME_MS = 1000
export const MAX_LIFETIME_MS = 24 * 60 * 60 * 1000

/** A token of a type other than Bearer: the CLI only knows how to send a bearer token. */
export class TokenTypeError extends TypeError {
  constructor(readonly tokenType: string) {
    super(`the gateway issued a token of type "${tokenType.slice(0, 40)}", not Bearer`)
  }
}

/** Where the client reads and renews its token: a profile in the config folder, or memory. */
export interface TokenStore {
  read(): Promise<StoredToken | undefined>
  write(token: StoredToken | undefined): Promise<void>
  /** Serialises renewals across processes. */
  locked<T>(fn: () => Promise<T>): Promise<T>
  credentials(): Promise<{clientId: string; clientSecret: string} | undefined>
  /** The profile's name, for messages. */
  profile?: string
}

/** Renew when less than 60 s, or less than 10% of the token's lifetime, is left. */
export function needsRenewal(token: StoredToken, now: number = Date.now()): boolean {
  const left = token.expiresAt - now
  return left < 60_000 || left < token.lifetimeSec * 100
}

export function isExpired(token: StoredToken, now: number = Date.now()): boolean {
  return token.expiresAt <= now
}

/**
 * Reads a token answer: `expires_in` is a Unix timestamp in seconds, but a value below 10^9 is
 * taken as seconds from now; `expires_in_sec` is the lifetime; `scope` is comma-separated.
 * `token_type`, when given, must be Bearer (any case). The lifetime is kept between 1 s and 24 h;
 * with none usable the token serves one command (`commandOnly`). Either way `lifetimeNote` says so.
 */
export function parseTokenResponse(
  body: unknown,
  issuedFor: {clientId: string; baseUrl: string},
  now: number = Date.now(),
): StoredToken {
  const record = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>
  const accessToken = record.access_token
  if (typeof accessToken !== 'string' || accessToken.length === 0) {
    throw new TypeError('the token answer has no access_token')
  }
  const type = record.token_type
  if (type !== undefined && (typeof type !== 'string' || type.toLowerCase() !== 'bearer')) throw new TokenTypeError(typeof type === 'string' ? type : JSON.stringify(type) ?? String(type))
  // Only numbers count: a text such as "soon" or "300" is not a lifetime the reference describes.
  const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)
  const expiresIn = number(record.expires_in)
  const lifetime = number(record.expires_in_sec)
  let givenMs: number | undefined
  let given = ''
  if (expiresIn !== undefined && expiresIn >= 1e9) [givenMs, given] = [expiresIn * 1000 - now, `expires_in ${expiresIn} (an instant)`]
  else if (expiresIn !== undefined && expiresIn > 0) [givenMs, given] = [expiresIn * 1000, `expires_in ${expiresIn} s`]
  else if (lifetime !== undefined && lifetime > 0) [givenMs, given] = [lifetime * 1000, `expires_in_sec ${lifetime} s`]
  let expiresAt: number
  let lifetimeNote: string | undefined
  let commandOnly: true | undefined
  if (givenMs === undefined || !(givenMs > 0)) {
    const shown = (value: unknown) => (value === undefined ? 'missing' : (JSON.stringify(value) ?? String(value)).slice(0, 40))
    commandOnly = true
    expiresAt = now
    lifetimeNote = `no usable lifetime (expires_in ${shown(record.expires_in)}, expires_in_sec ${shown(record.expires_in_sec)}): the token served this command only, and was not stored`
  } else if (givenMs < MIN_LIFETIME_MS) {
    expiresAt = now + MIN_LIFETIME_MS
    lifetimeNote = `${given} is under 1 s: kept for 1 s`
  } else if (givenMs > MAX_LIFETIME_MS) {
    expiresAt = now + MAX_LIFETIME_MS
    lifetimeNote = `${given} is over 24 h: kept for 24 h`
  } else {
    expiresAt = now + givenMs
  }
  const lifetimeSec = Math.round((expiresAt - now) / 1000)
  const scopes =
    typeof record.scope === 'string'
      ? record.scope
          .split(/[\s,]+/)
          .map((scope) => scope.trim())
          .filter(Boolean)
      : []
  return {accessToken, expiresAt, lifetimeSec, scopes, obtainedAt: now, ...issuedFor, ...(commandOnly ? {commandOnly} : {}), ...(lifetimeNote ? {lifetimeNote} : {})}
}

/** An in-memory store, for scripts that use the client as a library. */
export function memoryTokenStore(credentials: {clientId: string; clientSecret: string}): TokenStore {
  let current: StoredToken | undefined
  let chain: Promise<unknown> = Promise.resolve()
  return {
    async read() {
      return current
    },
    async write(token) {
      current = token
    },
    locked<T>(fn: () => Promise<T>) {
      const next = chain.then(fn, fn)
      chain = next.catch(() => undefined)
      return next
    },
    async credentials() {
      return credentials
    },
  }
}
