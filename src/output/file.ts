import {accessSync, close as closeFd, constants, fchmod, fsync, lstatSync, open, rename, statSync, unlinkSync, write, type Stats} from 'node:fs'
import {basename, dirname, join, resolve} from 'node:path'
import {Writable} from 'node:stream'
import {promisify} from 'node:util'

import {string} from '@oclif/core/flags'

import type {CommandContext, IO} from '../cli/context.js'
import {PermissionError, ReportedError, UsageError, WriteError} from '../cli/errors.js'
import {painter} from '../cli/terminal.js'
import {userName} from '../api/folder.js'

/** --output-file: what a command prints on stdout, written to a file whole, or not at all. */
export function outputFileFlag(what: string) {
  return string({
    description: `Write ${what} to this file instead of stdout: to a new file in the same folder first, renamed over the file only when every byte is on disk, so a failed run (a full disk too: exit 1) leaves the previous file as it was. Another user's file is refused; a device or a named pipe is written to, never replaced.`,
    helpValue: '<file>',
  })
}

/**
 * Where a file's bytes go, and how they end. Every file the CLI writes goes through one:
 * `--output-file`, `--qr-png`, `--chart png`. Write chunks with `write` (it waits for room, and
 * rejects with the file's own error), or hand `stream` to anything that writes to a stream (its
 * errors are kept, never thrown at the process: `write` and `commit` report them). Then `commit`
 * (the file is whole on disk, in place) or `abort` (the target as it was, the temporary gone).
 */
export interface FileSink {
  /** The file as the operator named it. */
  readonly file: string
  readonly stream: Writable
  /** The first failure, as the error a command ends with (exit 1, naming the file); undefined while all is well. */
  readonly failure: WriteError | undefined
  write(chunk: string | Uint8Array): Promise<void>
  commit(): Promise<void>
  abort(): Promise<void>
}

export interface FileOptions {
  /** How the file is named in messages: the flag that gave it ("--output-file"). */
  flag: string
  /** The mode of a file made new (a replaced file of the user's keeps its own). */
  mode: number
}

/** What the path names, as found before anything is fetched or sent. */
interface Target {
  path: string
  /** A regular file (or nothing yet) is replaced by a new one; anything else is written to in place. */
  kind: 'new' | 'regular' | 'special'
  /** The mode a replaced regular file had. */
  mode?: number
}

/** A cause in words, for one line: "the disk is full", "permission denied". */
export function causeInWords(error: unknown, folder?: string): string {
  const {code, message} = error as NodeJS.ErrnoException
  switch (code) {
    case 'ENOSPC':
      return 'the disk is full'
    case 'EDQUOT':
      return 'the disk quota is used up'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EROFS':
      return 'the file system is read-only'
    case 'EIO':
      return 'an input/output error of the disk'
    case 'EFBIG':
      return 'the file would be larger than the file system allows'
    case 'ENOENT':
    case 'ENOTDIR':
      return folder ? `the folder ${folder} does not exist` : 'no such file or folder'
    case 'EISDIR':
      return 'it is a folder'
    case 'ENAMETOOLONG':
      return 'the name is too long'
    case 'ENXIO':
      return 'nothing is reading from it'
    case 'EPIPE':
      return 'its reader went away'
    default:
      return code && !message.includes(code) ? `${message} (${code})` : message
  }
}

/** The name of a user id, from /etc/passwd; the number when it has none. */
/**
 * Checks a path before anything is fetched or sent: a folder is refused (exit 2), a folder that
 * does not exist or cannot be written (exit 2), another user's regular file (exit 3, naming it and
 * its owner). A device, a named pipe or a socket is written to as the shell's `>` would; a symbolic
 * link is replaced as a name, unless it leads to one of those. Answers what the path is.
 */
export function checkFileTarget(file: string, flag: string): Target {
  if (!file.trim()) throw new UsageError(`${flag} needs a file name`)
  const path = resolve(file)
  const folder = dirname(path)
  let entry: Stats | undefined
  try {
    entry = lstatSync(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ENOENT') throw new UsageError(`${flag} ${file} cannot be written: ${causeInWords(error, folder)}`)
  }
  let followed = entry
  if (entry?.isSymbolicLink()) followed = statOrUndefined(path)
  if (followed?.isDirectory()) throw new UsageError(`${flag} ${file} is a folder, not a file`)
  if (followed && !followed.isFile()) {
    if (!writable(path)) throw new UsageError(`${flag} ${file} cannot be written: permission denied`)
    return {path, kind: 'special'}
  }
  const folderStats = statOrUndefined(folder)
  if (!folderStats?.isDirectory()) throw new UsageError(`${flag} ${file} cannot be written: the folder ${folder} does not exist`)
  if (entry && typeof process.getuid === 'function' && entry.uid !== process.getuid()) {
    throw new PermissionError(`${flag} ${file} belongs to another user, ${userName(entry.uid)}: it is not replaced (their file could be read or kept by them); choose another name, or have them remove it`)
  }
  if (!writable(folder)) throw new UsageError(`${flag} ${file} cannot be written: the folder ${folder} is not writable`)
  return entry?.isFile() ? {path, kind: 'regular', mode: entry.mode & 0o777} : {path, kind: 'new'}
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path)
  } catch {
    return undefined
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK)
    return true
  } catch {
    return false
  }
}

const openAsync = promisify(open)
const closeAsync = promisify(closeFd)
const fsyncAsync = promisify(fsync)
const fchmodAsync = promisify(fchmod)
const renameAsync = promisify(rename)

/** Writes all of a buffer at the file's position, however many calls it takes. */
function writeAll(fd: number, bytes: Uint8Array, done: (error?: Error | null) => void): void {
  let offset = 0
  const next = () => {
    if (offset >= bytes.length) return done()
    write(fd, bytes, offset, bytes.length - offset, null, (error, written) => {
      if (error) return done(error)
      offset += written
      next()
    })
  }
  next()
}

/**
 * The file's own stream: each write is checked, the end flushes the file to disk (fsync) for a
 * regular file, and it closes its descriptor whatever happens.
 */
class DescriptorStream extends Writable {
  constructor(
    private readonly fd: number,
    private readonly regular: boolean,
  ) {
    super({highWaterMark: 64 * 1024, decodeStrings: true})
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    writeAll(this.fd, chunk, callback)
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.regular) return callback()
    fsync(this.fd, (error) => callback(error))
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    closeFd(this.fd, (closeError) => callback(error ?? closeError))
  }
}

/** Temporary files not yet renamed or removed: an exit before then (a signal's, an uncaught error) takes them along. */
const pending = new Set<string>()
function sweep(): void {
  for (const path of pending) {
    try {
      unlinkSync(path)
    } catch {
      // Gone already.
    }
  }
}

/**
 * Opens the one writer of a file. A regular file (or a name not yet taken) gets a new file beside
 * it (same folder, a hidden name of its own, O_EXCL, 0600, never following a link), renamed over it
 * by `commit` once every write, the end, the mode, `fsync`, the rename and the folder's `fsync` have
 * succeeded; `abort`, or any failure, removes it and leaves the target byte for byte as it was.
 * The mode is the target's own only when the user owns it (another user's file is refused: see
 * checkFileTarget), else `mode`. A device, a named pipe or a socket is opened and written to as the
 * shell's `>` would (a pipe waits for its reader), never renamed over.
 */
export async function openFileSink(file: string, options: FileOptions): Promise<FileSink> {
  const target = checkFileTarget(file, options.flag)
  const name = `${options.flag} ${file}`
  let fd: number
  let temporary: string | undefined
  try {
    if (target.kind === 'special') {
      fd = await openAsync(target.path, constants.O_WRONLY | constants.O_TRUNC | constants.O_NOCTTY)
    } else {
      // node:crypto loads only when a file is written.
      const {randomBytes} = await import('node:crypto')
      temporary = join(dirname(target.path), `.${basename(target.path)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`)
      fd = await openAsync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
      if (pending.size === 0) process.on('exit', sweep)
      pending.add(temporary)
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = causeInWords(error, dirname(target.path))
    // Nothing fetched yet: a folder that refuses is the operator's to fix (2); a full disk is not (1).
    if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EIO') throw new WriteError(`cannot write ${name}: ${why}`, {cause: error})
    throw new UsageError(`${name} cannot be written: ${why}`)
  }
  const stream = new DescriptorStream(fd, target.kind !== 'special')
  let failure: WriteError | undefined
  const fail = (error: unknown): WriteError => {
    failure ??= error instanceof WriteError ? error : new WriteError(`cannot write ${name}: ${causeInWords(error)}${target.kind === 'special' ? '' : '; the file was left as it was'}`, {cause: error})
    return failure
  }
  // Kept, never thrown at the process: write and commit report it.
  stream.on('error', fail)
  let settled = false
  const removeTemporary = () => {
    if (!temporary) return
    try {
      unlinkSync(temporary)
    } catch {
      // Gone already.
    }
    pending.delete(temporary)
    if (pending.size === 0) process.off('exit', sweep)
  }
  const checkFailure = () => {
    const known = sink.failure
    if (known) throw known
  }
  const sink: FileSink = {
    file,
    stream,
    get failure() {
      // Failed, with its 'error' event still to come (on the next tick): the failure is known already.
      return failure ?? (stream.errored ? fail(stream.errored) : undefined)
    },
    async write(chunk) {
      checkFailure()
      if (stream.destroyed) throw fail(new Error('the file was closed'))
      if (stream.write(chunk)) return
      await new Promise<void>((done, reject) => {
        const onDrain = () => {
          stream.off('close', onClose)
          done()
        }
        const onClose = () => {
          stream.off('drain', onDrain)
          reject(sink.failure ?? fail(new Error('the file was closed')))
        }
        stream.once('drain', onDrain)
        stream.once('close', onClose)
      })
      checkFailure()
    },
    async commit() {
      if (settled) throw new Error(`${name}: already ended`)
      settled = true
      try {
        checkFailure()
        if (temporary) {
          const mode = target.kind === 'regular' ? target.mode! : options.mode & ~currentUmask()
          await fchmodAsync(fd, mode)
        }
        await new Promise<void>((done, reject) => {
          stream.once('error', reject)
          stream.end(() => done())
        })
        if (!stream.closed) await new Promise<void>((done) => stream.once('close', () => done()))
        checkFailure()
        if (!temporary) return
        await renameAsync(temporary, target.path)
        pending.delete(temporary)
        if (pending.size === 0) process.off('exit', sweep)
        temporary = undefined
      } catch (error) {
        stream.destroy()
        removeTemporary()
        throw fail(error)
      }
      // In place: the folder's entry made durable too. The file is whole; a failure here says it may not survive a crash.
      try {
        const folder = await openAsync(dirname(target.path), constants.O_RDONLY | constants.O_DIRECTORY)
        try {
          await fsyncAsync(folder)
        } finally {
          await closeAsync(folder)
        }
      } catch (error) {
        throw new WriteError(`${name} was written, but its folder could not be flushed to disk: ${causeInWords(error)}`, {cause: error})
      }
    },
    async abort() {
      if (settled) return
      settled = true
      stream.destroy()
      if (!stream.closed) await new Promise<void>((done) => stream.once('close', () => done()))
      removeTemporary()
    },
  }
  return sink
}

function currentUmask(): number {
  // process.umask() read without setting it: a documentation-only deprecation, and the only way.
  return process.umask()
}

/** Writes bytes to a file whole through its sink (see openFileSink), or not at all. */
export async function writeFileWhole(file: string, bytes: Uint8Array, options: FileOptions): Promise<void> {
  const sink = await openFileSink(file, options)
  try {
    await sink.write(bytes)
    await sink.commit()
  } catch (error) {
    await sink.abort()
    throw error
  }
}

export interface ToOutputFileOptions {
  mode: number
  json: boolean
  /**
   * An error that ends a complete output with a verdict (reconcile's discrepancies, exit 10): the
   * file is kept, then the error thrown. Under --json, a document it reports goes to the file.
   */
  finished?: (error: unknown) => boolean
}

/**
 * Runs `work` with its stdout going to `path` through a file sink (see openFileSink): renamed into
 * place only when the work succeeds and every byte is on disk. The path is checked before the work
 * starts, so nothing is fetched for a file that cannot be written. A write that fails during the
 * work ends it with that failure (exit 1, naming the file and the cause), whatever the work met
 * after it. Under --json the work's document (what it returns) goes to the file too. Without
 * `path`, the work runs as it is.
 */
export async function toOutputFile<T>(ctx: CommandContext, path: string | undefined, options: ToOutputFileOptions, work: () => Promise<T>): Promise<T | undefined> {
  if (path === undefined) return work()
  const sink = await openFileSink(path, {flag: '--output-file', mode: options.mode})
  const restore = redirect(ctx, sink.stream)
  const streaming = ctx.streaming
  let result: T | undefined
  let verdict: unknown
  try {
    try {
      result = await work()
    } catch (error) {
      if (sink.failure || !options.finished?.(error)) throw error
      verdict = error
      if (options.json && error instanceof ReportedError && Object.keys(error.report.json).length > 0) {
        ctx.json(error.report.json)
        verdict = new ReportedError(error.error, {lines: error.report.lines, json: {}})
      }
    }
    if (options.json && result !== undefined) {
      ctx.json(result)
      result = undefined
    }
    // A page or a line written without waiting (ctx.out) whose write failed is known by now.
    await new Promise<void>((done) => setImmediate(done))
    await sink.commit()
  } catch (error) {
    const failure = sink.failure
    await sink.abort()
    throw failure ?? error
  } finally {
    restore()
    ctx.streaming = streaming
  }
  if (verdict !== undefined) throw verdict as Error
  return result
}

/**
 * The context's stdout swapped for a file for the length of the work: no terminal there (no colour,
 * no pager, no width to fit), stderr and stdin as they were. Answers the way back.
 */
function redirect(ctx: CommandContext, stdout: NodeJS.WritableStream): () => void {
  const mutable = ctx as unknown as {io: IO; paint: CommandContext['paint']}
  const {io, paint} = mutable
  const fileIO = Object.create(io, {
    stdout: {value: stdout},
    stdoutTTY: {value: false},
    color: {value: false},
    prompt: {value: false},
    columns: {value: Infinity},
    rows: {value: undefined},
  }) as IO
  mutable.io = fileIO
  mutable.paint = painter(false)
  return () => {
    mutable.io = io
    mutable.paint = paint
  }
}
