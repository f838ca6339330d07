import {closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import {homedir} from 'node:os'
import {isAbsolute, join} from 'node:path'
import type Conf from 'conf'

import {checkConfigFile, FolderError, folderWritable, requireWritableFolder} from './folder.js'
import {withFileLock} from './lock.js'
import type {StoredToken, TokenStore} from './token.js'

/**
 * Where config, credentials and the token cache live: GATEWAY_CONFIG_DIR, else the XDG config
 * folder ($XDG_CONFIG_HOME when absolute, else ~/.config). Undefined when there is no home to put
 * it in: HOME unset and no passwd entry for the user (a container's bare uid).
 */
export function configDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.GATEWAY_CONFIG_DIR) return env.GATEWAY_CONFIG_DIR
  if (env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)) return join(env.XDG_CONFIG_HOME, 'gateway')
  let home = env.HOME
  if (!home) {
    try {
      home = homedir()
    } catch {
      // No passwd entry: os.homedir() throws (uv_os_get_passwd).
      return undefined
    }
  }
  return home ? join(home, '.config', 'gateway') : undefined
}

export interface ProfileSettings {
  baseUrl: string
  clientId: string
  /** Path of the withdrawal endpoint when the gateway does not serve it at /core/withdraw. */
  withdrawPath?: string
  /** A PEM file of CAs trusted for this gateway (paths only: the files stay where they are). */
  caFile?: string
  /** The client certificate: PEM certificate and key files, or a PKCS#12 file. */
  cert?: string
  key?: string
  p12?: string
}

export interface Credentials {
  clientId: string
  clientSecret: string
}

type Stores = {
  profiles: Conf<Record<string, ProfileSettings>>
  credentials: Conf<Record<string, {clientSecret: string; certPassphrase?: string}>>
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
  /** The config folder; undefined when there is none (nothing stored, nothing can be). */
  readonly dir: string | undefined
  private stores?: Stores

  constructor(dir: string | undefined = configDir()) {
    this.dir = dir
  }

  /** One file's content as conf wrote it; a missing file (or folder) is empty. Never read through a symlink. */
  private read<T>(configName: 'config' | 'credentials' | 'tokens'): Record<string, T> {
    if (this.dir === undefined) return {}
    const path = join(this.dir, `${configName}.json`)
    let fd: number
    try {
      // Never blocking on a FIFO planted in its place: checked to be a regular file once open.
      fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'ENOTDIR') return {}
      if (code === 'ELOOP') checkConfigFile(path)
      throw new FolderError(`cannot read ${path}: ${(error as Error).message}`, {hint: 'The config folder and its files must be readable by you (chmod u+rw).'})
    }
    try {
      if (!fstatSync(fd).isFile()) {
        throw new FolderError(`${path} in the config folder is not a regular file`, {hint: `Remove it (\`rm -r ${path}\`); the file is written anew in its place.`})
      }
      const value = JSON.parse(readFileSync(fd, 'utf8')) as unknown
      return value && typeof value === 'object' ? (value as Record<string, T>) : {}
    } catch (error) {
      if (error instanceof FolderError) throw error
      throw new Error(`cannot read ${path}: ${(error as Error).message}`)
    } finally {
      closeSync(fd)
    }
  }

  /** The folder, made if missing; refused (exit 3) when it cannot be written. */
  private writable(): string {
    return requireWritableFolder(this.dir, 'changing a profile (a login, a logout, its token) needs a writable config folder')
  }

  /**
   * conf writes through a symlink (its atomic write renames onto the link's target): none of the
   * three files may be one when it writes. The folder is the user's alone (checked first), so none
   * can appear between this look and the write.
   */
  private refuseLinks(dir: string): void {
    for (const name of ['config', 'credentials', 'tokens']) checkConfigFile(join(dir, `${name}.json`))
  }

  /** The conf stores, for changes. */
  private async open(): Promise<Stores> {
    const dir = this.writable()
    this.refuseLinks(dir)
    if (this.stores) return this.stores
    const {default: ConfClass} = await import('conf')
    const make = <T extends Record<string, unknown>>(configName: string) =>
      new ConfClass<T>({
        cwd: dir,
        configName,
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: false,
      })
    this.stores = {
      profiles: make<Record<string, ProfileSettings>>('config'),
      credentials: make<Record<string, {clientSecret: string; certPassphrase?: string}>>('credentials'),
      tokens: make<Record<string, StoredToken>>('tokens'),
    }
    return this.stores
  }

  /** Runs fn while no other process changes the store; what a killed writer left behind is swept first. */
  async locked<T>(fn: () => Promise<T>): Promise<T> {
    const dir = this.writable()
    return withFileLock(
      join(dir, '.lock'),
      async () => {
        // Under the lock no write is under way: every temporary file is a leftover.
        this.sweep(0)
        return fn()
      },
      {what: `the config folder (${join(dir, '.lock')})`},
    )
  }

  /**
   * Removes the temporary files a write left when its process was killed between writing and
   * renaming (`tokens.json.tmp-…`, holding a token or a secret), older than `olderThanMs`: outside
   * the lock a younger one may be another process's write under way.
   */
  sweep(olderThanMs = TEMPORARY_MAX_AGE_MS): number {
    let removed = 0
    let names: string[]
    if (this.dir === undefined) return 0
    const dir = this.dir
    try {
      names = readdirSync(dir)
    } catch {
      return 0
    }
    const now = Date.now()
    for (const name of names) {
      if (!TEMPORARY.test(name)) continue
      const path = join(dir, name)
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

  /** The passphrase of the profile's client certificate, when login was given one. */
  async certPassphrase(name: string): Promise<string | undefined> {
    return own(this.read<{certPassphrase?: string}>('credentials'), name)?.certPassphrase
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
  async saveLogin(name: string, settings: ProfileSettings, clientSecret: string, token: StoredToken, certPassphrase?: string): Promise<void> {
    await this.locked(async () => {
      const stores = await this.open()
      const previous = stores.profiles.get(name)
      stores.profiles.set(name, {...previous, ...settings})
      stores.credentials.set(name, {clientSecret, ...(certPassphrase ? {certPassphrase} : {})})
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

  /**
   * The token cache of one profile, as the client consumes it. Without a config folder that can be
   * written (a read-only or missing home), the token is held in memory for this process instead.
   */
  tokenStore(name: string, credentials: () => Promise<Credentials | undefined>): TokenStore {
    let memory: {token?: StoredToken; chain: Promise<unknown>} | undefined
    const inMemory = () => {
      if (memory === undefined && !folderWritable(this.dir)) memory = {chain: Promise.resolve()}
      return memory
    }
    return {
      read: async () => (memory ? memory.token : this.token(name)),
      write: async (token) => {
        const held = inMemory()
        if (held) held.token = token
        else await this.setToken(name, token)
      },
      locked: <T>(fn: () => Promise<T>) => {
        const held = inMemory()
        if (!held) return this.locked(fn)
        const next = held.chain.then(fn, fn)
        held.chain = next.catch(() => undefined)
        return next
      },
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
