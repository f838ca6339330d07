import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {createInterface} from 'node:readline'

import {afterEach, describe, expect, it} from 'vitest'

import {BIN, cleanEnv, runCli, tempConfigDir} from '../helpers/cli.js'

interface Started {
  child: ChildProcessWithoutNullStreams
  ready: {baseUrl: string; clients: Array<{clientId: string; clientSecret: string; scopes: string[]}>}
  lines: string[]
}

/** Spawns `gateway sandbox start ... --json` and waits for its one line. */
async function start(args: string[] = []): Promise<Started> {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--json', ...args], {env: cleanEnv()})
  const lines: string[] = []
  const reader = createInterface({input: child.stdout})
  const first = await new Promise<string>((resolve, reject) => {
    reader.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`sandbox start exited ${code}`)))
  })
  reader.on('line', (line) => lines.push(line))
  return {child, ready: JSON.parse(first), lines}
}

function exitOf(child: ChildProcessWithoutNullStreams): Promise<{code: number | null; signal: NodeJS.Signals | null}> {
  if (child.exitCode !== null) return Promise.resolve({code: child.exitCode, signal: null})
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({code, signal})))
}

describe('gateway sandbox start', () => {
  const running: ChildProcessWithoutNullStreams[] = []
  afterEach(() => {
    for (const child of running.splice(0)) child.kill('SIGKILL')
  })

  it.each(['SIGTERM', 'SIGINT'] as const)('prints one JSON line when ready, serves, and stops cleanly on %s', async (signal) => {
    const sandbox = await start()
    running.push(sandbox.child)
    expect(sandbox.ready.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(sandbox.ready.clients).toEqual([
      {clientId: 'sandbox', clientSecret: 'sandbox-secret', scopes: ['transaction', 'deposit', 'withdraw', 'resend_dispatcher']},
      {clientId: 'sandbox-limited', clientSecret: 'sandbox-secret', scopes: ['transaction', 'deposit', 'withdraw']},
    ])
    const response = await fetch(`${sandbox.ready.baseUrl}/_sandbox/stats`)
    expect(response.status).toBe(200)
    sandbox.child.kill(signal)
    expect(await exitOf(sandbox.child)).toEqual({code: 0, signal: null})
    expect(sandbox.lines).toEqual([])
    await expect(fetch(`${sandbox.ready.baseUrl}/_sandbox/stats`)).rejects.toThrow()
  })

  it('refuses a host that is not loopback, and a port in use', async () => {
    const outside = await runCli(['sandbox', 'start', '--host', '0.0.0.0'])
    expect(outside.code).toBe(2)
    expect(outside.stderr).toContain('--host must be a loopback address')
    const sandbox = await start()
    running.push(sandbox.child)
    const port = new URL(sandbox.ready.baseUrl).port
    const taken = await runCli(['sandbox', 'start', '--port', port])
    expect(taken.code).toBe(2)
    expect(taken.stderr).toContain(`--port ${port} is already in use`)
  })

  it('seeds deposits that `deposits list --all` exports, every one exactly once', async () => {
    const sandbox = await start(['--seed-deposits', '3000'])
    running.push(sandbox.child)
    const config = tempConfigDir()
    try {
      const env = {GATEWAY_CONFIG_DIR: config.dir, GATEWAY_BASE_URL: sandbox.ready.baseUrl, GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'}
      const result = await runCli(['deposits', 'list', '--all', '--output', 'ndjson', '--per-page', '100'], {env})
      expect(result.code).toBe(0)
      const ids = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line).id)
      expect(ids).toHaveLength(3000)
      expect(new Set(ids).size).toBe(3000)
    } finally {
      config.remove()
    }
  })
})
