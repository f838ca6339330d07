import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterEach, describe, expect, it} from 'vitest'

import {withFileLock} from '../../src/api/lock.js'

const dirs: string[] = []
const lockPath = () => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-lock-'))
  dirs.push(dir)
  return join(dir, '.lock')
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

describe('withFileLock', () => {
  it('never lets two holders in at once', async () => {
    const path = lockPath()
    let inside = 0
    let most = 0
    await Promise.all(
      Array.from({length: 8}, () =>
        withFileLock(path, async () => {
          inside += 1
          most = Math.max(most, inside)
          await new Promise((resolve) => setTimeout(resolve, 5))
          inside -= 1
        }),
      ),
    )
    expect(most).toBe(1)
  })

  it('takes over a lock whose holder died', async () => {
    const path = lockPath()
    writeFileSync(path, '999999999')
    await expect(withFileLock(path, async () => 'ran', {waitMs: 1000})).resolves.toBe('ran')
  })

  it('a holder killed at any point leaves its id in the lock, never an empty lock: the next taker goes in at once', async () => {
    const path = lockPath()
    const lock = fileURLToPath(new URL('../../dist/api/lock.js', import.meta.url))
    // A process that takes the lock and is killed while it holds it, before it can let go.
    const child = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `const {withFileLock} = await import(${JSON.stringify(lock)}); await withFileLock(${JSON.stringify(path)}, async () => process.kill(process.pid, 'SIGKILL'))`],
      {encoding: 'utf8'},
    )
    expect(child.signal).toBe('SIGKILL')
    expect(readFileSync(path, 'utf8')).toBe(String(child.pid))
    await expect(withFileLock(path, async () => 'ran', {waitMs: 1000})).resolves.toBe('ran')
    expect(existsSync(path)).toBe(false)
    // The killed process's own file is cleared away by the next one; this process's stays until it exits.
    expect(readdirSync(dirname(path)).sort()).toEqual([`.lock.${process.pid}`])
  })

  it('gives up after waiting for a live holder', async () => {
    const path = lockPath()
    writeFileSync(path, String(process.pid))
    await expect(withFileLock(path, async () => 'ran', {waitMs: 100})).rejects.toThrow(/timed out waiting for the lock/)
  })
})
