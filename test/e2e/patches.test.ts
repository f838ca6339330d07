import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, cleanEnv, runCli} from '../helpers/cli.js'
import {startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

/**
 * What each group of the build's patches of dependencies (PATCHES and the stand-ins in
 * scripts/build.mjs) is there for, seen from a real process: the build fails when a patch's text is
 * no longer in the package, and these fail when a patch still applies but no longer does its work
 * (a newer undici or oclif that loads the module another way). What each buys is in docs/performance.md
 * ("Dependency patches").
 */
const PRELOAD = `
process.on('exit', () => {
  const builtins = process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice('NativeModule '.length))
  require('node:fs').writeFileSync(process.env.PATCH_REPORT, JSON.stringify({builtins}))
})
`

interface Report {
  builtins: string[]
}

describe('the patches of dependencies still do their work', () => {
  let work: string
  let sandbox: Sandbox
  let id: string
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'gateway-patches-'))
    writeFileSync(join(work, 'preload.cjs'), PRELOAD)
    sandbox = await startTestSandbox()
    const env = {GATEWAY_CONFIG_DIR: join(work, 'config'), GATEWAY_BASE_URL: sandbox.baseUrl}
    expect((await runCli(['login', '--client-id', 'sandbox'], {env: {...env, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})).code).toBe(0)
    const created = await runCli(['tx', 'create', '--amount', '1000', '--json'], {env})
    expect(created.code, created.stderr).toBe(0)
    id = (JSON.parse(created.stdout) as {id: string}).id
  })
  afterAll(async () => {
    await sandbox?.close()
    rmSync(work, {recursive: true, force: true})
  })

  // Spawned without blocking: the sandbox answering the lookups runs in this process.
  const run = async (args: string[], extra: Record<string, string> = {}) => {
    const report = join(work, 'report.json')
    rmSync(report, {force: true})
    const env = cleanEnv({GATEWAY_CONFIG_DIR: join(work, 'config'), GATEWAY_BASE_URL: sandbox.baseUrl, PATCH_REPORT: report, ...extra})
    const child = spawn(process.execPath, ['--require', join(work, 'preload.cjs'), BIN, ...args], {env, stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    return {code, stderr, report: JSON.parse(readFileSync(report, 'utf8')) as Report}
  }

  it('oclif (through oclif, not the fast path): no readline, perf_hooks or child_process at start', async () => {
    const {code, report} = await run(['tx', 'create', '--amount', '10.00'], {GATEWAY_FAST_PATH: '0'})
    expect(code).toBe(2)
    expect(report.builtins.filter((name) => ['readline', 'perf_hooks', 'child_process', 'http', 'http2', 'crypto'].includes(name))).toEqual([])
  })

  for (const fast of ['1', '0']) {
    it(`undici (${fast === '1' ? 'the fast path' : 'through oclif'}): a lookup loads no node:http, node:http2 (its HTTP/2 client is not evaluated) or node:assert`, async () => {
      const {code, stderr, report} = await run(['tx', 'get', id, '--json'], {GATEWAY_FAST_PATH: fast})
      expect(code, stderr).toBe(0)
      expect(report.builtins.filter((name) => ['http', 'http2', 'assert'].includes(name))).toEqual([])
    })
  }
})
