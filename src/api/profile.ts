import {baseUrlSource, checkBaseUrl, DEFAULT_BASE_URL} from './base-url.js'
import {GatewayClient} from './client.js'
import {AuthError, ConfigError} from './errors.js'
import {ProfileStore, type Credentials, type ProfileSettings} from './store.js'
import {tlsSettings, type TlsSettings} from './tls.js'
import type {StoredToken, TokenStore} from './token.js'

export interface SessionOptions {
  profile: string
  /** An explicit base URL (flag or GATEWAY_BASE_URL); else the profile's, else the sandbox default. */
  baseUrl?: string
  timeoutMs?: number
  /** Retries of a request that may be repeated safely (default 3). */
  retries?: number
  /** How the client waits between attempts. */
  sleep?: (ms: number) => Promise<void>
  trace?: (line: string) => void
  env?: NodeJS.ProcessEnv
  store?: ProfileStore
}

/** A profile opened for use: its settings, where its credentials come from, and a client. */
export interface Session {
  profile: string
  settings?: ProfileSettings
  baseUrl: string
  /** The client id the run authenticates with (the environment's, else the profile's), when known. */
  clientId?: string
  store: ProfileStore
  client: GatewayClient
  /** The CA file and client certificate the client uses (paths, and whether a passphrase is given). */
  tls: TlsSettings
  credentials(): Promise<Credentials | undefined>
}

/**
 * Opens a profile: GATEWAY_CLIENT_ID and GATEWAY_CLIENT_SECRET override what the profile stores, so
 * a cron job can run with credentials from its environment and no login at all.
 *
 * A profile's stored secret and cached token belong to the gateway it was logged in to: a run
 * pointed at another one (--base-url, GATEWAY_BASE_URL) never sends them there. It uses the
 * credentials of its environment, with its token held in memory (never stored under the profile),
 * or is refused (exit 3) when it has none.
 */
export async function openSession(options: SessionOptions): Promise<Session> {
  const env = options.env ?? process.env
  const store = options.store ?? new ProfileStore()
  const settings = await store.profile(options.profile)
  const explicit = options.baseUrl
  // A secret from the environment goes only to a gateway the operator named, never to the default.
  if (explicit === undefined && !settings?.baseUrl && env.GATEWAY_CLIENT_SECRET) {
    throw new ConfigError(`GATEWAY_CLIENT_SECRET is set, and no gateway is named for it: give --base-url URL (or set GATEWAY_BASE_URL), or use a profile that has one (profile "${options.profile}" has none)`, {
      hint: 'There is no default gateway for credentials: for the local sandbox, name it (`--base-url http://127.0.0.1:4010`).',
    })
  }
  const baseUrl = checkBaseUrl(explicit ?? settings?.baseUrl ?? DEFAULT_BASE_URL, baseUrlSource(explicit, env))
  const elsewhere = settings !== undefined && explicit !== undefined && baseUrl !== sameForm(settings.baseUrl)
  // The profile's CA file and client certificate belong to its gateway, as its secret does: another
  // base URL for one run takes them from the environment only.
  const stored: TlsSettings = elsewhere || !settings ? {} : {caFile: settings.caFile, cert: settings.cert, key: settings.key, p12: settings.p12}
  if (!elsewhere && settings && (settings.p12 || settings.key) && !env.GATEWAY_CERT_PASSPHRASE) stored.passphrase = await store.certPassphrase(options.profile)
  const tls = tlsSettings(env, stored)
  const client = (tokens: TokenStore) =>
    new GatewayClient({baseUrl, timeoutMs: options.timeoutMs, retries: options.retries, sleep: options.sleep, trace: options.trace, tokens, env, tls})
  if (elsewhere) {
    const given = env.GATEWAY_CLIENT_ID && env.GATEWAY_CLIENT_SECRET ? {clientId: env.GATEWAY_CLIENT_ID, clientSecret: env.GATEWAY_CLIENT_SECRET} : undefined
    const credentials = async (): Promise<Credentials | undefined> => {
      if (given) return given
      throw new AuthError(
        `profile "${options.profile}" is logged in to ${sameForm(settings.baseUrl)}, and this run points at ${baseUrl}: its stored secret and token go to ${sameForm(settings.baseUrl)} only`,
        {
          hint: `To use ${baseUrl}, log in to it as its own profile (\`gateway login --profile NAME --base-url ${baseUrl} --client-id ...\`, then \`--profile NAME\`), or give this run GATEWAY_CLIENT_ID and GATEWAY_CLIENT_SECRET for it.`,
        },
      )
    }
    return {profile: options.profile, settings, baseUrl, clientId: given?.clientId, store, client: client(memoryTokens(credentials, options.profile)), tls, credentials}
  }
  const credentials = async (): Promise<Credentials | undefined> => {
    const clientId = env.GATEWAY_CLIENT_ID || settings?.clientId
    // The stored secret only with the profile's own settings: it was stored for their gateway.
    const clientSecret = env.GATEWAY_CLIENT_SECRET || (settings ? await store.secret(options.profile) : undefined)
    return clientId && clientSecret ? {clientId, clientSecret} : undefined
  }
  const clientId = env.GATEWAY_CLIENT_ID || settings?.clientId || undefined
  return {profile: options.profile, settings, baseUrl, clientId, store, client: client(store.tokenStore(options.profile, credentials)), tls, credentials}
}

/** A base URL as checkBaseUrl writes it, or as stored when it cannot be read so. */
function sameForm(url: string): string {
  try {
    return checkBaseUrl(url)
  } catch {
    return url
  }
}

/** A token kept for this process only: a run against another gateway than its profile's, or without a writable config folder. */
export function memoryTokens(credentials: () => Promise<Credentials | undefined>, profile?: string): TokenStore {
  let current: StoredToken | undefined
  let chain: Promise<unknown> = Promise.resolve()
  return {
    read: async () => current,
    write: async (token) => {
      current = token
    },
    locked<T>(fn: () => Promise<T>) {
      const next = chain.then(fn, fn)
      chain = next.catch(() => undefined)
      return next
    },
    credentials,
    profile,
  }
}
