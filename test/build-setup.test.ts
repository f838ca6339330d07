import {mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {staleBuild} from './helpers/global-setup.js'

/** The tests that run the built CLI never run a stale build: what tells one (test/helpers/global-setup.ts). */
describe('a stale build', () => {
  let root: string
  const write = (path: string, time: number) => {
    mkdirSync(dirname(join(root, path)), {recursive: true})
    writeFileSync(join(root, path), '')
    utimesSync(join(root, path), time, time)
  }
  const built = (time: number) => ['dist/bundle/gateway.cjs', 'dist/bundle/launch.cjs', 'dist/sbom.cdx.json'].forEach((path) => write(path, time))
  afterEach(() => rmSync(root, {recursive: true, force: true}))

  it('is none when every output is newer than every input', () => {
    root = mkdtempSync(join(tmpdir(), 'gateway-stale-'))
    write('src/cli/argv.ts', 1000)
    write('package.json', 1000)
    built(2000)
    expect(staleBuild(root)).toBeUndefined()
  })

  it('is a source changed after the build, however deep, named', () => {
    root = mkdtempSync(join(tmpdir(), 'gateway-stale-'))
    write('src/commands/tx/create.ts', 1000)
    built(2000)
    write('src/cli/argv.ts', 3000)
    expect(staleBuild(root)).toMatch(/^src\/cli\/argv\.ts changed after the last build/)
  })

  it('is a build that stopped half-way (one output older than a source), the build scripts and the lockfile changed, or an output missing', () => {
    root = mkdtempSync(join(tmpdir(), 'gateway-stale-'))
    write('src/index.ts', 2000)
    built(3000)
    write('dist/sbom.cdx.json', 1000)
    expect(staleBuild(root)).toMatch(/^src\/index\.ts changed/)
    built(3000)
    write('scripts/build.mjs', 4000)
    expect(staleBuild(root)).toMatch(/^scripts\/build\.mjs changed/)
    built(5000)
    write('package-lock.json', 6000)
    expect(staleBuild(root)).toMatch(/^package-lock\.json changed/)
    rmSync(join(root, 'dist', 'bundle', 'launch.cjs'))
    expect(staleBuild(root)).toBe('dist/bundle/launch.cjs is missing')
  })

  it('is none for this checkout once the suite has set up (the e2e project rebuilt it if it was stale)', () => {
    root = mkdtempSync(join(tmpdir(), 'gateway-stale-'))
    expect(staleBuild(join(import.meta.dirname, '..'))).toBeUndefined()
  })
})
