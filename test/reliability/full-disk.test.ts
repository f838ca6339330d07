import {spawn, spawnSync} from 'node:child_process'
import {chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {withFileLock} from '../../src/api/lock.js'
import {sandboxWithdrawals} from '../helpers/batch.js'
import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'
import {mountTmpfs, tmpfsRefusal, type Tmpfs} from '../helpers/tmpfs.js'
import {expectedCsv} from '../../src/sandbox/domain/seed.js'

/**
 * A full disk: the config folder on a real tmpfs filled to the last byte. A journal entry or a lock
 * that cannot be written is taken back, the command says nothing was sent (exit 1: the disk is not
 * the gateway), and the next run, once there is room, is not blocked.
 */
const root = typeof process.getuid === 'function' && process.getuid() === 0
if (!root) console.log('[skip] a full disk is made with mount -t tmpfs, which needs root; skipped here')
const exportRefusal = root ? tmpfsRefusal() : 'mount -t tmpfs, mknod and setpriv need root'
if (root && exportRefusal) console.log(`[skip] a full disk under the files commands write: ${exportRefusal}`)

describe.skipIf(!root)('a full disk', () => {
  let sandbox: Sandbox
  let mount: string
  let env: Record<string, string>
  let dir: string
  const filler = () => join(mount, 'filler')

  /** Fills the file system: a file grown until the disk refuses another byte. */
  function fill(): void {
    const chunk = Buffer.alloc(4096, 1)
    rmSync(filler(), {force: true})
    for (;;) {
      try {
        writeFileSync(filler(), chunk, {flag: 'a'})
      } catch {
        break
      }
    }
    for (;;) {
      try {
        writeFileSync(filler(), 'x', {flag: 'a'})
      } catch {
        break
      }
    }
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    mount = mkdtempSync(join(tmpdir(), 'gateway-full-'))
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0700', 'tmpfs', mount])
    if (mounted.status !== 0) throw new Error(`mount -t tmpfs failed: ${String(mounted.stderr)}`)
    // Logged in elsewhere, then the folder copied onto the small file system.
    const elsewhere = tempConfigDir()
    await logIn(sandbox.baseUrl, {GATEWAY_CONFIG_DIR: elsewhere.dir})
    dir = join(mount, 'config')
    cpSync(elsewhere.dir, dir, {recursive: true})
    elsewhere.remove()
    env = {GATEWAY_CONFIG_DIR: dir}
  })
  afterAll(async () => {
    await sandbox?.close()
    spawnSync('umount', [mount])
    rmSync(mount, {recursive: true, force: true})
  })

  it('a withdraw whose journal entry cannot be written sends nothing, says so, exits 1, leaves no lock or torn line, and the next run goes', async () => {
    const args = ['withdraw', '--amount', '900', '--pix-key', 'maria@example.com', '--external-code', 'full-disk-1', '--yes']
    // A journal with an entry already, so that a torn line would show.
    const first = await runCommand(['withdraw', '--amount', '100', '--pix-key', 'maria@example.com', '--external-code', 'full-disk-0', '--yes'], {env})
    expect(first.code, first.stderr).toBe(0)
    // Its last page filled with blank lines (which the journal skips): the next line needs a new page.
    const size = statSync(join(dir, 'journal.jsonl')).size
    writeFileSync(join(dir, 'journal.jsonl'), '\n'.repeat(4096 - (size % 4096)), {flag: 'a'})
    const journal = readFileSync(join(dir, 'journal.jsonl'), 'utf8')
    fill()
    const before = (await stats(sandbox.baseUrl)).requests
    for (let run = 0; run < 2; run++) {
      const full = await runCommand(args, {env})
      expect(full.code).toBe(1)
      expect(full.stdout).toBe('')
      expect(full.stderr).toMatch(/cannot write the journal \S+journal\.jsonl \(ENOSPC\), so nothing was sent: the disk is full/)
      // Nothing left behind: the journal as it was, no lock.
      expect(readFileSync(join(dir, 'journal.jsonl'), 'utf8')).toBe(journal)
      expect(readdirSync(dir).filter((name) => name.includes('lock'))).toEqual([])
    }
    expect((await stats(sandbox.baseUrl)).requests).toBe(before)
    expect((await sandboxWithdrawals(sandbox.baseUrl)).filter((withdrawal) => withdrawal.externalCode === 'full-disk-1')).toEqual([])
    // Room again: the next run is not blocked, and not refused as a repeat of what was never sent.
    rmSync(filler())
    const next = await runCommand(args, {env})
    expect(next.code, next.stderr).toBe(0)
    expect((await sandboxWithdrawals(sandbox.baseUrl)).filter((withdrawal) => withdrawal.externalCode === 'full-disk-1')).toHaveLength(1)
  })

  it('a lock file that cannot be written (where no socket can be made) is removed, and says nothing was sent', async () => {
    // A path too long for a socket: the lock is a file, which a full disk cannot hold.
    const deep = join(mount, 'x'.repeat(110))
    mkdirSync(deep, {mode: 0o700})
    const path = join(deep, 'journal.lock')
    fill()
    await expect(withFileLock(path, async () => 'ran', {waitMs: 500})).rejects.toThrow(/^cannot write the lock \S+ \(ENOSPC\), so nothing was sent/)
    expect(readdirSync(deep)).toEqual([])
    rmSync(filler())
    await expect(withFileLock(path, async () => 'ran', {waitMs: 500})).resolves.toBe('ran')
    expect(existsSync(path)).toBe(false)
    expect(statSync(deep).isDirectory()).toBe(true)
  })
})

/**
 * Every file a command writes, on a real 64 KiB tmpfs: with no room, a few KiB, and room for part
 * of the export, from a gateway that takes 50 ms a page (so the disk fills between pages, while
 * nothing waits on the file). Each run exits 1 with one line naming the file and "the disk is
 * full", leaves the last good file byte for byte, and leaves no temporary behind.
 */
describe.skipIf(Boolean(exportRefusal))('a full disk under the files commands write', () => {
  let sandbox: Sandbox
  let disk: Tmpfs
  let env: Record<string, string>
  let config: ReturnType<typeof tempConfigDir>
  /** The last good export: 825 bytes, as the one a full disk used to empty. */
  const LAST_GOOD = 'id,amount\r\n' + 'x'.repeat(812) + '\r\n'

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 600, seedReconcile: 40, latencyMs: 50})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
    disk = mountTmpfs('64k', '0755')
  })
  afterEach(() => {
    disk.empty()
    for (const name of readdirSync(disk.path)) rmSync(join(disk.path, name), {recursive: true, force: true})
  })
  afterAll(async () => {
    await sandbox?.close()
    config?.remove()
    disk?.unmount()
  })

  /** The error lines of a run: exactly one is expected. */
  const errors = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('Error:'))
  const names = () => readdirSync(disk.path).filter((name) => name !== '.filler')
  /** Charges the gateway was asked to create. */
  const charges = async () => (await stats(sandbox.baseUrl)).byRoute['POST /core/transaction'] ?? 0

  it.each([
    ['no room at all', 0],
    ['a few KiB', 8 * 1024],
    ['room for part of the export, the disk filling between pages', 40 * 1024],
  ])('deposits list --all --output csv --output-file, %s: exit 1, one line, the last good file intact', async (_name, room) => {
    const file = join(disk.path, 'paid.csv')
    writeFileSync(file, LAST_GOOD)
    disk.fill(room)
    const result = await runCommand(['deposits', 'list', '--all', '--quiet', '--output', 'csv', '--output-file', file], {env})
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(errors(result.stderr)).toEqual([`Error: cannot write --output-file ${file}: the disk is full; the file was left as it was`])
    expect(result.stderr).not.toMatch(/^\s+at /m)
    expect(readFileSync(file, 'utf8')).toBe(LAST_GOOD)
    expect(names()).toEqual(['paid.csv'])
  })

  it('the export is larger than the room left above, and with room enough is written whole (exit 0)', async () => {
    const whole = await runCommand(['deposits', 'list', '--all', '--quiet', '--output', 'csv'], {env})
    expect(whole.code, whole.stderr).toBe(0)
    expect(Buffer.byteLength(whole.stdout)).toBeGreaterThan(48 * 1024)
    const file = join(disk.path, 'paid.csv')
    writeFileSync(file, LAST_GOOD)
    const result = await runCommand(['deposits', 'list', '--all', '--quiet', '--status', 'REFUNDED', '--output', 'csv', '--output-file', file], {env})
    expect(result.code, result.stderr).toBe(0)
    expect(readFileSync(file, 'utf8')).toMatch(/^id,/)
    expect(readFileSync(file, 'utf8').length).toBeGreaterThan(LAST_GOOD.length)
    expect(names()).toEqual(['paid.csv'])
  })

  it.each([
    ['deposits summary --output csv', ['deposits', 'summary', '--output', 'csv']],
    ['deposits summary --json', ['deposits', 'summary', '--json']],
    ['deposits reconcile --output csv', ['deposits', 'reconcile', '--expected', '{expected}', '--from', '1d', '--output', 'csv']],
    ['deposits reconcile (the tables)', ['deposits', 'reconcile', '--expected', '{expected}', '--from', '1d']],
  ])('%s --output-file with no room: exit 1, one line naming the file, the last good file intact', async (_name, argv) => {
    const expected = join(config.dir, '..', 'expected.csv')
    writeFileSync(expected, expectedCsv(sandbox.domain.expectedSeeds))
    const file = join(disk.path, 'report.out')
    writeFileSync(file, LAST_GOOD)
    disk.fill(0)
    const result = await runCommand([...argv.map((word) => word.replace('{expected}', expected)), '--output-file', file], {env})
    expect(result.code, result.stderr).toBe(1)
    expect(errors(result.stderr)).toEqual([`Error: cannot write --output-file ${file}: the disk is full; the file was left as it was`])
    expect(readFileSync(file, 'utf8')).toBe(LAST_GOOD)
    expect(names()).toEqual(['report.out'])
  })

  it('deposits reconcile --output-file keeps its report when there are discrepancies (exit 10), under --json too', async () => {
    const expected = join(config.dir, '..', 'expected.csv')
    writeFileSync(expected, expectedCsv(sandbox.domain.expectedSeeds))
    const file = join(disk.path, 'report.csv')
    const result = await runCommand(['deposits', 'reconcile', '--expected', expected, '--from', '1d', '--output', 'csv', '--output-file', file], {env})
    expect(result.code, result.stderr).toBe(10)
    expect(result.stdout).toBe('')
    expect(readFileSync(file, 'utf8').split('\r\n')[0]).toMatch(/^class,line,externalCode/)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const json = join(disk.path, 'report.json')
    const document = await runCommand(['deposits', 'reconcile', '--expected', expected, '--from', '1d', '--json', '--output-file', json], {env})
    expect(document.code).toBe(10)
    expect(JSON.parse(readFileSync(json, 'utf8'))).toMatchObject({summary: {rows: 40}})
    expect(JSON.parse(document.stdout).error).toMatchObject({exitCode: 10})
    expect(names().sort()).toEqual(['report.csv', 'report.json'])
  })

  it('deposits summary --chart png on a full disk: exit 1, one line naming the file', async () => {
    const png = join(disk.path, 'paid.png')
    disk.fill(0)
    const result = await runCommand(['deposits', 'summary', '--chart', 'png', png, '--output', 'csv'], {env})
    expect(result.code).toBe(1)
    expect(errors(result.stderr)).toEqual([`Error: cannot write --chart png ${png}: the disk is full; the file was left as it was`])
    expect(names()).toEqual([])
  })

  it('tx create --qr-png on a full disk: exit 1, one line naming the charge made and how to get its image without a new one', async () => {
    const png = join(disk.path, 'qr.png')
    disk.fill(0)
    const before = await charges()
    const result = await runCommand(['tx', 'create', '--amount', '1500', '--qr-png', png], {env})
    expect(result.code).toBe(1)
    expect(await charges()).toBe(before + 1)
    const id = result.ctx.made.at(-1)!.id
    expect(errors(result.stderr)).toEqual([
      `Error: the charge ${id} was created, but --qr-png ${png} could not be written (the disk is full). Get its image without a new charge: gateway tx get ${id} --qr-png ${png}`,
    ])
    // The record is shown beside the error, for a person.
    expect(result.stdout).toContain(id)
    expect(names()).toEqual([])
  })

  it("another user's file in a sticky folder: refused before anything is fetched (exit 3), naming the file and its owner", async () => {
    const shared = join(disk.path, 'shared')
    mkdirSync(shared)
    chmodSync(shared, 0o1777)
    const file = join(shared, 'paid.csv')
    const made = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'sh', '-c', `umask 0; : > '${file}'`], {encoding: 'utf8'})
    expect(made.status, made.stderr).toBe(0)
    for (const argv of [
      ['deposits', 'list', '--all', '--output', 'csv'],
      ['deposits', 'summary', '--output', 'csv'],
    ]) {
      const before = (await stats(sandbox.baseUrl)).requests
      const result = await runCommand([...argv, '--output-file', file], {env})
      expect(result.code).toBe(3)
      expect(errors(result.stderr)).toEqual([`Error: --output-file ${file} belongs to another user, nobody (uid 65534): it is not replaced (their file could be read or kept by them); choose another name, or have them remove it`])
      expect((await stats(sandbox.baseUrl)).requests).toBe(before)
    }
    const before = await charges()
    const charge = await runCommand(['tx', 'create', '--amount', '1500', '--qr-png', file], {env})
    expect(charge.code).toBe(3)
    expect(await charges()).toBe(before)
    expect(readdirSync(shared)).toEqual(['paid.csv'])
    expect(statSync(file).size).toBe(0)
  })

  it('a device node and a named pipe are written to, never replaced', async () => {
    const nul = join(disk.path, 'null')
    const full = join(disk.path, 'full')
    const fifo = join(disk.path, 'pipe')
    expect(spawnSync('mknod', [nul, 'c', '1', '3']).status).toBe(0)
    expect(spawnSync('mknod', [full, 'c', '1', '7']).status).toBe(0)
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
    const argv = ['deposits', 'list', '--all', '--quiet', '--status', 'PAID', '--output', 'csv', '--output-file']
    const toNull = await runCommand([...argv, nul], {env})
    expect(toNull.code, toNull.stderr).toBe(0)
    const toFull = await runCommand([...argv, full], {env})
    expect(toFull.code).toBe(1)
    expect(errors(toFull.stderr)).toEqual([`Error: cannot write --output-file ${full}: the disk is full`])
    const reader = spawn('cat', [fifo])
    let read = ''
    reader.stdout.setEncoding('utf8').on('data', (chunk: string) => (read += chunk))
    const closed = new Promise((done) => reader.on('close', done))
    const toPipe = await runCommand([...argv, fifo], {env})
    await closed
    expect(toPipe.code, toPipe.stderr).toBe(0)
    expect(read.split('\r\n')[0]).toMatch(/^id,/)
    expect(lstatSync(nul).isCharacterDevice()).toBe(true)
    expect(lstatSync(full).isCharacterDevice()).toBe(true)
    expect(lstatSync(fifo).isFIFO()).toBe(true)
    expect(names().sort()).toEqual(['full', 'null', 'pipe'])
  })
})
