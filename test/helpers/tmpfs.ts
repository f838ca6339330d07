import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, statSync, truncateSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

/**
 * Small real file systems for tests of what a full disk does: a tmpfs mounted in a folder of its
 * own. Mounting needs root (or the capability); where the kernel refuses, `why` says so and the
 * tests that need one are skipped with that reason, never silently.
 */
export interface Tmpfs {
  path: string
  /** Fills the file system, then frees `room` bytes (rounded to the 4 KiB pages tmpfs counts in). */
  fill(room?: number): void
  /** Removes the filler: the room there was. */
  empty(): void
  unmount(): void
}

/** Whether tmpfs can be mounted here, and why not when it cannot (tried once, on a folder of its own). */
export function tmpfsRefusal(): string | undefined {
  const probe = mkdtempSync(join(tmpdir(), 'gateway-probe-'))
  try {
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', probe], {encoding: 'utf8'})
    if (mounted.error) return `mount cannot run: ${mounted.error.message}`
    if (mounted.status !== 0) return `the kernel refused mount -t tmpfs: ${mounted.stderr.trim()}`
    spawnSync('umount', [probe])
    return undefined
  } finally {
    rmSync(probe, {recursive: true, force: true})
  }
}

/** Mounts a tmpfs of `size` (e.g. "64k") on a new folder, with `mode` for its root. */
export function mountTmpfs(size: string, mode = '0700'): Tmpfs {
  const path = mkdtempSync(join(tmpdir(), 'gateway-tmpfs-'))
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=${mode}`, 'tmpfs', path], {encoding: 'utf8'})
  if (mounted.status !== 0) throw new Error(`mount -t tmpfs failed: ${mounted.stderr}`)
  const filler = join(path, '.filler')
  return {
    path,
    fill(room = 0) {
      rmSync(filler, {force: true})
      const page = Buffer.alloc(4096, 1)
      for (;;) {
        try {
          writeFileSync(filler, page, {flag: 'a'})
        } catch {
          break
        }
      }
      for (;;) {
        try {
          writeFileSync(filler, 'x', {flag: 'a'})
        } catch {
          break
        }
      }
      if (room > 0) truncateSync(filler, Math.max(0, statSync(filler).size - room))
    },
    empty() {
      rmSync(filler, {force: true})
    },
    unmount() {
      spawnSync('umount', [path])
      rmSync(path, {recursive: true, force: true})
    },
  }
}
