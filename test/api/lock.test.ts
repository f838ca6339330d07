import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, unlinkSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {basename, dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterEach, describe, expect, it} from 'vitest'

import {LockBusyError, withFileLock} from '../../src/api/lock.js'

/**
 * The lock between processes sharing a config folder: never taken from a holder that may be alive,
 * paused or in another PID namespace; released by the kernel when its holder dies.
 */

const LOCK = fileURLToPath(new URL('../../dist/api/lock.js', import.meta.url))
const dirs: string[] = []
const children: ChildProcess[] = []
const lockPath = (name = '.lock') => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-lock-'))
  dirs.push(dir)
  return join(dir, name)
}
afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT')
      child.kill('SIGKILL')
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

/** A fresh folder whose path is `length` bytes long. */
function folderOf(length: number): string {
  const base = mkdtempSync(join(tmpdir(), 'gateway-lock-'))
  dirs.push(base)
  const dir = join(base, 'x'.repeat(length - Buffer.byteLength(base) - 1))
  spawnSync('mkdir', [dir])
  expect(Buffer.byteLength(dir)).toBe(length)
  return dir
}

/** A process (optionally in a PID namespace of its own) that takes the lock, says so, and holds it until killed. */
async function holder(path: string, options: {namespace?: boolean} = {}): Promise<ChildProcess> {
  const script = `const {withFileLock} = await import(${JSON.stringify(LOCK)}); await withFileLock(${JSON.stringify(path)}, async () => { process.stdout.write('held\\n'); await new Promise(() => setInterval(() => {}, 1000)) })`
  const argv = [process.execPath, '--input-type=module', '-e', script]
  const child = options.namespace ? spawn('unshare', ['--pid', '--fork', '--kill-child', ...argv]) : spawn(argv[0], argv.slice(1))
  children.push(child)
  await new Promise<void>((resolve, reject) => {
    let text = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk
      if (text.includes('held')) resolve()
    })
    child.on('exit', () => reject(new Error('the holder ended before it held the lock')))
  })
  return child
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.on('exit', () => resolve())))
const unshareMissing = spawnSync('unshare', ['--pid', '--fork', '--kill-child', 'true']).status !== 0

/** Eight holders at once in this process: how many were ever inside together, and how many ran. */
async function eightAtOnce(path: string): Promise<{most: number; ran: number}> {
  let inside = 0
  let most = 0
  let ran = 0
  await Promise.all(
    Array.from({length: 8}, () =>
      withFileLock(
        path,
        async () => {
          inside += 1
          most = Math.max(most, inside)
          await new Promise((resolve) => setTimeout(resolve, 5))
          inside -= 1
          ran += 1
        },
        {waitMs: 10_000},
      ),
    ),
  )
  return {most, ran}
}

describe('withFileLock', () => {
  it('never lets two holders in at once', async () => {
    const path = lockPath()
    expect(await eightAtOnce(path)).toEqual({most: 1, ran: 8})
    expect(existsSync(path)).toBe(false)
  })

  it('is a socket of mode 0600 while held, and a holder killed while holding it is replaced at once', async () => {
    const path = lockPath()
    const child = await holder(path)
    expect(lstatSync(path).isSocket()).toBe(true)
    expect(lstatSync(path).mode & 0o077).toBe(0)
    child.kill('SIGKILL')
    await exited(child)
    // The socket file stays, its listener gone: the kernel refuses connections, the only proof of death.
    expect(lstatSync(path).isSocket()).toBe(true)
    await expect(withFileLock(path, async () => 'ran', {waitMs: 2000})).resolves.toBe('ran')
    expect(existsSync(path)).toBe(false)
  })

  it('a remover that died while removing a dead holder\'s lock leaves nothing that blocks the next one', async () => {
    const path = lockPath()
    // Both the lock and its remover's lock (`.break`) left by processes killed while holding them.
    for (const leftover of [`${path}.break`, path]) {
      const child = await holder(leftover)
      child.kill('SIGKILL')
      await exited(child)
      expect(lstatSync(leftover).isSocket()).toBe(true)
    }
    await expect(withFileLock(path, async () => 'ran', {waitMs: 5000})).resolves.toBe('ran')
    expect(existsSync(path)).toBe(false)
  })

  it('a dead holder\'s lock is replaced where the path leaves room for the lock\'s socket but not its remover\'s', async () => {
    // 85 bytes of folder: journal.lock's own socket name fits in a socket address, `.break`'s does not,
    // so the lock is the file lock there (a dead socket is never removed by name without its breaker).
    const base = lockPath('d')
    const dir = `${base}${'x'.repeat(Math.max(1, 85 - base.length))}`
    rmSync(base, {force: true})
    spawnSync('mkdir', [dir])
    dirs.push(dir)
    const path = join(dir, 'journal.lock')
    const child = await holder(path)
    expect(lstatSync(path).isFile()).toBe(true)
    child.kill('SIGKILL')
    await exited(child)
    await expect(withFileLock(path, async () => 'ran', {waitMs: 5000})).resolves.toBe('ran')
  })

  it('is never taken from a stopped holder: the waiter names it, says nothing was sent, and goes in once it is resumed and lets go', async () => {
    const path = lockPath()
    const child = await holder(path)
    child.kill('SIGSTOP')
    const notes: string[] = []
    const error = await withFileLock(path, async () => 'ran', {waitMs: 1500, noticeMs: 200, what: 'the journal', onWait: (line) => notes.push(line)}).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(LockBusyError)
    expect((error as Error).message).toMatch(new RegExp(`^the journal is held by pid ${child.pid}.*: waited 2 s for it, and nothing was sent$`))
    expect((error as LockBusyError).hint).toMatch(/paused one .* holds it until it is resumed/)
    expect(notes).toHaveLength(1)
    expect(notes[0]).toMatch(new RegExp(`^Waiting for the journal, held by pid ${child.pid}.*nothing was sent yet`))
    // Resumed, then ended: the lock is let go, and the waiter goes in.
    child.kill('SIGCONT')
    const waiting = withFileLock(path, async () => 'ran', {waitMs: 20_000})
    await new Promise((resolve) => setTimeout(resolve, 300))
    child.kill('SIGTERM')
    await expect(waiting).resolves.toBe('ran')
  })

  it('names a running holder by its pid and command', async () => {
    const path = lockPath()
    const child = await holder(path)
    const error = (await withFileLock(path, async () => 'ran', {waitMs: 300}).catch((caught: unknown) => caught)) as Error
    expect(error.message).toMatch(new RegExp(`held by pid ${child.pid} \\(\\S+, since \\d{4}-\\d\\d-\\d\\dT`))
    expect(error.message).not.toMatch(/does not answer/)
  })

  it.skipIf(unshareMissing)('is never taken from a holder in another PID namespace (its pid invisible here), and is taken once it dies', async () => {
    const path = lockPath()
    const child = await holder(path, {namespace: true})
    const error = (await withFileLock(path, async () => 'ran', {waitMs: 800}).catch((caught: unknown) => caught)) as Error
    expect(error).toBeInstanceOf(LockBusyError)
    // Its own namespace's pid: 1, the first process there.
    expect(error.message).toMatch(/held by pid 1 /)
    child.kill('SIGKILL')
    await exited(child)
    await expect(withFileLock(path, async () => 'ran', {waitMs: 5000})).resolves.toBe('ran')
  })

  it('is released only by its owner: a path that is no longer its own is left alone', async () => {
    const path = lockPath()
    await withFileLock(path, async () => {
      // Someone removes the lock by hand and another process takes the path.
      unlinkSync(path)
      writeFileSync(path, 'not yours')
    })
    expect(existsSync(path)).toBe(true)
    rmSync(path)
    // The same with another socket in its place.
    const other = createServer(() => {})
    try {
      await withFileLock(path, async () => {
        unlinkSync(path)
        await new Promise<void>((resolve) => other.listen(path, resolve))
      })
      expect(lstatSync(path).isSocket()).toBe(true)
    } finally {
      other.close()
    }
  })

  it('refuses a FIFO or a folder planted at its path (exit 3), never hanging', async () => {
    const fifo = lockPath('journal.lock')
    spawnSync('mkfifo', [fifo])
    await expect(withFileLock(fifo, async () => 'ran', {waitMs: 500})).rejects.toMatchObject({code: 'CONFIG_FOLDER', message: expect.stringMatching(/journal\.lock in the config folder is not a lock this program made \(a FIFO\)/)})
    const folder = lockPath('journal.lock')
    rmSync(folder, {force: true})
    spawnSync('mkdir', [folder])
    await expect(withFileLock(folder, async () => 'ran', {waitMs: 500})).rejects.toMatchObject({code: 'CONFIG_FOLDER'})
  })

  it('a socket that does not answer is named as paused, not as dead', async () => {
    const path = lockPath()
    // Listening but never answering: what a stopped holder looks like to a waiter.
    const server = createServer(() => {})
    await new Promise<void>((resolve) => server.listen(path, resolve))
    try {
      const error = (await withFileLock(path, async () => 'ran', {waitMs: 200}).catch((caught: unknown) => caught)) as Error
      expect(error.message).toMatch(/held by a process that does not answer \(paused\?\)/)
    } finally {
      server.close()
    }
  })
})

describe('withFileLock where no socket can be made (a path too long for one)', () => {
  const longPath = () => {
    const dir = lockPath('x'.repeat(100))
    rmSync(dir, {force: true})
    spawnSync('mkdir', [dir])
    return join(dir, 'journal.lock')
  }

  it('is a file holding pid, PID namespace and boot; broken when its holder, of this namespace and boot, is gone', async () => {
    const path = longPath()
    const child = await holder(path)
    expect(lstatSync(path).isFile()).toBe(true)
    await expect(withFileLock(path, async () => 'ran', {waitMs: 300})).rejects.toBeInstanceOf(LockBusyError)
    child.kill('SIGKILL')
    await exited(child)
    await expect(withFileLock(path, async () => 'ran', {waitMs: 2000})).resolves.toBe('ran')
  })

  it.skipIf(unshareMissing)('is never broken automatically when its holder ran in another PID namespace: the message says how to remove it', async () => {
    const path = longPath()
    const child = await holder(path, {namespace: true})
    child.kill('SIGKILL')
    await exited(child)
    const error = (await withFileLock(path, async () => 'ran', {waitMs: 300}).catch((caught: unknown) => caught)) as LockBusyError
    expect(error).toBeInstanceOf(LockBusyError)
    expect(error.hint).toContain(`remove the lock by hand: \`rm ${path}\``)
    rmSync(path)
    await expect(withFileLock(path, async () => 'ran', {waitMs: 2000})).resolves.toBe('ran')
  })
  it('is never broken when written from another PID namespace, even with a pid that is not alive here', async () => {
    const path = longPath()
    // A pid that is free here: a process that has come and gone.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {encoding: 'utf8'})
    const pid = Number(gone.stdout)
    expect(spawnSync('kill', ['-0', String(pid)]).status).not.toBe(0)
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    // The same machine (boot), another namespace: that pid there says nothing of a process here.
    writeFileSync(path, JSON.stringify({pid, ns: 'pid:[4026599999]', boot, command: 'gateway withdraw', since: new Date().toISOString()}), {mode: 0o600})
    const error = await withFileLock(path, async () => 'ran', {waitMs: 300}).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(LockBusyError)
    expect(existsSync(path)).toBe(true)
    // In this namespace, the same dead pid is provably gone, and the lock is taken.
    writeFileSync(path, JSON.stringify({pid, ns: readlinkSync('/proc/self/ns/pid'), boot, command: 'gateway withdraw', since: new Date().toISOString()}), {mode: 0o600})
    await expect(withFileLock(path, async () => 'ran', {waitMs: 2000})).resolves.toBe('ran')
  })
})

/**
 * Where the config folder's path leaves room for the lock's socket (`journal.lock.<hex>`) but not for
 * its breaker's (`journal.lock.break.<hex>`), a dead holder's socket could only be removed by name,
 * on a look that may be stale by the time of the removal. The lock is a socket only where both fit.
 */
describe('withFileLock at every length of the config folder path', () => {

  it.each([80, 82, 85, 90, 107])('a folder path of %i bytes: a socket only where its breaker fits, and one holder at a time after a holder was killed', async (length) => {
    const path = join(folderOf(length), 'journal.lock')
    const child = await holder(path)
    const held = lstatSync(path)
    if (held.isSocket()) expect(Buffer.byteLength(`${path}.break.12345678`)).toBeLessThanOrEqual(107)
    else expect(held.isFile()).toBe(true)
    child.kill('SIGKILL')
    await exited(child)
    expect(await eightAtOnce(path)).toEqual({most: 1, ran: 8})
  })
})

/**
 * A process that strace kills at its first `link` (the call that puts a bound lock socket in place),
 * before the call is made; or whose first `link` it holds back 4 s, the process alive meanwhile.
 */
function atLink(path: string, how: 'killed' | 'held back'): ChildProcess {
  const script = `const {withFileLock} = await import(${JSON.stringify(LOCK)}); await withFileLock(${JSON.stringify(path)}, async () => { process.stdout.write('held\\n'); await new Promise(() => setInterval(() => {}, 1000)) })`
  const inject = how === 'killed' ? 'error=ENOENT:signal=SIGKILL' : 'delay_enter=4000000'
  const child = spawn('strace', ['-f', '-qq', '-o', '/dev/null', '-e', 'trace=link,linkat', '-e', `inject=link,linkat:${inject}:when=1`, process.execPath, '--input-type=module', '-e', script])
  children.push(child)
  return child
}

/** The names in the lock's folder that a lock socket is bound under before it is linked (`<lock>.<hex>`). */
const boundNames = (path: string) => readdirSync(dirname(path)).filter((name) => new RegExp(`^${basename(path)}\\.[0-9a-f]{8}$`).test(name))

describe('what a crash leaves beside the lock', () => {
  it('a holder killed between its socket\'s listen and link (strace) leaves its bound socket, swept by the next command that takes the lock; a live one is kept', async () => {
    const path = lockPath('journal.lock')
    // Two crashes, each leaving one.
    for (let crash = 0; crash < 2; crash += 1) {
      const child = atLink(path, 'killed')
      await exited(child)
      expect(child.signalCode ?? child.exitCode).toBe('SIGKILL')
      expect(existsSync(path)).toBe(false)
    }
    const left = boundNames(path)
    expect(left).toHaveLength(2)
    for (const name of left) expect(lstatSync(join(dirname(path), name)).isSocket()).toBe(true)
    // And one process held back at that very point: alive, its socket listening.
    const stopped = atLink(path, 'held back')
    const deadline = Date.now() + 10_000
    while (boundNames(path).length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    const live = boundNames(path).find((name) => !left.includes(name))
    expect(live).toBeDefined()
    await expect(withFileLock(path, async () => 'ran', {waitMs: 5000})).resolves.toBe('ran')
    expect(boundNames(path)).toEqual([live])
    // Let go, it takes the lock as if nothing happened.
    let said = ''
    stopped.stdout!.setEncoding('utf8').on('data', (chunk: string) => (said += chunk))
    const until = Date.now() + 15_000
    while (!said.includes('held') && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(said).toContain('held')
    expect(lstatSync(path).isSocket()).toBe(true)
  })

  it('a file lock\'s copy left by a holder killed before it was linked goes when its pid is gone here; one of another namespace stays', async () => {
    const path = lockPath('journal.lock')
    const dead = spawnSync('true').pid
    const here = {ns: readlinkSync('/proc/self/ns/pid'), boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}
    const gone = `${path}.${dead}.0badc0de`
    const elsewhere = `${path}.${dead}.0ddba11a`
    writeFileSync(gone, JSON.stringify({pid: dead, ...here}), {mode: 0o600})
    writeFileSync(elsewhere, JSON.stringify({pid: dead, ns: 'pid:[1]', boot: here.boot}), {mode: 0o600})
    await expect(withFileLock(path, async () => 'ran', {waitMs: 5000})).resolves.toBe('ran')
    expect(existsSync(gone)).toBe(false)
    expect(existsSync(elsewhere)).toBe(true)
  })
})

/**
 * A remover whose unlink comes late (a busy machine: strace delays each unlink of the lock's path 300 ms) must
 * never remove a live holder's lock taken meanwhile by another: removals take turns, each looking
 * again at the same device and inode before it unlinks.
 */
describe('one holder at a time while a remover\'s unlink is delayed', () => {

  /** Leaves a dead holder's lock at `path`: a socket whose process was killed, or a file lock of a pid gone here. */
  async function deadLock(path: string, kind: 'socket' | 'file'): Promise<void> {
    if (kind === 'file') {
      const dead = spawnSync('true').pid
      writeFileSync(path, JSON.stringify({pid: dead, ns: readlinkSync('/proc/self/ns/pid'), boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}), {mode: 0o600})
      return
    }
    const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`])
    await exited(child)
    expect(lstatSync(path).isSocket()).toBe(true)
  }

  /** Four processes take the lock at once (two of them with each unlink of the lock's path delayed), each inside for 400 ms: whether two were ever inside together. */
  async function fourAtOnce(path: string): Promise<{overlaps: number; ran: number}> {
    const log = `${dirname(path)}/../inside.log`
    const marker = `${dirname(path)}/../inside`
    const go = Date.now() + 1500
    // The delayed ones look first; the others 60 ms later, while the first unlink is held back.
    const script = (start: number) => `const fs = require('node:fs'); (async () => { const {withFileLock} = await import(${JSON.stringify(LOCK)});
      while (Date.now() < ${start}) await new Promise((r) => setTimeout(r, 2));
      await withFileLock(${JSON.stringify(path)}, async () => {
        try { fs.writeFileSync(${JSON.stringify(marker)}, '', {flag: 'wx'}) } catch { fs.appendFileSync(${JSON.stringify(log)}, 'overlap\\n') }
        await new Promise((r) => setTimeout(r, 400))
        fs.rmSync(${JSON.stringify(marker)}, {force: true})
        fs.appendFileSync(${JSON.stringify(log)}, 'ran\\n')
      }, {waitMs: 20000}) })()`
    const runs = Array.from({length: 4}, (_, index) => {
      const argv = [process.execPath, '-e', script(index < 2 ? go : go + 60)]
      const child = index < 2 ? spawn('strace', ['-f', '-qq', '--seccomp-bpf', '-o', '/dev/null', '-P', path, '-e', 'trace=unlink,unlinkat', '-e', 'inject=unlink,unlinkat:delay_enter=300000', ...argv]) : spawn(argv[0], argv.slice(1))
      children.push(child)
      return exited(child)
    })
    await Promise.all(runs)
    const lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []
    return {overlaps: lines.filter((line) => line === 'overlap').length, ran: lines.filter((line) => line === 'ran').length}
  }

  it.each([
    [40, 'socket'],
    [80, 'socket'],
    [82, 'socket'],
    [85, 'socket'],
    [80, 'file'],
    [85, 'file'],
    [107, 'file'],
  ] as const)('a folder path of %i bytes, a dead holder\'s %s lock', async (length, kind) => {
    const path = join(folderOf(length), 'journal.lock')
    await deadLock(path, kind)
    expect(await fourAtOnce(path)).toEqual({overlaps: 0, ran: 4})
  }, 60_000)
})

