// node:fs/promises (with the readline it loads) only when a lock is taken: most runs never take one.
import {constants, promises as fsp, rmSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** True when the lock's holder has died or held it for longer than `staleMs`. */
async function isStale(lockPath: string, staleMs: number): Promise<boolean> {
  try {
    const [text, info] = await Promise.all([fsp.readFile(lockPath, 'utf8'), fsp.stat(lockPath)])
    const pid = Number.parseInt(text, 10)
    if (Number.isInteger(pid) && pid > 0 && !isAlive(pid)) return true
    return Date.now() - info.mtimeMs > staleMs
  } catch {
    // Gone between our attempt and this look, or still being written: try again.
    return false
  }
}

/** This process's own file for each lock: linked to the lock's name to take it (see acquire). */
const ownFiles = new Map<string, Promise<string>>()
/** The own files made, removed when the process exits. */
const made = new Set<string>()
let removingAtExit = false

/** The file `<lock>.<pid>` holding this process's id, made once, removed when the process exits. */
function ownFile(lockPath: string): Promise<string> {
  let own = ownFiles.get(lockPath)
  if (!own) {
    own = (async () => {
      const file = `${lockPath}.${process.pid}`
      // Never through a symlink left in its place.
      await fsp.writeFile(file, String(process.pid), {mode: 0o600, flag: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW})
      made.add(file)
      if (!removingAtExit) {
        removingAtExit = true
        process.once('exit', () => {
          for (const file of made) rmSync(file, {force: true})
        })
      }
      await removeLeftovers(lockPath)
      return file
    })()
    ownFiles.set(lockPath, own)
    own.catch(() => ownFiles.delete(lockPath))
  }
  return own
}

/**
 * Takes the lock: this process's own file, holding its id, is hard-linked to the lock's name, which
 * fails when the lock exists. The lock thus never exists without its holder's id, even when the
 * holder is killed at any point (an empty lock could only be told stale by its age, minutes later).
 * Where the file system has no hard links, the lock is created in place.
 */
async function acquire(lockPath: string): Promise<void> {
  let own: string
  try {
    own = await ownFile(lockPath)
  } catch {
    return acquireInPlace(lockPath)
  }
  try {
    await fsp.link(own, lockPath)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') {
      // The own file went away (its folder was removed and made again): make it anew next time.
      ownFiles.delete(lockPath)
      return acquireInPlace(lockPath)
    }
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EXDEV') return acquireInPlace(lockPath)
    throw error
  }
}

/** The own files that processes killed before they could remove them left beside the lock. */
async function removeLeftovers(lockPath: string): Promise<void> {
  const prefix = `${basename(lockPath)}.`
  const names = await fsp.readdir(dirname(lockPath)).catch(() => [] as string[])
  for (const name of names) {
    const match = /^(\d+)$/.exec(name.startsWith(prefix) ? name.slice(prefix.length) : '')
    if (match && Number(match[1]) !== process.pid && !isAlive(Number(match[1]))) await fsp.rm(join(dirname(lockPath), name), {force: true})
  }
}

async function acquireInPlace(lockPath: string): Promise<void> {
  const handle = await fsp.open(lockPath, 'wx', 0o600)
  try {
    await handle.writeFile(String(process.pid))
  } finally {
    await handle.close()
  }
}

export interface LockOptions {
  /** How long to wait for another process before giving up. */
  waitMs?: number
  /** A lock older than this is taken over even if its holder still runs. */
  staleMs?: number
}

/**
 * Runs `fn` while holding an exclusive lock file, so that several processes started at once (cron
 * jobs, a shell loop) take turns at reading and renewing the token cache instead of racing.
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const waitMs = options.waitMs ?? 60_000
  const staleMs = options.staleMs ?? 120_000
  const deadline = Date.now() + waitMs
  let delay = 10
  for (;;) {
    try {
      await acquire(lockPath)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      if (await isStale(lockPath, staleMs)) {
        await fsp.rm(lockPath, {force: true})
        continue
      }
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for the lock ${lockPath}; remove it if no other gateway process is running`)
      }
      await sleep(delay + Math.random() * delay)
      delay = Math.min(delay * 2, 100)
    }
  }
  try {
    return await fn()
  } finally {
    await fsp.rm(lockPath, {force: true})
  }
}
