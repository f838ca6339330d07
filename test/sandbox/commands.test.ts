import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {randomUUID} from 'node:crypto'
import {createInterface} from 'node:readline'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, cleanEnv, runCli, tempConfigDir} from '../helpers/cli.js'
import {startTestSandbox, tokenFor, type Sandbox} from '../helpers/sandbox.js'
import {startListener} from './listener.js'

/** The sandbox control commands, run as a user would: the built CLI against a sandbox on port 0. */
describe('gateway sandbox settle', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  let token: string

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir, GATEWAY_BASE_URL: sandbox.baseUrl, GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'}
    token = await tokenFor(sandbox.baseUrl)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  async function withdrawal(): Promise<string> {
    const response = await fetch(`${sandbox.baseUrl}/core/withdraw`, {
      method: 'POST',
      headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
      body: JSON.stringify({amount: 123_456, pixKey: 'ana@example.com', pixKeyType: 'EMAIL'}),
    })
    return ((await response.json()) as {id: string}).id
  }

  it('pays a withdrawal and says so', async () => {
    const id = await withdrawal()
    const result = await runCli(['sandbox', 'settle', id], {env})
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`settle: withdrawal ${id} is now PAID`)
    expect(result.stdout).toContain('R$ 1.234,56 to the EMAIL key ana@example.com')
    expect(result.stdout).toMatch(/End-to-end E18236120\d{12}[A-Z0-9]{11}/)
    expect(sandbox.domain.withdrawals.get(id).status).toBe('PAID')
  })

  it('fails a withdrawal with --fail and --message, as JSON', async () => {
    const id = await withdrawal()
    const result = await runCli(['sandbox', 'settle', id, '--fail', '--message', 'account closed', '--json'], {env})
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({id, status: 'FAILED', errorMessage: 'account closed'})
  })

  it('exits 5 for a withdrawal settled already, 4 for an unknown one, 2 for an id that is no UUID, sending nothing', async () => {
    const id = await withdrawal()
    expect((await runCli(['sandbox', 'settle', id], {env})).code).toBe(0)
    const again = await runCli(['sandbox', 'settle', id, '--fail'], {env})
    expect(again.code).toBe(5)
    expect(again.stderr).toContain('cannot settle a withdrawal in status PAID')
    expect((await runCli(['sandbox', 'settle', randomUUID()], {env})).code).toBe(4)
    const before = sandbox.state.stats.requests
    const bad = await runCli(['sandbox', 'settle', 'abc'], {env})
    expect(bad.code).toBe(2)
    expect(sandbox.state.stats.requests).toBe(before)
    expect((await runCli(['sandbox', 'settle', id, '--message', 'x'], {env})).code).toBe(2)
  })
})

/** Spawns `gateway sandbox start --port 0 --json ...args` and answers its ready line. */
async function startCli(args: string[], running: ChildProcessWithoutNullStreams[]): Promise<Record<string, unknown> & {baseUrl: string}> {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--json', ...args], {env: cleanEnv()})
  running.push(child)
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({input: child.stdout}).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`sandbox start exited ${code}`)))
  })
  return JSON.parse(line)
}

describe('gateway sandbox start: help and --log', () => {
  it('lists only the flags a server has: none of the global ones', async () => {
    const result = await runCli(['sandbox', 'start', '--help'])
    expect(result.code).toBe(0)
    for (const flag of ['--profile', '--base-url', '--timeout', '--debug']) expect(result.stdout).not.toContain(flag)
    for (const flag of ['--host', '--port', '--json', '--log', '--faults', '--latency', '--forward-webhooks']) expect(result.stdout).toContain(flag)
    expect(result.stdout).toMatch(/--json\s+Print one JSON line on stdout when ready/)
    expect((await runCli(['sandbox', 'start', '--port', '0', '--profile', 'x'])).code).toBe(2)
  })

  it('prints one line per request on stderr with --log, and nothing else on stdout', async () => {
    const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--json', '--log'], {env: cleanEnv()})
    try {
      const stdout = createInterface({input: child.stdout})
      const line = await new Promise<string>((resolve) => stdout.once('line', resolve))
      const {baseUrl} = JSON.parse(line) as {baseUrl: string}
      const stderr: string[] = []
      createInterface({input: child.stderr}).on('line', (entry) => stderr.push(entry))
      const token = await tokenFor(baseUrl)
      await fetch(`${baseUrl}/core/deposit`, {headers: {authorization: `Bearer ${token}`}})
      await fetch(`${baseUrl}/core/deposit`)
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
      expect(stderr).toEqual([
        expect.stringMatching(/^\S+Z POST \/auth\/token 200 \d+ms sandbox$/),
        expect.stringMatching(/^\S+Z GET \/core\/deposit 200 \d+ms sandbox$/),
        expect.stringMatching(/^\S+Z GET \/core\/deposit 401 \d+ms -$/),
      ])
    } finally {
      child.kill('SIGKILL')
    }
  })
})

describe('gateway sandbox start --faults', () => {
  const running: ChildProcessWithoutNullStreams[] = []
  afterAll(() => {
    for (const child of running) child.kill('SIGKILL')
  })

  it('fails gateway requests with the kinds asked for, spares the token endpoint, and says its seed', async () => {
    const ready = await startCli(['--faults', '1', '--fault-kinds', '503,429', '--fault-seed', '5', '--latency', '1'], running)
    expect(ready.faults).toEqual({rate: 1, kinds: ['503', '429'], seed: 5})
    const token = await tokenFor(ready.baseUrl)
    const statuses = new Set<number>()
    for (let index = 0; index < 20; index += 1) {
      statuses.add((await fetch(`${ready.baseUrl}/core/deposit`, {headers: {authorization: `Bearer ${token}`}})).status)
    }
    expect(statuses).toEqual(new Set([503, 429]))
  })

  it.each([
    [['--faults', '1.5'], '--faults must be a share from 0 to 1'],
    [['--faults', 'often'], '--faults must be a share from 0 to 1'],
    [['--faults', '0.1', '--fault-kinds', '500,boom'], '--fault-kinds takes 500, 503, 429, reset, reset-after, slow, no-record-html, no-record-json; got "boom"'],
    [['--fault-seed', '3'], '--faults'],
    [['--latency', '-5'], '--latency'],
  ])('refuses %j with exit 2', async (args, says) => {
    const result = await runCli(['sandbox', 'start', '--port', '0', ...args])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(says)
  })
})

describe('gateway sandbox start --forward-webhooks', () => {
  const running: ChildProcessWithoutNullStreams[] = []
  afterAll(() => {
    for (const child of running) child.kill('SIGKILL')
  })

  it('refuses a URL that is neither https nor loopback', async () => {
    const result = await runCli(['sandbox', 'start', '--port', '0', '--forward-webhooks', 'http://hooks.example.com/x'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--forward-webhooks must use https unless its host is loopback')
  })

  it('delivers every notification to the local listener, the webhookUrl in X-Original-Url', async () => {
    const listener = await startListener()
    try {
      const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--json', '--forward-webhooks', listener.url], {env: cleanEnv()})
      running.push(child)
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({input: child.stdout}).once('line', resolve)
        child.once('exit', (code) => reject(new Error(`sandbox start exited ${code}`)))
      })
      const {baseUrl} = JSON.parse(line) as {baseUrl: string}
      const headers = {authorization: `Bearer ${await tokenFor(baseUrl)}`, 'content-type': 'application/json'}
      const created = await fetch(`${baseUrl}/core/withdraw`, {
        method: 'POST',
        headers,
        body: JSON.stringify({amount: 700, pixKey: randomUUID(), pixKeyType: 'EVP', webhookUrl: 'https://hooks.example.com/payouts'}),
      })
      const {id} = (await created.json()) as {id: string}
      expect((await fetch(`${baseUrl}/_sandbox/withdrawals/${id}/settle`, {method: 'POST', headers: {authorization: headers.authorization}})).status).toBe(200)
      await listener.waitFor(1)
      expect(listener.received[0].headers['x-original-url']).toBe('https://hooks.example.com/payouts')
      expect(listener.received[0].body).toMatchObject({referenceId: id, kind: 'withdrawal', tags: ['withdrawal', 'PAID']})
      child.kill('SIGTERM')
    } finally {
      await listener.close()
    }
  })
})
