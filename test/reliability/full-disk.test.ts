import {spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {withFileLock} from '../../src/api/lock.js'
import {sandboxWithdrawals} from '../helpers/batch.js'
import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

/**
 * A full disk: the config folder on a real tmpfs filled to the last byte. A journal entry or a lock
 * that cannot be written is taken back, the command says nothing was sent (exit 1: the disk is not
 * the gateway), and the next run, once there is room, is not blocked.
 */
const root = typeof process.getuid === 'function' && process.getuid() === 0
if (!root) console.log('[skip] a full disk is made with mount -t tmpfs, which needs root; skipped here')

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
