import {spawn, spawnSync} from 'node:child_process'
import {lchownSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {FolderError} from '../../src/api/folder.js'
import {ProfileStore} from '../../src/api/store.js'
import {Journal} from '../../src/journal/journal.js'
import {BIN, cleanEnv, tempConfigDir, type CliResult} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {sandboxWithdrawals} from '../helpers/batch.js'
import {loggedInSandbox} from '../helpers/world.js'

/**
 * Files in the config folder are regular files: a FIFO or a folder planted where the program keeps
 * its files is refused with exit 3 naming the path, and a FIFO never hangs a command. A config
 * folder reached through another user's symbolic link is refused.
 */

/** The built CLI in a real process, killed after `timeoutMs` (a hang shows as a null code). */
function run(args: string[], env: Record<string, string>, timeoutMs: number): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, stdout, stderr})
    })
  })
}

const mkfifo = (path: string) => expect(spawnSync('mkfifo', ['-m', '600', path]).status).toBe(0)

describe('something other than a regular file where the program keeps its files', () => {
  const world = loggedInSandbox()
  const withdraw = ['withdraw', '--amount', '500', '--pix-key', 'maria@example.com', '--external-code', 'planted-1', '--yes']

  for (const name of ['journal.jsonl', 'journal.lock', 'tokens.json', 'config.json']) {
    it(`a FIFO, then a folder, as ${name}: exit 3 naming it, in a real process that never hangs, nothing sent`, async () => {
      const path = join(world.config.dir, name)
      const saved = `${path}.saved`
      let had = true
      try {
        renameSync(path, saved)
      } catch {
        had = false
      }
      try {
        for (const plant of [() => mkfifo(path), () => mkdirSync(path, {mode: 0o700})]) {
          plant()
          const result = await run(withdraw, world.env, 20_000)
          // Killed by the timeout (a hang) would be null.
          expect(result.code, result.stderr).toBe(3)
          expect(result.stderr).toContain(path)
          expect(result.stderr).toMatch(/a FIFO|a folder/)
          rmSync(path, {recursive: true})
        }
        expect(await sandboxWithdrawals(world.sandbox.baseUrl)).toEqual([])
      } finally {
        if (had) renameSync(saved, path)
      }
    })
  }

  it('a FIFO planted after the folder was checked is refused when opened, never read or written through', async () => {
    const config = tempConfigDir()
    try {
      const journal = new Journal(config.dir)
      await journal.append({type: 'outcome', entry: 'x', at: '', state: 'done', by: 'test'})
      rmSync(journal.path)
      mkfifo(journal.path)
      await expect(journal.entries()).rejects.toBeInstanceOf(FolderError)
      await expect(journal.append({type: 'outcome', entry: 'x', at: '', state: 'done', by: 'test'})).rejects.toThrow(/journal\.jsonl in the config folder is not a regular file \(a FIFO\)/)
      mkfifo(join(config.dir, 'tokens.json'))
      await expect(new ProfileStore(config.dir).token('default')).rejects.toThrow(/tokens\.json in the config folder is not a regular file/)
    } finally {
      config.remove()
    }
  })
})

describe('a config folder reached through a symbolic link', () => {
  let base: string
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'gateway-link-'))
  })
  afterEach(() => rmSync(base, {recursive: true, force: true}))

  const root = typeof process.getuid === 'function' && process.getuid() === 0

  it.skipIf(!root)('is refused (exit 3) when the link belongs to another user, and used when it is the user\'s own', async () => {
    const real = join(base, 'real')
    mkdirSync(real, {mode: 0o700})
    const link = join(base, 'link')
    symlinkSync(real, link)
    await logIn('http://127.0.0.1:9', {GATEWAY_CONFIG_DIR: real}).catch(() => undefined)
    const own = await runCommand(['journal', 'list'], {env: {GATEWAY_CONFIG_DIR: link}})
    expect(own.code, own.stderr).toBe(0)
    // The same link, made another user's (root can give it away; a user cannot).
    lchownSync(link, 12347, 12347)
    for (const dir of [link, `${link}/`]) {
      const refused = await runCommand(['journal', 'list'], {env: {GATEWAY_CONFIG_DIR: dir}})
      expect(refused.code).toBe(3)
      expect(refused.stderr).toContain(`the config folder ${dir} is reached through a symbolic link that belongs to another user (uid 12347)`)
    }
  })
})
