import {chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {checkConfigFolder, FolderError} from '../../src/api/folder.js'

/**
 * The CLI's own advice, followed word for word, never throws money state away: no message tells
 * an operator to remove a config folder, a journal, its index or its archives. A folder or a file
 * of another user: run as its owner, or chown after a look at what is pending; a link in place of
 * a journal file: put the file itself there.
 */
const asRoot = process.getuid?.() === 0
const OTHER = 23461

const adviceFor = (dir: string): string => {
  try {
    checkConfigFolder(dir)
  } catch (error) {
    expect(error).toBeInstanceOf(FolderError)
    return `${(error as Error).message}\n${(error as FolderError).hint ?? ''}`
  }
  throw new Error(`${dir} was not refused`)
}

/** Advice to remove anything: `rm`, `rm -r`, `rm -rf`, "remove it", "delete" (but "never remove it"). */
const REMOVAL = /\brm\b|(?<!never )\b(remove|delete)\b/i

describe('advice that never discards the journal', () => {
  const made: string[] = []
  const folder = (): string => {
    const base = mkdtempSync(join(tmpdir(), 'gateway-advice-'))
    made.push(base)
    const dir = join(base, 'gateway')
    mkdirSync(dir, {mode: 0o700})
    writeFileSync(join(dir, 'journal.jsonl'), '', {mode: 0o600})
    return dir
  }
  afterEach(() => {
    for (const base of made.splice(0)) rmSync(base, {recursive: true, force: true})
  })

  it.runIf(asRoot)("a folder of another user (root on a cron user's folder): run as its owner, or chown after journal list --pending", () => {
    const dir = folder()
    chownSync(dir, OTHER, OTHER)
    const advice = adviceFor(dir)
    expect(advice).toContain(`belongs to another user, uid ${OTHER}`)
    expect(advice).toContain(`sudo -u #${OTHER} env GATEWAY_CONFIG_DIR=${dir} gateway journal list --pending`)
    expect(advice).toContain(`chown -R "$(id -un)": ${dir}`)
    expect(advice).not.toMatch(REMOVAL)
  })

  it.runIf(asRoot).each(['journal.jsonl', 'journal-index-a7.jsonl', 'journal-index-3.jsonl', 'journal-index.jsonl', 'journal-20261101T030000000Z.jsonl'])(
    'a journal file of another user (%s): chown, never rm',
    (name) => {
      const dir = folder()
      writeFileSync(join(dir, name), '', {mode: 0o600})
      chownSync(join(dir, name), OTHER, OTHER)
      const advice = adviceFor(dir)
      expect(advice).toContain(join(dir, name))
      expect(advice).toMatch(/chown -R/)
      expect(advice).not.toMatch(REMOVAL)
    },
  )

  it.each(['journal.jsonl', 'journal-index-a7.jsonl', 'journal-20261101T030000000Z.jsonl'])('a symbolic link in place of %s: put the file itself there, never rm', (name) => {
    const dir = folder()
    const real = join(dir, '..', `real-${name}`)
    writeFileSync(real, '', {mode: 0o600})
    rmSync(join(dir, name), {force: true})
    symlinkSync(real, join(dir, name))
    const advice = adviceFor(dir)
    expect(advice).toContain(`cp "$(readlink -f ${join(dir, name)})" ${join(dir, name)}.copy`)
    expect(advice).not.toMatch(REMOVAL)
  })

  it('a symbolic link in place of a file that is not money state (tokens.json): removing that one link is the advice', () => {
    const dir = folder()
    const real = join(dir, '..', 'real-tokens.json')
    writeFileSync(real, '{}', {mode: 0o600})
    symlinkSync(real, join(dir, 'tokens.json'))
    expect(adviceFor(dir)).toContain(`rm ${join(dir, 'tokens.json')}`)
  })
})
