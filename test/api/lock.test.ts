import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

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

  it('gives up after waiting for a live holder', async () => {
    const path = lockPath()
    writeFileSync(path, String(process.pid))
    await expect(withFileLock(path, async () => 'ran', {waitMs: 100})).rejects.toThrow(/timed out waiting for the lock/)
  })
})
