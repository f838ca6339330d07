import {checkBaseUrl, DEFAULT_BASE_URL} from './base-url.js'
import {GatewayClient} from './client.js'
import {ProfileStore, type Credentials, type ProfileSettings} from './store.js'

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
  store: ProfileStore
  client: GatewayClient
  credentials(): Promise<Credentials | undefined>
}

/**
 * Opens a profile: GATEWAY_CLIENT_ID and GATEWAY_CLIENT_SECRET override what the profile stores, so
 * a cron job can run with credentials from its environment and no login at all.
 */
export async function openSession(options: SessionOptions): Promise<Session> {
  const env = options.env ?? process.env
  const store = options.store ?? new ProfileStore()
  const settings = await store.profile(options.profile)
  const explicit = options.baseUrl
  const baseUrl = checkBaseUrl(explicit ?? settings?.baseUrl ?? DEFAULT_BASE_URL)
  const credentials = async (): Promise<Credentials | undefined> => {
    const clientId = env.GATEWAY_CLIENT_ID || settings?.clientId
    const clientSecret = env.GATEWAY_CLIENT_SECRET || (await store.secret(options.profile))
    return clientId && clientSecret ? {clientId, clientSecret} : undefined
  }
  const client = new GatewayClient({
    baseUrl,
    timeoutMs: options.timeoutMs,
    retries: options.retries,
    sleep: options.sleep,
    trace: options.trace,
    tokens: store.tokenStore(options.profile, credentials),
  })
  return {profile: options.profile, settings, baseUrl, store, client, credentials}
}
