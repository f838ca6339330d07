import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand, type RunOptions} from '../helpers/context.js'
import {control, startTestSandbox, stats, tokenFor, type Sandbox} from '../helpers/sandbox.js'

describe('the journal of money-moving requests: tx create, journal list, journal retry', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  let token: string

  const instant: RunOptions = {sleep: async () => {}}
  const cli = (args: string[], options: RunOptions = {}) => runCommand(args, {env, ...instant, ...options})
  const journalText = () => readFileSync(join(config.dir, 'journal.jsonl'), 'utf8')
  const list = async (args: string[] = []) => {
    const result = await cli(['journal', 'list', '--json', ...args])
    expect(result.code).toBe(0)
    return JSON.parse(result.stdout) as Array<Record<string, any>>
  }
  const entryOf = async (key: string) => (await list()).find((entry) => entry.idempotencyKey === key)
  /** Transactions the sandbox holds with this external code, through the API. */
  const holding = async (externalCode: string) => {
    const result = await cli(['deposits', 'list', '--all', '--output', 'ndjson', '--per-page', '100'])
    expect(result.code).toBe(0)
    return result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as {externalCode?: string})
      .filter((deposit) => deposit.externalCode === externalCode).length
  }
  const fault = (status: number, count: number) => control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', status, count})

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
    token = await tokenFor(sandbox.baseUrl)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  it('writes an entry before sending and its outcome after, in a 0600 file', async () => {
    const result = await cli(['tx', 'create', '--amount', '1234', '--external-code', 'journal-done-1', '--idempotency-key', 'journal-key-done-1', '--json'])
    expect(result.code).toBe(0)
    const {id} = JSON.parse(result.stdout)
    expect(statSync(join(config.dir, 'journal.jsonl')).mode & 0o777).toBe(0o600)
    const entry = await entryOf('journal-key-done-1')
    expect(entry).toMatchObject({
      command: 'tx create',
      profile: 'default',
      baseUrl: sandbox.baseUrl,
      amount: 1234,
      externalCode: 'journal-done-1',
      state: 'done',
      id,
      status: 'PIX_QRCODE_GENERATED',
      outcomes: 1,
      request: {method: 'POST', path: '/core/transaction', body: {amount: 1234, paymentMethod: 'PIX', idempotencyKey: 'journal-key-done-1', externalCode: 'journal-done-1', pix: {}}},
    })
    const lines = journalText().trim().split('\n').map((line) => JSON.parse(line))
    const mine = lines.filter((line) => line.entry === entry!.entry)
    expect(mine.map((line) => line.type)).toEqual(['request', 'outcome'])
  })

  it('writes nothing for a request refused offline, or one that could not be authenticated', async () => {
    const before = journalText()
    expect((await cli(['tx', 'create', '--amount', '10.00'])).code).toBe(2)
    const other = tempConfigDir()
    try {
      const unauthenticated = await runCommand(['tx', 'create', '--amount', '100', '--base-url', sandbox.baseUrl], {env: {GATEWAY_CONFIG_DIR: other.dir}})
      expect(unauthenticated.code).toBe(3)
      expect(() => statSync(join(other.dir, 'journal.jsonl'))).toThrow()
    } finally {
      other.remove()
    }
    expect(journalText()).toBe(before)
  })

  it('writes nothing when the token cannot be had, and says the charge was not sent', async () => {
    const other = tempConfigDir()
    await control(sandbox.baseUrl, '/_sandbox/auth/idp', {fail: true})
    try {
      // Credentials from the environment, no token cached, and the identity provider down.
      const result = await runCommand(['tx', 'create', '--amount', '100', '--base-url', sandbox.baseUrl, '--json'], {
        ...instant,
        env: {GATEWAY_CONFIG_DIR: other.dir, GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'},
      })
      expect(result.code).toBe(7)
      const document = JSON.parse(result.stdout)
      expect(document.idempotencyKey).toBeDefined()
      expect(document.error.message).toContain('the token request: the gateway failed (502)')
      expect(document.error.hint).toBeUndefined()
      expect(() => statSync(join(other.dir, 'journal.jsonl'))).toThrow()
    } finally {
      await control(sandbox.baseUrl, '/_sandbox/auth/idp', {fail: false})
      other.remove()
    }
  })

  it('marks a refusal failed, and an unknown outcome pending with its error', async () => {
    await fault(422, 1)
    expect((await cli(['tx', 'create', '--amount', '100', '--idempotency-key', 'journal-key-refused'])).code).toBe(5)
    expect(await entryOf('journal-key-refused')).toMatchObject({state: 'failed', error: {code: 'REJECTED', status: 422}})
    await fault(503, 4)
    const failed = await cli(['tx', 'create', '--amount', '4321', '--external-code', 'journal-pending-1', '--idempotency-key', 'journal-key-pending-1'])
    expect(failed.code).toBe(7)
    expect(await entryOf('journal-key-pending-1')).toMatchObject({state: 'pending', error: {code: 'UNAVAILABLE', status: 503}})
    expect((await list(['--pending'])).map((entry) => entry.idempotencyKey)).toEqual(['journal-key-pending-1'])
    const table = await cli(['journal', 'list', '--pending'])
    expect(table.stdout).toMatch(/pending .+ tx create .+ R\$ 43,21 .+ journal-key-pending-1/)
    expect(table.stderr).toContain('1 pending')
    const ndjson = await cli(['journal', 'list', '--output', 'ndjson'])
    expect(ndjson.stdout.trim().split('\n').map((line) => JSON.parse(line).idempotencyKey)).toContain('journal-key-pending-1')
  })

  it('journal retry needs --yes without a terminal, and sends nothing without it', async () => {
    const before = await stats(sandbox.baseUrl)
    const refused = await cli(['journal', 'retry'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/^Error: journal retry sends 1 pending request \(R\$ 43,21 in all\) again, which may move money: confirm with --yes/)
    expect((await stats(sandbox.baseUrl)).requests).toBe(before.requests)
  })

  it('asks in a terminal: no sends nothing, yes replays', async () => {
    const tty = {stdin: true, stdout: true, stderr: true}
    const no = await cli(['journal', 'retry'], {tty, input: 'n\n'})
    expect(no.code).toBe(0)
    expect(no.stderr).toContain('Replay 1 pending request (R$ 43,21 in all) under their original idempotency keys? [y/N]')
    expect(no.stderr).toContain('Nothing was sent.')
    expect(await holding('journal-pending-1')).toBe(0)
    const yes = await cli(['journal', 'retry'], {tty, input: 'y\n'})
    expect(yes.code).toBe(0)
    expect(yes.stdout).toMatch(/^done +tx create {2}R\$ 43,21 {2}key journal-key-pending-1 {2}→ [0-9a-f-]{36} PIX_QRCODE_GENERATED \(created now\)$/m)
    expect(await holding('journal-pending-1')).toBe(1)
    expect(await entryOf('journal-key-pending-1')).toMatchObject({state: 'done', settledBy: 'journal retry', outcomes: 2})
    const again = await cli(['journal', 'retry', '--yes'])
    expect(again.code).toBe(0)
    expect(again.stderr).toContain('Nothing is pending')
  })

  it('settles a request that reached the gateway before its process died: the original record, never a second', async () => {
    // What a process killed after sending leaves behind: an entry without an outcome, and a record at the gateway.
    const body = {amount: 777, paymentMethod: 'PIX', idempotencyKey: 'journal-key-crashed', externalCode: 'journal-crashed-1', pix: {}}
    const {Journal} = await import('../../src/journal/journal.js')
    await new Journal(config.dir).append({
      type: 'request',
      entry: 'crashed-entry',
      at: new Date().toISOString(),
      profile: 'default',
      baseUrl: sandbox.baseUrl,
      command: 'tx create',
      idempotencyKey: 'journal-key-crashed',
      amount: 777,
      externalCode: 'journal-crashed-1',
      request: {method: 'POST', path: '/core/transaction', body},
      lookup: '/core/transaction/{id}',
    })
    const first = await fetch(`${sandbox.baseUrl}/core/transaction`, {
      method: 'POST',
      headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
      body: JSON.stringify(body),
    })
    const {id} = (await first.json()) as {id: string}
    await control(sandbox.baseUrl, `/_sandbox/transactions/${id}/pay`)
    const result = await cli(['journal', 'retry', '--yes', '--json'])
    expect(result.code).toBe(0)
    const report = JSON.parse(result.stdout)
    expect(report).toMatchObject({done: 1, failed: 0, pending: 0})
    expect(report.retried[0]).toMatchObject({idempotencyKey: 'journal-key-crashed', state: 'done', id})
    expect(await holding('journal-crashed-1')).toBe(1)
  })

  it('exits as the failure when a replay still fails, leaving the entry pending', async () => {
    await fault(503, 4)
    expect((await cli(['tx', 'create', '--amount', '100', '--idempotency-key', 'journal-key-pending-2'])).code).toBe(7)
    await fault(429, 4)
    const result = await cli(['journal', 'retry', '--yes', '--json'])
    expect(result.code).toBe(6)
    const document = JSON.parse(result.stdout)
    expect(document).toMatchObject({pending: 1, done: 0, error: {code: 'RATE_LIMITED'}})
    expect(document.error.message).toMatch(/^1 of 1 replayed requests are still pending; the last error: /)
    expect(await entryOf('journal-key-pending-2')).toMatchObject({state: 'pending', outcomes: 2})
    expect((await cli(['journal', 'retry', '--yes', '--key', 'journal-key-pending-2'])).code).toBe(0)
    expect(await entryOf('journal-key-pending-2')).toMatchObject({state: 'done'})
    const unknown = await cli(['journal', 'retry', '--yes', '--key', 'no-such-key'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toBe('Error: --key no-such-key: no such idempotency key in the journal\n')
  })
})
