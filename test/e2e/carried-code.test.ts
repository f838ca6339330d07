// The CLI runs only the code it carries. oclif loads "user plugins" named in a package.json under
// its data folder (the home's .local/share/gateway, or the temporary folder's when there is no
// home) and reads a theme from its config folder there; a uid with no passwd entry and no HOME (a
// container's) shares the temporary folder with every other user. And DEBUG (or GATEWAY_DEBUG)
// changes nothing, on the fast path or through oclif.
import {spawnSync} from 'node:child_process'
import {chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runAsUid, runCli, unstamped} from '../helpers/cli.js'

const root = typeof process.getuid === 'function' && process.getuid() === 0
const setpriv = root && spawnSync('setpriv', ['--version']).status === 0
if (!setpriv) console.log('[skip] the planted plugin for a uid without HOME needs root and setpriv; it is skipped here')

/** A uid with no passwd entry (the victim) and another one (who plants). */
const VICTIM = 12355
const PLANTER = 12356

const runAs = runAsUid

/**
 * Plants, under `home`, what oclif would load as a user plugin (an init hook that writes the
 * client secret it finds to `marker`) and a theme; owned by `owner` when given.
 */
function plant(home: string, marker: string, owner?: number): void {
  const data = join(home, '.local', 'share', 'gateway')
  const plugin = join(data, 'node_modules', 'planted')
  mkdirSync(plugin, {recursive: true})
  writeFileSync(join(data, 'package.json'), JSON.stringify({private: true, oclif: {schema: 1, plugins: [{name: 'planted', type: 'user'}]}, dependencies: {planted: '1.0.0'}}))
  writeFileSync(join(plugin, 'package.json'), JSON.stringify({name: 'planted', version: '1.0.0', main: 'index.js', oclif: {hooks: {init: './hook.js', prerun: './hook.js'}}}))
  const hook = `module.exports = async function () { require('node:fs').writeFileSync(${JSON.stringify(marker)}, String(process.env.GATEWAY_CLIENT_SECRET)) }\n`
  writeFileSync(join(plugin, 'hook.js'), hook)
  writeFileSync(join(plugin, 'index.js'), hook)
  const config = join(home, '.config', 'gateway')
  mkdirSync(config, {recursive: true})
  writeFileSync(join(config, 'theme.json'), JSON.stringify({bin: 'red', command: '#ff0000', flag: 'magenta'}))
  if (owner !== undefined) spawnSync('chown', ['-R', `${owner}:${owner}`, join(home, '.local'), join(home, '.config')])
}

describe('no plugin or theme is read from a home or the temporary folder', () => {
  let base: string
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'gateway-carried-'))
    chmodSync(base, 0o755)
  })
  afterAll(() => rmSync(base, {recursive: true, force: true}))

  it.runIf(setpriv)('a plugin another user planted in a shared 1777 temporary folder never runs for a uid without HOME or passwd entry', async () => {
    const shared = join(base, 'tmp')
    mkdirSync(shared)
    chmodSync(shared, 0o1777)
    const marker = join(shared, 'ran')
    plant(shared, marker, PLANTER)
    const config = join(base, 'victim-config')
    mkdirSync(config, {mode: 0o700})
    chownSync(config, VICTIM, VICTIM)
    // oclif's home fallback is the temporary folder: TMPDIR names the shared one.
    const env = {TMPDIR: shared, GATEWAY_CLIENT_SECRET: 'planted-plugin-target', GATEWAY_CONFIG_DIR: config}
    for (const args of [['journal', 'list'], ['--help'], ['tx', 'get', '--help'], ['pix', 'decode', '--help']]) {
      for (const fast of ['1', '0']) {
        const result = await runAs(VICTIM, args, {...env, GATEWAY_FAST_PATH: fast})
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
        expect(existsSync(marker), `${args.join(' ')} ran the planted plugin`).toBe(false)
      }
    }
  })

  it('nor one under the HOME given: the CLI is what it carries', async () => {
    const home = join(base, 'home')
    const marker = join(home, 'ran')
    plant(home, marker)
    const config = join(base, 'home-config')
    for (const args of [['journal', 'list'], ['--help'], ['auth', 'status']]) {
      const result = await runCli(args, {env: {HOME: home, GATEWAY_CONFIG_DIR: config, GATEWAY_FAST_PATH: '0'}})
      expect(result.code === 0 || result.code === 3, result.stderr).toBe(true)
      expect(existsSync(marker), `${args.join(' ')} ran the planted plugin`).toBe(false)
      expect(result.stdout + result.stderr).not.toMatch(/planted/)
    }
  })
})

describe('DEBUG changes nothing, on either path', () => {
  const id = '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11'
  const lines = [
    ['tx', 'get', id, '--base-url', 'http://127.0.0.1:9', '--retries', '0'],
    ['tx', 'get', '123'],
    ['deposits', 'list', '--status', 'NOPE'],
    ['tx', 'craete'],
    ['journal', 'list'],
    ['--help'],
  ]
  it.each(['DEBUG', 'GATEWAY_DEBUG'])('%s set prints what it prints unset, through the fast path and oclif', async (variable) => {
    const config = mkdtempSync(join(tmpdir(), 'gateway-debug-'))
    try {
      for (const args of lines) {
        for (const fast of ['1', '0']) {
          const env = {GATEWAY_CONFIG_DIR: join(config, 'c'), GATEWAY_FAST_PATH: fast, GATEWAY_CLIENT_ID: 'a', GATEWAY_CLIENT_SECRET: 'debug-secret-value'}
          const plain = await runCli(args, {env})
          const debug = await runCli(args, {env: {...env, [variable]: variable === 'DEBUG' ? '*' : '1'}})
          expect(debug.code, args.join(' ')).toBe(plain.code)
          expect(debug.stdout, args.join(' ')).toBe(plain.stdout)
          expect(unstamped(debug.stderr), args.join(' ')).toBe(unstamped(plain.stderr))
        }
      }
    } finally {
      rmSync(config, {recursive: true, force: true})
    }
  })
})
