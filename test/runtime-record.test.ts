import {describe, expect, it} from 'vitest'

// @ts-expect-error: a build script, in JavaScript.
import {KNOWN_RUNTIMES, pinnedNode, platformPackage} from '../scripts/runtime.mjs'

const known = KNOWN_RUNTIMES as Record<string, string>

/** The pinned Node's binary package is fetched by its own install script, not the lockfile: its integrity is recorded by hand. */
describe('the runtime the build carries', () => {
  it('is checked against the integrity recorded for it', () => {
    const runtime = pinnedNode() as {checked: boolean; integrity: string; version: string}
    expect(runtime.checked).toBe(true)
    expect(runtime.integrity).toBe(known[`${platformPackage()}@${runtime.version}`])
  })

  it('stops the build when none is recorded for it, naming the line to add to KNOWN_RUNTIMES', () => {
    const key = Object.keys(known).find((name) => name.startsWith(`${platformPackage()}@`))!
    const recorded = known[key]
    delete known[key]
    try {
      expect(() => pinnedNode()).toThrow(`${key} has no integrity recorded in scripts/runtime.mjs (KNOWN_RUNTIMES)`)
      expect(() => pinnedNode()).toThrow(`  '${key}': '${recorded}',`)
    } finally {
      known[key] = recorded
    }
  })
})
