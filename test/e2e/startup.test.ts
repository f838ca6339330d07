import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {unstamped} from '../helpers/cli.js'

/**
 * What start-up loads, seen from a real process: a preload records the Node built-ins loaded,
 * whether process.stdin was made, and whether zod was evaluated (it sets a global of its own).
 * Timings live in `npm run bench`; this checks that the work deferred stays deferred.
 */
const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
const PRELOAD = `
const stdin = Object.getOwnPropertyDescriptor(process, 'stdin')
let made = false
Object.defineProperty(process, 'stdin', {configurable: true, enumerable: stdin.enumerable, get() { made = true; return stdin.get.call(process) }})
process.on('exit', () => {
  const builtins = process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice('NativeModule '.length))
  require('node:fs').writeFileSync(process.env.STARTUP_REPORT, JSON.stringify({builtins, stdin: made, zod: '__zod_globalConfig' in globalThis}))
})
`

interface Report {
  builtins: string[]
  stdin: boolean
  zod: boolean
}

describe('start-up loads only what the command reaches', () => {
  let work: string
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'gateway-startup-'))
    writeFileSync(join(work, 'preload.cjs'), PRELOAD)
  })
  afterAll(() => rmSync(work, {recursive: true, force: true}))

  const run = (args: string[], input = '') => {
    const report = join(work, 'report.json')
    rmSync(report, {force: true})
    const env: Record<string, string> = {PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, GATEWAY_CONFIG_DIR: join(work, 'config'), STARTUP_REPORT: report}
    const result = spawnSync(process.execPath, ['--require', join(work, 'preload.cjs'), BIN, ...args], {env, input, encoding: 'utf8'})
    return {code: result.status, stderr: result.stderr, report: JSON.parse(readFileSync(report, 'utf8')) as Report}
  }
  const NEVER_AT_START = ['readline', 'perf_hooks', 'crypto', 'http', 'http2', 'child_process']

  it('--version and -v alone print oclif\'s own line without evaluating the bundle', () => {
    // oclif's answer, from the bundle's own runner.
    const bundle = fileURLToPath(new URL('../../dist/bundle/gateway.cjs', import.meta.url))
    const root = fileURLToPath(new URL('../..', import.meta.url))
    const oclif = (flag: string) =>
      spawnSync(process.execPath, ['-e', `const b = require(${JSON.stringify(bundle)}); b.run(${JSON.stringify(root)}, [${JSON.stringify(flag)}]).then(() => b.flush())`], {encoding: 'utf8'})
    for (const flag of ['--version', '-v']) {
      const expected = oclif(flag)
      expect(expected.status).toBe(0)
      expect(expected.stdout).toMatch(/^gateway-cli\/\d+\.\d+\.\d+ \S+-\S+ node-v\d+/)
      const fast = spawnSync(process.execPath, ['--require', join(work, 'preload.cjs'), BIN, flag], {encoding: 'utf8', env: {...process.env, STARTUP_REPORT: join(work, 'version.json')}})
      expect({code: fast.status, stdout: fast.stdout, stderr: fast.stderr}).toEqual({code: expected.status, stdout: expected.stdout, stderr: expected.stderr})
      // The bundle was not evaluated: oclif's own modules never loaded Node's module for its terminal checks.
      const loaded = (JSON.parse(readFileSync(join(work, 'version.json'), 'utf8')) as Report).builtins
      expect(loaded).not.toContain('vm')
    }
    // With anything else on the line, oclif reads it as ever.
    const other = spawnSync(process.execPath, [BIN, '--version', '--json'], {encoding: 'utf8'})
    expect(other.stdout).toBe(oclif('--version').stdout)
  })

  it('--version: no readline, perf_hooks, crypto or http, no stdin, no zod', () => {
    const {code, report} = run(['--version'])
    expect(code).toBe(0)
    expect(report.builtins.filter((name) => NEVER_AT_START.includes(name))).toEqual([])
    expect(report.stdin).toBe(false)
    expect(report.zod).toBe(false)
  })

  it('a bad flag of tx create is refused before zod, the contracts, crypto or stdin are loaded', () => {
    const {code, stderr, report} = run(['tx', 'create', '--amount', '10.00'])
    expect(code).toBe(2)
    expect(unstamped(stderr)).toBe('Error: --amount takes integer cents, not a decimal: 10.00 is --amount 1000\n')
    expect(report.builtins.filter((name) => NEVER_AT_START.includes(name))).toEqual([])
    expect(report.stdin).toBe(false)
    expect(report.zod).toBe(false)
  })

  it('a bad flag of withdraw likewise', () => {
    const {code, stderr, report} = run(['withdraw', '--amount', '10.5', '--pix-key', 'maria@example.com', '--yes'])
    expect(code).toBe(2)
    expect(unstamped(stderr)).toMatch(/^Error: --amount takes integer cents/)
    expect(report.builtins).not.toContain('crypto')
    expect(report.zod).toBe(false)
  })

  it('a create refused by the rules loads the contract, and crypto only to make its key', () => {
    const {code, report} = run(['tx', 'create', '--amount', '0'])
    expect(code).toBe(2)
    expect(report.zod).toBe(true)
    expect(report.stdin).toBe(false)
  })

  it('stdin is made when a command reads it', () => {
    const {code, report} = run(['tx', 'create', '--body', '-'], '{"amount": "x"}')
    expect(code).toBe(2)
    expect(report.stdin).toBe(true)
  })
})
