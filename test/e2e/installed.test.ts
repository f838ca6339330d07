import {execFileSync, spawn, spawnSync as spawnProcessSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {cleanEnv} from '../helpers/cli.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * The package as npm installs it, from the tarball `npm pack` makes of the built checkout: no
 * dependencies pulled (the bundle holds them), the code cache used, the library entry importable.
 */
describe('the installed package', () => {
  let work: string
  let prefix: string
  let installed: string

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'gateway-install-'))
    const tarball = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work, ROOT], {encoding: 'utf8'}).trim().split('\n').at(-1)!
    prefix = join(work, 'prefix')
    execFileSync('npm', ['install', '--global', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', prefix, join(work, tarball)], {stdio: 'ignore'})
    installed = join(prefix, 'lib', 'node_modules', 'gateway-cli')
  }, 120_000)
  afterAll(() => rmSync(work, {recursive: true, force: true}))

  it('pulls no dependencies: the bundle holds everything it runs', () => {
    expect(existsSync(join(installed, 'dist', 'bundle', 'gateway.cjs'))).toBe(true)
    expect(existsSync(join(installed, 'node_modules'))).toBe(false)
    expect(existsSync(join(prefix, 'lib', 'node_modules', '@oclif'))).toBe(false)
  })

  it('uses its code caches even when the copy made the bundles newer than the caches', () => {
    const later = new Date(Date.now() + 60_000)
    for (const name of readdirSync(join(installed, 'dist', 'bundle')).filter((file) => file.endsWith('.cjs'))) utimesSync(join(installed, 'dist', 'bundle', name), later, later)
    // A refused flag evaluates a bundle (--version alone never reads one): the fast path's, and
    // with it turned off oclif's.
    const fast = spawnSync([join(prefix, 'bin', 'gateway'), 'tx', 'create', '--amount', '10.00'], {GATEWAY_CODE_CACHE_REPORT: '1'})
    expect(fast.stderr).toMatch(/^code cache of fast-tx-create\.cjs: used\n.*Error: --amount takes integer cents/)
    const byOclif = spawnSync([join(prefix, 'bin', 'gateway'), 'tx', 'create', '--amount', '10.00'], {GATEWAY_CODE_CACHE_REPORT: '1', GATEWAY_FAST_PATH: '0'})
    expect(byOclif.stderr).toMatch(/^code cache of gateway\.cjs: used\n.*Error: --amount takes integer cents/)
  })

  it('runs a command that needs the sandbox, and the sandbox itself', async () => {
    const child = spawn(join(prefix, 'bin', 'gateway'), ['sandbox', 'start', '--port', '0', '--json'], {env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe']})
    const line = await new Promise<string>((resolve, reject) => {
      let text = ''
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk
        if (text.includes('\n')) resolve(text.split('\n')[0])
      })
      child.on('close', (code) => reject(new Error(`sandbox exited ${code}`)))
    })
    const {baseUrl} = JSON.parse(line) as {baseUrl: string}
    const config = join(work, 'config')
    const env = {GATEWAY_CONFIG_DIR: config, GATEWAY_BASE_URL: baseUrl, GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'}
    const created = spawnSync([join(prefix, 'bin', 'gateway'), 'tx', 'create', '--amount', '1000', '--json'], env)
    expect(created.status, created.stderr).toBe(0)
    expect(JSON.parse(created.stdout)).toMatchObject({amount: 1000})
    child.kill('SIGTERM')
  })

  it('lets a program import the library entry from the installed package', () => {
    const project = join(work, 'project')
    mkdirSync(join(project, 'node_modules'), {recursive: true})
    execFileSync('ln', ['-s', installed, join(project, 'node_modules', 'gateway-cli')])
    writeFileSync(join(project, 'probe.mjs'), "const api = await import('gateway-cli'); console.log(typeof api.GatewayClient, typeof api.GatewayApi, typeof api.openSession)\n")
    const run = spawnSync([process.execPath, join(project, 'probe.mjs')], {}, project)
    expect(run.stderr).toBe('')
    expect(run.stdout).toBe('function function function\n')
  })
})

function spawnSync(argv: string[], env: Record<string, string>, cwd?: string): {status: number | null; stdout: string; stderr: string} {
  const run = spawnProcessSync(argv[0], argv.slice(1), {env: cleanEnv(env), cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']})
  return {status: run.status, stdout: run.stdout, stderr: run.stderr}
}
