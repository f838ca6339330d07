import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {cleanEnv} from '../helpers/cli.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {scripts: Record<string, string>}

/** npm runs these when it installs a package (prepare too, for a package from a tarball, folder or git). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare']

describe('installing the package', () => {
  let work: string
  let tarball: string

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'gateway-scripts-'))
    tarball = join(work, execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work, ROOT], {encoding: 'utf8'}).trim().split('\n').at(-1)!)
  }, 120_000)
  afterAll(() => rmSync(work, {recursive: true, force: true}))

  it('has no install script: the tarball holds the built CLI', () => {
    const packed = JSON.parse(execFileSync('tar', ['-xOzf', tarball, 'package/package.json'], {encoding: 'utf8'})) as {scripts?: Record<string, string>}
    for (const name of INSTALL_SCRIPTS) expect(packed.scripts?.[name], name).toBeUndefined()
    // A fresh clone still builds whatever needs it: the scripts that use the build run it first, and so does npm pack.
    for (const name of ['test', 'demo', 'bench', 'package', 'prepack']) expect(pkg.scripts[name], name).toMatch(/^npm run build\b/)
  })

  it('installs globally with scripts allowed, and npm warns of no script to run', () => {
    const prefix = join(work, 'prefix')
    const run = spawnSync('npm', ['install', '--global', '--no-audit', '--no-fund', '--prefix', prefix, tarball], {env: cleanEnv(), encoding: 'utf8'})
    expect(run.status, run.stderr).toBe(0)
    expect(run.stderr).not.toMatch(/install-scripts|prepare|postinstall/)
    const version = spawnSync(join(prefix, 'bin', 'gateway'), ['--version'], {env: cleanEnv(), encoding: 'utf8'})
    expect(version.stdout).toMatch(/^gateway-cli\/\d+\.\d+\.\d+ /)
  }, 120_000)
})
