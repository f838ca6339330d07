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
 * Reads a token answer tolerantly: `expires_in` is a Unix timestamp in seconds, but a value below
 * 10^9 is taken as seconds from now; `expires_in_sec` is the lifetime; `scope` is comma-separated.
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
  const expiresIn = Number(record.expires_in)
  const lifetime = Number(record.expires_in_sec)
  let expiresAt: number
  if (Number.isFinite(expiresIn) && expiresIn >= 1e9) expiresAt = expiresIn * 1000
  else if (Number.isFinite(expiresIn) && expiresIn > 0) expiresAt = now + expiresIn * 1000
  else if (Number.isFinite(lifetime) && lifetime > 0) expiresAt = now + lifetime * 1000
  else expiresAt = now + 300_000
  const lifetimeSec = Number.isFinite(lifetime) && lifetime > 0 ? lifetime : Math.max(0, Math.round((expiresAt - now) / 1000))
  const scopes =
    typeof record.scope === 'string'
      ? record.scope
          .split(/[\s,]+/)
          .map((scope) => scope.trim())
          .filter(Boolean)
      : []
  return {accessToken, expiresAt, lifetimeSec, scopes, obtainedAt: now, ...issuedFor}
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
