import {spawn, spawnSync} from 'node:child_process'
import {chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {PermissionError, UsageError, WriteError} from '../../src/cli/errors.js'
import {checkFileTarget, openFileSink, writeFileWhole} from '../../src/output/file.js'
import {writeText} from '../../src/output/write.js'
import {mountTmpfs, tmpfsRefusal, type Tmpfs} from '../helpers/tmpfs.js'

/**
 * The one writer of every file the CLI writes, on real file systems: a small tmpfs that fills up,
 * a sticky folder another user writes in, a named pipe and device nodes.
 */
const root = typeof process.getuid === 'function' && process.getuid() === 0
const refusal = root ? tmpfsRefusal() : 'mount -t tmpfs and mknod need root'
if (refusal) console.log(`[skip] the writer on a small tmpfs, a sticky folder of two users and device nodes: ${refusal}`)

/** Another user: nobody, or the test's own when there is none. */
const OTHER = 65534

const EXPORT = Buffer.from('id,amount\r\n'.repeat(2000))
const LAST_GOOD = 'the last good export\r\n'.repeat(37)

describe('the writer of a file, in folders of our own', () => {
  let folder: string
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'gateway-writer-'))
  })
  afterAll(() => rmSync(folder, {recursive: true, force: true}))

  it('makes a new file 0600 whatever the umask, and leaves nothing beside it', async () => {
    const file = join(folder, 'new.csv')
    const umask = process.umask(0)
    try {
      await writeFileWhole(file, EXPORT, {flag: '--output-file', mode: 0o600})
    } finally {
      process.umask(umask)
    }
    expect(readFileSync(file)).toEqual(EXPORT)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readdirSync(folder)).toEqual(['new.csv'])
  })

  it('keeps the mode of a file of the user it replaces, and takes nothing from the temporary', async () => {
    const file = join(folder, 'kept.csv')
    writeFileSync(file, LAST_GOOD)
    chmodSync(file, 0o640)
    await writeFileWhole(file, EXPORT, {flag: '--output-file', mode: 0o600})
    expect(statSync(file).mode & 0o777).toBe(0o640)
    expect(readFileSync(file)).toEqual(EXPORT)
  })

  it('abort leaves the target byte for byte as it was and removes the temporary', async () => {
    const file = join(folder, 'aborted.csv')
    writeFileSync(file, LAST_GOOD)
    const sink = await openFileSink(file, {flag: '--output-file', mode: 0o600})
    await sink.write(EXPORT)
    expect(readdirSync(folder).filter((name) => name.includes('aborted'))).toHaveLength(2)
    await sink.abort()
    expect(readFileSync(file, 'utf8')).toBe(LAST_GOOD)
    expect(readdirSync(folder).filter((name) => name.includes('aborted'))).toEqual(['aborted.csv'])
  })

  it('replaces a symbolic link to a regular file by a file, and leaves what it pointed at alone', async () => {
    const pointed = join(folder, 'pointed.csv')
    writeFileSync(pointed, LAST_GOOD)
    const link = join(folder, 'link.csv')
    symlinkSync(pointed, link)
    await writeFileWhole(link, EXPORT, {flag: '--output-file', mode: 0o600})
    expect(lstatSync(link).isFile()).toBe(true)
    expect(readFileSync(pointed, 'utf8')).toBe(LAST_GOOD)
  })

  it('refuses a folder, and a folder that does not exist, before anything is written (exit 2)', () => {
    expect(() => checkFileTarget(folder, '--output-file')).toThrow(UsageError)
    expect(() => checkFileTarget(folder, '--output-file')).toThrow(/is a folder, not a file/)
    expect(() => checkFileTarget(join(folder, 'missing', 'x.csv'), '--output-file')).toThrow(/--output-file .*x\.csv cannot be written: the folder .*missing does not exist/)
  })

  it('writes to a named pipe as the shell would, and leaves it a pipe', async () => {
    const fifo = join(folder, 'pipe')
    spawnSync('mkfifo', [fifo])
    const reader = spawn('cat', [fifo])
    let read = ''
    reader.stdout.setEncoding('latin1').on('data', (chunk: string) => (read += chunk))
    const closed = new Promise((done) => reader.on('close', done))
    await writeFileWhole(fifo, EXPORT, {flag: '--output-file', mode: 0o600})
    await closed
    expect(read).toBe(EXPORT.toString('latin1'))
    expect(lstatSync(fifo).isFIFO()).toBe(true)
    expect(readdirSync(folder).filter((name) => name.includes('pipe'))).toEqual(['pipe'])
  })
})

describe.skipIf(Boolean(refusal))('the writer on a small tmpfs, in a sticky folder, on device nodes', () => {
  let disk: Tmpfs
  beforeAll(() => {
    disk = mountTmpfs('64k', '0755')
  })
  afterEach(() => {
    disk.empty()
    for (const name of readdirSync(disk.path)) rmSync(join(disk.path, name), {recursive: true, force: true})
  })
  afterAll(() => disk?.unmount())

  /** What the folder holds besides the filler: the target alone, never a temporary. */
  const names = () => readdirSync(disk.path).filter((name) => name !== '.filler')

  it.each([
    ['no room at all', 0],
    ['a few KiB', 8 * 1024],
    ['room for part of the file', 16 * 1024],
  ])('%s: the write fails naming the file and the disk, the last good file is intact, the temporary gone', async (_name, room) => {
    const file = join(disk.path, 'paid.csv')
    writeFileSync(file, LAST_GOOD)
    disk.fill(room)
    const failed = writeFileWhole(file, EXPORT, {flag: '--output-file', mode: 0o600})
    await expect(failed).rejects.toThrow(WriteError)
    await expect(failed).rejects.toThrow(`cannot write --output-file ${file}: the disk is full; the file was left as it was`)
    expect(readFileSync(file, 'utf8')).toBe(LAST_GOOD)
    expect(names()).toEqual(['paid.csv'])
  })

  it('a write that fails while nobody waits on it (between pages) is reported by the next write, not lost', async () => {
    const file = join(disk.path, 'paged.csv')
    disk.fill(8 * 1024)
    const sink = await openFileSink(file, {flag: '--output-file', mode: 0o600})
    // Below the stream's mark: write answers at once, the failure comes later.
    sink.stream.write(EXPORT.subarray(0, 12 * 1024))
    await new Promise((done) => setTimeout(done, 50))
    expect(sink.failure?.message).toMatch(/the disk is full/)
    // The next page, written as an export writes it: rejected at once, no wait for a drain.
    await expect(writeText(sink.stream, EXPORT)).rejects.toThrow(/ENOSPC/)
    await expect(sink.commit()).rejects.toThrow(/the disk is full/)
    expect(names()).toEqual([])
  })

  it("refuses another user's file in a sticky folder before writing anything (exit 3), naming it and its owner", async () => {
    const shared = join(disk.path, 'shared')
    mkdirSync(shared)
    chmodSync(shared, 0o1777)
    const file = join(shared, 'paid.csv')
    // The other user makes the file first, open to all.
    const made = spawnSync('setpriv', [`--reuid=${OTHER}`, `--regid=${OTHER}`, '--clear-groups', 'sh', '-c', `umask 0; printf 'theirs' > '${file}'`], {encoding: 'utf8'})
    expect(made.status, made.stderr).toBe(0)
    expect(statSync(file).uid).toBe(OTHER)
    const failed = openFileSink(file, {flag: '--output-file', mode: 0o600})
    await expect(failed).rejects.toThrow(PermissionError)
    await expect(failed).rejects.toThrow(new RegExp(`^--output-file ${file} belongs to another user, \\S+ \\(uid ${OTHER}\\)`))
    expect(readdirSync(shared)).toEqual(['paid.csv'])
    expect(readFileSync(file, 'utf8')).toBe('theirs')
  })

  it('a new file in a sticky folder is never readable by the other user, while written or after', async () => {
    const shared = join(disk.path, 'shared')
    mkdirSync(shared)
    chmodSync(shared, 0o1777)
    const file = join(shared, 'paid.csv')
    const sink = await openFileSink(file, {flag: '--output-file', mode: 0o600})
    await sink.write(EXPORT)
    const temporary = readdirSync(shared).find((name) => name.endsWith('.tmp'))!
    const peek = (path: string) => spawnSync('setpriv', [`--reuid=${OTHER}`, `--regid=${OTHER}`, '--clear-groups', 'cat', path], {encoding: 'utf8'})
    expect(peek(join(shared, temporary)).status).not.toBe(0)
    await sink.commit()
    expect(peek(file).status).not.toBe(0)
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it("writes to a device node as the shell's > would, never renamed over: /dev/null's takes it, /dev/full's fails naming it", async () => {
    const nul = join(disk.path, 'null')
    const full = join(disk.path, 'full')
    expect(spawnSync('mknod', [nul, 'c', '1', '3']).status).toBe(0)
    expect(spawnSync('mknod', [full, 'c', '1', '7']).status).toBe(0)
    await writeFileWhole(nul, EXPORT, {flag: '--output-file', mode: 0o600})
    expect(lstatSync(nul).isCharacterDevice()).toBe(true)
    const failed = writeFileWhole(full, EXPORT, {flag: '--output-file', mode: 0o600})
    await expect(failed).rejects.toThrow(`cannot write --output-file ${full}: the disk is full`)
    expect(lstatSync(full).isCharacterDevice()).toBe(true)
    expect(statSync(full).rdev).toBe(statSync('/dev/full').rdev)
    expect(names().sort()).toEqual(['full', 'null'])
  })

  it("writes to another user's device node (a terminal's, /dev/null) rather than refusing it: the owner rule is for regular files", async () => {
    const nul = join(disk.path, 'theirs-null')
    expect(spawnSync('mknod', ['-m', '666', nul, 'c', '1', '3']).status).toBe(0)
    chownSync(nul, OTHER, OTHER)
    await writeFileWhole(nul, EXPORT, {flag: '--output-file', mode: 0o600})
    expect(lstatSync(nul).isCharacterDevice()).toBe(true)
    expect(existsSync(nul)).toBe(true)
  })
})
