import {mkdirSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'
import type Conf from 'conf'

import {withFileLock} from './lock.js'
import type {StoredToken, TokenStore} from './token.js'

/** Where config, credentials and the token cache live: GATEWAY_CONFIG_DIR, else the XDG config folder. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GATEWAY_CONFIG_DIR) return env.GATEWAY_CONFIG_DIR
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config')
  return join(base, 'gateway')
}

export interface ProfileSettings {
  baseUrl: string
  clientId: string
  /** Path of the withdrawal endpoint when the gateway does not serve it at /core/withdraw. */
  withdrawPath?: string
}

export interface Credentials {
  clientId: string
  clientSecret: string
}

type Stores = {
  profiles: Conf<Record<string, ProfileSettings>>
  credentials: Conf<Record<string, {clientSecret: string}>>
  tokens: Conf<Record<string, StoredToken>>
}

/**
 * The profiles, their secrets and their cached tokens, in three JSON files of mode 0600 inside a
 * folder of mode 0700. Every change goes through conf, under one lock file, so concurrent processes
 * never interleave their read-modify-write cycles. Reads parse the same files directly: conf loads
 * a JSON-schema validator at import (~70 ms), which a cron job that only reads its cached token
 * should not pay on every run.
 */
export class ProfileStore {
  readonly dir: string
  private stores?: Stores

  constructor(dir: string = configDir()) {
    this.dir = dir
  }

  /** One file's content as conf wrote it; a missing file is empty. */
  private read<T>(configName: 'config' | 'credentials' | 'tokens'): Record<string, T> {
    try {
      const value = JSON.parse(readFileSync(join(this.dir, `${configName}.json`), 'utf8')) as unknown
      return value && typeof value === 'object' ? (value as Record<string, T>) : {}
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
      throw new Error(`cannot read ${join(this.dir, `${configName}.json`)}: ${(error as Error).message}`)
    }
  }

  /** The conf stores, for changes. */
  private async open(): Promise<Stores> {
    if (this.stores) return this.stores
    mkdirSync(this.dir, {recursive: true, mode: 0o700})
    const {default: ConfClass} = await import('conf')
    const make = <T extends Record<string, unknown>>(configName: string) =>
      new ConfClass<T>({
        cwd: this.dir,
        configName,
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: false,
      })
    this.stores = {
      profiles: make<Record<string, ProfileSettings>>('config'),
      credentials: make<Record<string, {clientSecret: string}>>('credentials'),
      tokens: make<Record<string, StoredToken>>('tokens'),
    }
    return this.stores
  }

  /** Runs fn while no other process changes the store; what a killed writer left behind is swept first. */
  async locked<T>(fn: () => Promise<T>): Promise<T> {
    mkdirSync(this.dir, {recursive: true, mode: 0o700})
    return withFileLock(join(this.dir, '.lock'), async () => {
      // Under the lock no write is under way: every temporary file is a leftover.
      this.sweep(0)
      return fn()
    })
  }

  /**
   * Removes the temporary files a write left when its process was killed between writing and
   * renaming (`tokens.json.tmp-…`, holding a token or a secret), older than `olderThanMs`: outside
   * the lock a younger one may be another process's write under way.
   */
  sweep(olderThanMs = TEMPORARY_MAX_AGE_MS): number {
    let removed = 0
    let names: string[]
    try {
      names = readdirSync(this.dir)
    } catch {
      return 0
    }
    const now = Date.now()
    for (const name of names) {
      if (!TEMPORARY.test(name)) continue
      const path = join(this.dir, name)
      try {
        if (olderThanMs > 0 && now - statSync(path).mtimeMs < olderThanMs) continue
        rmSync(path, {force: true})
        removed += 1
      } catch {
        // Gone already, or not ours to remove: the next sweep tries again.
      }
    }
    return removed
  }

  /** Every profile that has settings, a secret or a token. */
  async names(): Promise<string[]> {
    const names = new Set([
      ...Object.keys(this.read<ProfileSettings>('config')),
      ...Object.keys(this.read<{clientSecret: string}>('credentials')),
      ...Object.keys(this.read<StoredToken>('tokens')),
    ])
    return [...names].sort()
  }

  async profile(name: string): Promise<ProfileSettings | undefined> {
    return own(this.read<ProfileSettings>('config'), name)
  }

  async secret(name: string): Promise<string | undefined> {
    return own(this.read<{clientSecret: string}>('credentials'), name)?.clientSecret
  }

  async token(name: string): Promise<StoredToken | undefined> {
    return own(this.read<StoredToken>('tokens'), name)
  }

  /** Call inside `locked`. */
  async setToken(name: string, token: StoredToken | undefined): Promise<void> {
    const {tokens} = await this.open()
    if (token) tokens.set(name, token)
    else tokens.delete(name)
  }

  /** Saves a successful login: settings, secret and the token it obtained. */
  async saveLogin(name: string, settings: ProfileSettings, clientSecret: string, token: StoredToken): Promise<void> {
    await this.locked(async () => {
      const stores = await this.open()
      const previous = stores.profiles.get(name)
      stores.profiles.set(name, {...previous, ...settings})
      stores.credentials.set(name, {clientSecret})
      stores.tokens.set(name, token)
    })
  }

  /** Forgets the profile's settings, secret and token. Answers whether there was anything to forget. */
  async forget(name: string): Promise<boolean> {
    return this.locked(async () => {
      const stores = await this.open()
      const existed = stores.profiles.has(name) || stores.credentials.has(name) || stores.tokens.has(name)
      stores.profiles.delete(name)
      stores.credentials.delete(name)
      stores.tokens.delete(name)
      return existed
    })
  }

  /** The token cache of one profile, as the client consumes it. */
  tokenStore(name: string, credentials: () => Promise<Credentials | undefined>): TokenStore {
    return {
      read: () => this.token(name),
      write: (token) => this.setToken(name, token),
      locked: (fn) => this.locked(fn),
      credentials,
      profile: name,
    }
  }
}

/** The temporary files conf's atomic writes make beside their targets. */
const TEMPORARY = /^(config|credentials|tokens)\.json\.tmp-/
/** Outside the lock, a temporary file younger than this may be a write under way. */
export const TEMPORARY_MAX_AGE_MS = 60_000

/** A profile's entry, never one inherited from Object.prototype ("constructor", "__proto__"). */
function own<T>(record: Record<string, T>, name: string): T | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined
}
