import {string} from '@oclif/core/flags'

import type {CommandContext, IO} from '../cli/context.js'
import {UsageError} from '../cli/errors.js'
import {painter} from '../cli/terminal.js'

/** --output-file: what a command prints on stdout, written to a file whole, or not at all. */
export function outputFileFlag(what: string) {
  return string({
    description: `Write ${what} to this file instead of stdout: to a new file in the same folder first, renamed over the file only when the command succeeds, so a failed run leaves the previous file as it was.`,
    helpValue: '<file>',
  })
}

/**
 * Runs `work` with its stdout going to `path`, atomically: everything is written to a temporary
 * file beside it (same folder, so the rename is atomic; a hidden name of its own, never a fixed
 * one), flushed to disk and renamed over `path` only when the work succeeds. A failure, a signal or
 * an exit before that removes the temporary file and leaves any previous `path` whole. A new file
 * gets `mode` (0600 for data about customers); a file replaced keeps its mode. The folder is
 * checked before the work starts (exit 2), so nothing is fetched for a file that cannot be written.
 * Under --json the work's document (what it returns) goes to the file too. Without `path`, the work
 * runs as it is.
 */
export async function toOutputFile<T>(ctx: CommandContext, path: string | undefined, options: {mode: number; json: boolean}, work: () => Promise<T>): Promise<T | undefined> {
  if (path === undefined) return work()
  const {createWriteStream, unlinkSync} = await import('node:fs')
  const {rename, stat, unlink} = await import('node:fs/promises')
  const {basename, dirname, join, resolve} = await import('node:path')
  const {randomBytes} = await import('node:crypto')
  if (!path.trim()) throw new UsageError('--output-file needs a file name')
  const target = resolve(path)
  const existing = await stat(target).catch(() => undefined)
  if (existing?.isDirectory()) throw new UsageError(`--output-file ${path} is a folder, not a file`)
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`)
  const mode = existing ? existing.mode & 0o777 : options.mode
  const stream = createWriteStream(temporary, {flags: 'wx', mode, flush: true})
  await new Promise<void>((done, fail) => {
    stream.once('open', () => done())
    stream.once('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'ENOENT' || error.code === 'ENOTDIR' ? `the folder ${dirname(target)} does not exist` : error.code === 'EACCES' || error.code === 'EPERM' || error.code === 'EROFS' ? `the folder ${dirname(target)} is not writable` : error.message
      fail(new UsageError(`--output-file ${path} cannot be written: ${why}`))
    })
  })
  // Whatever ends the process before the rename (an uncaught error, a signal's exit) takes the
  // temporary file with it.
  let pending = true
  const sweep = () => {
    if (!pending) return
    try {
      unlinkSync(temporary)
    } catch {
      // Gone already: nothing to sweep.
    }
  }
  process.once('exit', sweep)
  const restore = redirect(ctx, stream)
  const streaming = ctx.streaming
  try {
    let result: T | undefined = await work()
    if (options.json && result !== undefined) {
      ctx.json(result)
      result = undefined
    }
    await new Promise<void>((done, fail) => {
      stream.once('error', fail)
      stream.end(() => done())
    })
    await new Promise<void>((done) => (stream.closed ? done() : stream.once('close', () => done())))
    await rename(temporary, target)
    pending = false
    return result
  } catch (error) {
    stream.destroy()
    await unlink(temporary).catch(() => {})
    pending = false
    throw error
  } finally {
    restore()
    ctx.streaming = streaming
    process.off('exit', sweep)
  }
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
