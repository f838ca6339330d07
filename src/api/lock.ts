import {open, readFile, rm, stat} from 'node:fs/promises'

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
    const [text, info] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)])
    const pid = Number.parseInt(text, 10)
    if (Number.isInteger(pid) && pid > 0 && !isAlive(pid)) return true
    return Date.now() - info.mtimeMs > staleMs
  } catch {
    // Gone between our attempt and this look, or still being written: try again.
    return false
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
      const handle = await open(lockPath, 'wx', 0o600)
      try {
        await handle.writeFile(String(process.pid))
      } finally {
        await handle.close()
      }
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      if (await isStale(lockPath, staleMs)) {
        await rm(lockPath, {force: true})
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
    await rm(lockPath, {force: true})
  }
}
