import {constants, lstatSync, promises as fsp, readFileSync, readlinkSync, type Stats, unlinkSync} from 'node:fs'
import {createConnection, createServer, type Server, type Socket} from 'node:net'
import {basename, dirname, join} from 'node:path'

import {UnavailableError} from './errors.js'
import {FolderError} from './folder.js'

/**
 * An exclusive lock between the processes that share a config folder (cron jobs, a shell loop, two
 * containers on one volume), that is never taken from a holder that may be alive, however long it
 * is paused (Ctrl-Z, SIGSTOP, a suspended VM) and whatever PID namespace it runs in.
 *
 * The lock is a Unix domain socket listening at the lock's path (made under a name of its own, then
 * hard-linked to the lock's name, which fails when the name is taken). The kernel keeps it while its
 * holder lives, stopped or not (a connection is still accepted), and refuses connections the moment
 * the holder dies: a refused connection is the only proof of death accepted, and it holds across
 * PID namespaces over a shared folder. A holder answers each connection with its pid, command and
 * since when, so a waiting command can name it. A socket left by a dead holder is removed by one
 * breaker at a time (under a second socket, `<lock>.break`), after its refusal is seen again.
 *
 * Where a socket cannot be made (a path longer than a socket's address takes, a file system without
 * sockets), the lock is a file made whole and linked into place, holding pid, PID namespace and boot
 * id. It is broken only when the holder ran in this PID namespace and since this boot and its pid
 * is gone; otherwise never automatically, and a waiting command says how to remove it by hand.
 *
 * A lock is released only by its owner: it unlinks the path while still listening (so nobody can
 * take the path for dead meanwhile), and only when the path is still its own inode.
 *
 * A dead holder's lock (or a dead breaker's) is removed only by the one remover of the moment: a
 * process holding `<lock>.remover`, a lock the kernel keeps on that file (SQLite's exclusive lock,
 * an fcntl lock) and drops when its holder dies, so it never needs removing itself. A remover looks
 * again before it unlinks (the same device and inode, still refusing or still gone), and nobody
 * else can change the path meanwhile: a taker only makes a missing path, and a holder removes only
 * its own live lock. Each command that takes the lock also sweeps, as the remover, what a crash left
 * of its own naming: a socket bound under its own name (`<lock>.<hex>`, killed between listen and
 * link) that refuses connections, and a file lock's copy (`<lock>.<pid>.<hex>`) whose pid is gone.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The longest socket path Linux takes (sun_path, less its closing NUL). */
const MAX_SOCKET_PATH = process.platform === 'linux' ? 107 : 103

/** Who holds a lock, as it says or as its file says. */
export interface LockHolder {
  pid?: number
  command?: string
  since?: string
  /** The holder did not answer (paused, or very busy): it is alive, as the kernel still accepts connections for it. */
  silent?: boolean
  /** A lock file that is never broken automatically: the way to remove it by hand is said. */
  manual?: boolean
}

/** A lock held by another process for longer than the wait: exit 7 (nothing was sent). */
export class LockBusyError extends UnavailableError {
  override readonly code = 'LOCK_HELD'
}

/** A lock that could not be written (a full disk): nothing was sent, and nothing is left behind. */
export class LockWriteError extends Error {
  readonly code = 'LOCK_UNWRITABLE'
}

export interface LockOptions {
  /** How long to wait for another process before giving up (default 60 s). */
  waitMs?: number
  /** What the lock guards, for messages: "the journal". */
  what?: string
  /** Told once, after `noticeMs` of waiting, who holds the lock. */
  onWait?: (line: string) => void
  /** How long to wait before `onWait` is told (default 1 s). */
  noticeMs?: number
}

/** The command this process runs, as a waiter is told: "gateway withdraw". */
function commandLine(): string {
  const words = [basename(process.argv[1] ?? 'gateway').replace(/\.(c|m)?js$/, '')]
  if (words[0] === 'run') words[0] = 'gateway'
  for (const word of process.argv.slice(2)) {
    if (word.startsWith('-') || words.length >= 4) break
    words.push(word)
  }
  return words.join(' ')
}

/** This process's PID namespace and boot, which make a pid meaningful: undefined where unknown. */
function procIdentity(): {ns?: string; boot?: string} {
  let ns: string | undefined
  let boot: string | undefined
  try {
    ns = readlinkSync('/proc/self/ns/pid')
  } catch {
    // No /proc: a pid in a lock file can never be checked.
  }
  try {
    boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
  } catch {
    // As above.
  }
  return {ns, boot}
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** How a holder is named: "pid 4242 (gateway withdraw, since 2026-11-27T10:00:00.000Z)". */
export function holderText(holder: LockHolder | undefined): string {
  if (!holder || holder.pid === undefined) return holder?.silent ? 'a process that does not answer (paused?)' : 'another process'
  const about = [holder.command, holder.since ? `since ${holder.since}` : undefined].filter(Boolean).join(', ')
  return `pid ${holder.pid}${about ? ` (${about})` : ''}${holder.silent ? ', which does not answer (paused?)' : ''}`
}

type Probe = {state: 'alive'; holder: LockHolder} | {state: 'dead'} | {state: 'gone'}

/**
 * Connects to the socket at `path`: refused is a dead holder (the only proof accepted), a missing
 * path is gone, anything else is a holder that may be alive, named by what it answers.
 */
function probe(path: string, answerMs = 500): Promise<Probe> {
  return new Promise((resolve) => {
    let text = ''
    let settled = false
    const socket: Socket = createConnection(path)
    const finish = (result: Probe) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(result)
    }
    const named = (silent: boolean): Probe => {
      try {
        const info = JSON.parse(text.slice(0, text.indexOf('\n'))) as {pid?: unknown; command?: unknown; since?: unknown; token?: unknown}
        return {
          state: 'alive',
          holder: {
            pid: typeof info.pid === 'number' ? info.pid : undefined,
            command: typeof info.command === 'string' ? info.command : undefined,
            since: typeof info.since === 'string' ? info.since : undefined,
            ...(typeof info.token === 'string' ? {token: info.token} : {}),
          },
        }
      } catch {
        return {state: 'alive', holder: {silent}}
      }
    }
    const timer = setTimeout(() => finish(named(true)), answerMs)
    socket.setEncoding('utf8')
    socket.on('connect', () => socket.write(`${JSON.stringify({pid: process.pid, command: commandLine(), waiting: true})}\n`))
    socket.on('data', (chunk: string) => {
      text += chunk
      if (text.includes('\n')) finish(named(false))
    })
    socket.on('end', () => finish(named(true)))
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') finish({state: 'dead'})
      else if (error.code === 'ENOENT') finish({state: 'gone'})
      else if (error.code === 'EPIPE' || error.code === 'ECONNRESET') finish(named(true))
      // EAGAIN (a full backlog: a paused holder), EACCES and the rest: it may be alive.
      else finish({state: 'alive', holder: {silent: true}})
    })
  })
}

/** A lock this process holds. */
interface Held {
  path: string
  /** The path's file as this lock made it: inode and change time (an inode number may be reused). */
  ino: number
  ctimeMs: number
  server?: Server
  /** What the socket answers who connects: proves the path is still this lock's. */
  token?: string
}

/** Where a socket lock's holder writes who it is, for waiters when it cannot answer (stopped). */
const infoPath = (path: string) => `${path}.holder`

/** Locks held, released by their owner at exit too (the kernel releases a socket's, the path stays). */
const holding = new Set<Held>()
let exitHook = false

function remember(held: Held): void {
  holding.add(held)
  if (!exitHook) {
    exitHook = true
    process.once('exit', () => {
      for (const lock of holding) unlinkIfOwn(lock)
    })
  }
}

/** Removes the lock's path only when it is still this lock's inode. */
function unlinkIfOwn(held: Held): void {
  try {
    const now = lstatSync(held.path)
    if (now.ino === held.ino && now.ctimeMs === held.ctimeMs && now.isSocket() === (held.server !== undefined)) unlinkSync(held.path)
  } catch {
    // Already gone.
  }
}

async function release(held: Held): Promise<void> {
  holding.delete(held)
  // Its note of who holds it first, while the lock is still held (the next holder writes its own).
  if (held.server) await fsp.rm(infoPath(held.path), {force: true}).catch(() => undefined)
  // Unlinked while still listening: nobody can take the path for a dead holder's in between. A
  // socket is asked first whether it is this one (an inode number may be reused within a tick).
  if (!held.server) unlinkIfOwn(held)
  else {
    const seen = await probe(held.path, 2000)
    if (seen.state === 'alive' && (seen.holder as {token?: string}).token === held.token) unlinkIfOwn(held)
  }
  if (held.server) closeServer(held.server)
}

/** Stops listening at once: the connections of waiters asking who holds it are cut too. */
function closeServer(server: Server): void {
  for (const socket of (server as Server & {open?: Set<Socket>}).open ?? []) socket.destroy()
  server.close()
}

/** Paths where a socket could not be made: the file lock is used there. */
const noSockets = new Set<string>()

/** Listens at `path`: the server, or 'in-use' when something is there. Made with mode 0600. */
function listen(path: string, info: Record<string, unknown>): Promise<Server | 'in-use'> {
  const line = `${JSON.stringify(info)}\n`
  const open = new Set<Socket>()
  const server = createServer((socket) => {
    open.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => open.delete(socket))
    socket.unref()
    socket.end(line)
  })
  ;(server as Server & {open?: Set<Socket>}).open = open
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve('in-use') : reject(error)))
    let mask: number | undefined
    try {
      // A socket is made with the process's umask: the folder check wants no group or other write.
      mask = process.umask(0o077)
    } catch {
      // Not allowed here (a worker thread): chmod below.
    }
    try {
      server.listen({path, exclusive: true}, () => {
        server.unref()
        if (mask === undefined) fsp.chmod(path, 0o600).then(() => resolve(server), reject)
        else resolve(server)
      })
    } finally {
      if (mask !== undefined) process.umask(mask)
    }
  })
}

/**
 * Holds a socket at `path`, or answers why not: 'in-use' (a holder, or what seems one), or
 * 'no-socket' (none can be made here). The socket listens under a name of its own first and is then
 * hard-linked to the lock's name, which fails when the name is taken: the lock never appears before
 * it listens (so it is never seen refusing while its holder lives), and closing it never removes
 * the lock's name (libuv unlinks the name a socket was bound to when it closes).
 */
async function holdSocket(path: string): Promise<Held | 'in-use' | 'no-socket'> {
  // node:crypto only when a lock is taken: a command refused before it takes one never loads it.
  const {randomUUID} = await import('node:crypto')
  const bound = join(dirname(path), `${basename(path)}.${randomUUID().slice(0, 8)}`)
  // A lock is a socket only where its breaker's socket fits too (`<path>.break.<hex>`, the longer
  // name): a dead holder's socket is then removed under the breaker, by one process at a time. Where
  // only the shorter name fits, the file lock serves instead.
  const longest = path.endsWith('.break') ? bound : `${bound.slice(0, -9)}.break${bound.slice(-9)}`
  if (noSockets.has(path) || Buffer.byteLength(longest) > MAX_SOCKET_PATH) return 'no-socket'
  const token = randomUUID()
  let server: Server | 'in-use'
  try {
    server = await listen(bound, {pid: process.pid, command: commandLine(), since: new Date().toISOString(), token})
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOSPC' || code === 'EDQUOT') throw unwritable(path, error)
    if (code === 'EACCES' || code === 'ENOENT' || code === 'ENOTDIR' || code === 'EROFS') throw error
    noSockets.add(path)
    return 'no-socket'
  }
  if (server === 'in-use') return 'in-use'
  try {
    await fsp.link(bound, path)
  } catch (error) {
    closeServer(server)
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return 'in-use'
    if (code === 'ENOSPC' || code === 'EDQUOT') throw unwritable(path, error)
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EXDEV' || code === 'EMLINK') {
      noSockets.add(path)
      return 'no-socket'
    }
    throw error
  } finally {
    await fsp.rm(bound, {force: true}).catch(() => undefined)
  }
  const made = await fsp.lstat(path)
  const held: Held = {path, ino: made.ino, ctimeMs: made.ctimeMs, server, token}
  remember(held)
  // Who holds it, for a waiter when this process is stopped and cannot answer: naming only, never
  // a proof of anything, so a disk too full for it is no reason to fail.
  const note = JSON.stringify({pid: process.pid, command: commandLine(), since: new Date().toISOString(), ino: made.ino})
  await fsp.writeFile(infoPath(path), note, {mode: 0o600, flag: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK}).catch(async () => {
    await fsp.rm(infoPath(path), {force: true}).catch(() => undefined)
  })
  return held
}

function unwritable(path: string, error: unknown): LockWriteError {
  return new LockWriteError(`cannot write the lock ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}), so nothing was sent: is the disk full?`)
}

/** The lock file's content: who made it, and where its pid means something. */
interface FileLock {
  pid?: number
  ns?: string
  boot?: string
  command?: string
  since?: string
}

/** Takes the file lock: its content written whole aside, then linked to the lock's name (fails when it exists). */
async function holdFile(path: string): Promise<Held | 'in-use'> {
  const {randomUUID} = await import('node:crypto')
  const own = `${path}.${process.pid}.${randomUUID().slice(0, 8)}`
  const content = JSON.stringify({pid: process.pid, ...procIdentity(), command: commandLine(), since: new Date().toISOString()})
  try {
    const handle = await fsp.open(own, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
    try {
      await handle.writeFile(content)
    } finally {
      await handle.close()
    }
  } catch (error) {
    await fsp.rm(own, {force: true})
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EIO') throw unwritable(path, error)
    throw error
  }
  try {
    await fsp.link(own, path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return 'in-use'
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EXDEV') throw error
    // No hard links here: the lock is the own file renamed into place, when the name is free.
    try {
      await fsp.lstat(path)
      return 'in-use'
    } catch {
      await fsp.rename(own, path)
    }
  } finally {
    await fsp.rm(own, {force: true})
  }
  const made = await fsp.lstat(path)
  const held: Held = {path, ino: made.ino, ctimeMs: made.ctimeMs}
  remember(held)
  return held
}

/** What a lock file says of its holder, and whether that holder is provably gone. */
async function readFileLock(path: string): Promise<{holder: LockHolder; gone: boolean} | undefined> {
  let text: string
  try {
    text = await fsp.readFile(path, {encoding: 'utf8', flag: constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK})
  } catch {
    return undefined
  }
  let lock: FileLock = {}
  try {
    const value = JSON.parse(text) as FileLock
    if (value && typeof value === 'object') lock = value
  } catch {
    // An older version's lock (its pid alone) or nothing: never broken automatically.
    if (/^\d+$/.test(text.trim())) lock = {pid: Number(text.trim())}
  }
  const here = procIdentity()
  const provable = typeof lock.pid === 'number' && lock.ns !== undefined && lock.ns === here.ns && lock.boot !== undefined && lock.boot === here.boot
  return {
    holder: {pid: lock.pid, command: lock.command, since: lock.since, manual: !provable},
    gone: provable && lock.pid !== process.pid && !isAlive(lock.pid!),
  }
}

/** What the holder of the socket `ino` wrote of itself, when it cannot answer. */
async function noteOf(path: string, ino: number): Promise<LockHolder> {
  try {
    const text = await fsp.readFile(infoPath(path), {encoding: 'utf8', flag: constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK})
    const note = JSON.parse(text) as {pid?: unknown; command?: unknown; since?: unknown; ino?: unknown}
    if (note.ino !== ino) return {}
    return {
      pid: typeof note.pid === 'number' ? note.pid : undefined,
      command: typeof note.command === 'string' ? note.command : undefined,
      since: typeof note.since === 'string' ? note.since : undefined,
    }
  } catch {
    return {}
  }
}

/** Whether `now` is still the file `seen` was (the same device and inode). */
const same = (now: Stats | undefined, seen: Stats) => now !== undefined && now.dev === seen.dev && now.ino === seen.ino

/** node:sqlite, loaded when a remover is first needed (Node 22 calls it experimental, aloud: not said here). */
let sqlite: typeof import('node:sqlite') | null | undefined
async function loadSqlite(): Promise<typeof import('node:sqlite') | null> {
  if (sqlite !== undefined) return sqlite
  const emit = process.emitWarning
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (/sqlite/i.test(typeof warning === 'string' ? warning : warning.message)) return
    ;(emit as (...args: unknown[]) => void).call(process, warning, ...rest)
  })
  try {
    sqlite = await import('node:sqlite')
  } catch {
    sqlite = null
  } finally {
    process.emitWarning = emit
  }
  return sqlite
}

/**
 * Runs `remove` as the one remover of the lock at `path` (see the module's comment): 'busy' when
 * another process is the remover (the caller looks again later), 'unavailable' when no such lock
 * can be had here (a file system without fcntl locks, something else planted at the name).
 */
async function asRemover(path: string, remove: () => Promise<void>): Promise<'done' | 'busy' | 'unavailable'> {
  const name = `${path}.remover`
  const there = await fsp.lstat(name).catch(() => undefined)
  if (there && !there.isFile()) return 'unavailable'
  const module = await loadSqlite()
  if (!module) return 'unavailable'
  let mask: number | undefined
  try {
    mask = process.umask(0o077)
  } catch {
    // A worker thread: the file is made with the process's umask.
  }
  let db: InstanceType<typeof module.DatabaseSync>
  try {
    db = new module.DatabaseSync(name, {timeout: 0})
  } catch {
    return 'unavailable'
  } finally {
    if (mask !== undefined) process.umask(mask)
  }
  try {
    try {
      db.exec('BEGIN EXCLUSIVE')
    } catch (error) {
      // SQLITE_BUSY: another process holds it.
      return (error as {errcode?: number}).errcode === 5 ? 'busy' : 'unavailable'
    }
    await remove()
    return 'done'
  } finally {
    try {
      db.close()
    } catch {
      // Closed with the process anyway, and the kernel's lock with it.
    }
  }
}

/** Runs `remove` as the remover; where no remover's lock can be had, alone (the breaker socket, where it fits, still takes turns). */
async function removing(path: string, remove: () => Promise<void>): Promise<void> {
  if ((await asRemover(path, remove)) === 'unavailable') await remove()
}

/** Removes the socket at `path` when it is still the one seen and refuses connections twice, a moment apart. */
async function removeIfDead(path: string, seen: Stats): Promise<void> {
  if ((await probe(path)).state !== 'dead') return
  await sleep(20)
  const after = await fsp.lstat(path).catch(() => undefined)
  if (after?.isSocket() && same(after, seen) && (await probe(path)).state === 'dead') await fsp.unlink(path).catch(() => undefined)
}

/**
 * Breaks a dead holder's socket, after seeing it refuse again, and only the same device and inode:
 * as the remover, and under the breaker's socket too where its name fits (which is how an earlier
 * version of this program, still running beside this one, takes turns at it).
 */
async function breakSocket(path: string, seen: Stats): Promise<void> {
  const breaker = `${path}.break`
  const held = await holdSocket(breaker)
  if (held === 'no-socket') {
    // The breaker's longer name takes no socket here: the lock itself is removed when it refuses
    // twice, the same inode both times.
    await removeIfDead(path, seen)
    return
  }
  if (held === 'in-use') {
    // A breaker that died while breaking leaves its socket: removed when it refuses twice, same inode.
    const before = await fsp.lstat(breaker).catch(() => undefined)
    if (before?.isSocket()) await removeIfDead(breaker, before)
    return
  }
  try {
    const now = await fsp.lstat(path).catch(() => undefined)
    if (now?.isSocket() && same(now, seen) && (await probe(path)).state === 'dead') await fsp.unlink(path).catch(() => undefined)
  } finally {
    await release(held)
  }
}

/** Breaks a file lock whose holder is provably gone, if the path is still that file. */
async function breakFile(path: string, seen: Stats): Promise<void> {
  const again = await readFileLock(path)
  const now = await fsp.lstat(path).catch(() => undefined)
  if (again?.gone && same(now, seen)) await fsp.unlink(path).catch(() => undefined)
}

/** Lock paths this process has swept already: once a process is enough (a batch takes the lock a row). */
const swept = new Set<string>()

/**
 * Removes what a crash left of this lock's own naming (see the module's comment), as the remover: a
 * bound socket that refuses connections, a file lock's copy whose holder, of this PID namespace and
 * boot, is gone. Never the lock itself, nor anything that may belong to a live process.
 */
async function sweep(path: string): Promise<void> {
  if (swept.has(path)) return
  swept.add(path)
  const dir = dirname(path)
  const own = basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const bound = new RegExp(`^${own}(\\.break)?\\.[0-9a-f]{8}$`)
  const copy = new RegExp(`^${own}\\.\\d+\\.[0-9a-f]{8}$`)
  let names: string[]
  try {
    names = (await fsp.readdir(dir)).filter((name) => bound.test(name) || copy.test(name))
  } catch {
    return
  }
  if (names.length === 0) return
  await asRemover(path, async () => {
    for (const name of names) {
      const leftover = join(dir, name)
      const seen = await fsp.lstat(leftover).catch(() => undefined)
      if (bound.test(name)) {
        if (seen?.isSocket()) await removeIfDead(leftover, seen)
        continue
      }
      if (!seen?.isFile()) continue
      const file = await readFileLock(leftover)
      const now = await fsp.lstat(leftover).catch(() => undefined)
      if (file?.gone && same(now, seen)) await fsp.unlink(leftover).catch(() => undefined)
    }
  })
}

/** One attempt: the lock held, or who holds it (after removing a dead holder's, when provable). */
async function attempt(path: string): Promise<Held | {busy: LockHolder | undefined}> {
  const socket = await holdSocket(path)
  if (socket !== 'in-use' && socket !== 'no-socket') return socket
  if (socket === 'no-socket') {
    const file = await holdFile(path)
    if (file !== 'in-use') return file
  }
  let info
  try {
    info = await fsp.lstat(path)
  } catch {
    return {busy: undefined}
  }
  if (info.isSocket()) {
    const seen = await probe(path)
    if (seen.state === 'dead') await removing(path, () => breakSocket(path, info))
    if (seen.state !== 'alive') return {busy: undefined}
    return {busy: seen.holder.pid === undefined ? {...(await noteOf(path, info.ino)), silent: true} : seen.holder}
  }
  if (info.isFile()) {
    const file = await readFileLock(path)
    if (file?.gone) await removing(path, () => breakFile(path, info))
    return {busy: file?.holder}
  }
  throw new FolderError(`${path} in the config folder is not a lock this program made (${info.isFIFO() ? 'a FIFO' : info.isDirectory() ? 'a folder' : 'not a regular file'})`, {
    hint: `Remove it (\`rm -r ${path}\`) once no gateway command runs.`,
  })
}

/**
 * Runs `fn` while holding the lock at `lockPath`, so that processes sharing the config folder take
 * turns (see the module's comment). After `waitMs` for a holder that is alive (or may be), a
 * LockBusyError (exit 7) names it and says nothing was sent.
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const waitMs = options.waitMs ?? 60_000
  const what = options.what ?? `the lock ${lockPath}`
  const started = Date.now()
  let told = false
  let delay = 5
  let held: Held
  for (;;) {
    const result = await attempt(lockPath)
    if (!('busy' in result)) {
      held = result
      // What a crash left beside the lock goes, now that this process holds it: quickly, and never
      // in the way of the command (a remover busy elsewhere leaves it for the next).
      await sweep(lockPath).catch(() => undefined)
      break
    }
    const waited = Date.now() - started
    const how = result.busy?.manual
      ? ` If that process is gone (another container, or an older version of this program), remove the lock by hand: \`rm ${lockPath}\`.`
      : ''
    if (waited >= waitMs) {
      throw new LockBusyError(`${what} is held by ${holderText(result.busy)}: waited ${Math.round(waitMs / 1000)} s for it, and nothing was sent`, {
        hint: `Run the command again once that process has finished.${how || ' The lock goes with that process: a paused one (Ctrl-Z, SIGSTOP) holds it until it is resumed (fg, kill -CONT) or ended.'}`,
        notSent: true,
      })
    }
    if (!told && options.onWait && waited >= (options.noticeMs ?? 1000)) {
      told = true
      options.onWait(`Waiting for ${what}, held by ${holderText(result.busy)}; nothing was sent yet.${how}`)
    }
    await sleep(delay + Math.random() * delay)
    delay = Math.min(delay * 2, 100)
  }
  try {
    return await fn()
  } finally {
    await release(held)
  }
}
