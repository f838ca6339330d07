import {spawn} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {Journal} from '../../src/journal/journal.js'
import {BIN, cleanEnv, runCli, tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {recordFigures} from '../helpers/figures.js'
import {control, startTestSandbox, stats, tokenFor, type Sandbox} from '../helpers/sandbox.js'

/** What only real processes show: one killed between sending and the answer, and many renewing one token at once. */
describe('processes', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  const figures: Record<string, unknown> = {}

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
  })
  afterAll(async () => {
    recordFigures('processes', figures)
    await sandbox.close()
    config.remove()
  })

  /** Charges the gateway holds with this external code. */
  async function holding(externalCode: string): Promise<Array<{id: string}>> {
    const token = await tokenFor(sandbox.baseUrl)
    const response = await fetch(`${sandbox.baseUrl}/core/deposit?perPage=100`, {headers: {authorization: `Bearer ${token}`}})
    const page = (await response.json()) as {data: Array<{id: string; externalCode?: string}>}
    return page.data.filter((deposit) => deposit.externalCode === externalCode)
  }

  it('a tx create killed after sending and before the answer leaves a pending entry, and journal retry settles it with exactly one charge', async () => {
    // The gateway creates the charge, then holds its answer for a minute.
    await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', kind: 'slow', delayMs: 60_000, count: 1})
    const child = spawn(process.execPath, [BIN, 'tx', 'create', '--amount', '4200', '--external-code', 'killed-000001', '--json'], {
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
    // Killed once the charge exists: the request was sent and handled, the answer never came.
    const deadline = Date.now() + 20_000
    while ((await holding('killed-000001')).length === 0) {
      expect(Date.now(), 'the charge was never created').toBeLessThan(deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    child.kill('SIGKILL')
    expect(await exited).toBe('SIGKILL')

    const journal = new Journal(config.dir)
    const [entry] = (await journal.entries()).filter((candidate) => candidate.externalCode === 'killed-000001')
    expect(entry).toMatchObject({state: 'pending', outcomes: 0, command: 'tx create', amount: 4200})

    const retry = await runCommand(['journal', 'retry', '--yes', '--json'], {env})
    expect(retry.code).toBe(0)
    const report = JSON.parse(retry.stdout) as {retried: Array<Record<string, unknown>>}
    const charges = await holding('killed-000001')
    expect(charges).toHaveLength(1)
    expect(report.retried).toEqual([expect.objectContaining({idempotencyKey: entry.idempotencyKey, state: 'done', id: charges[0].id, replayed: true})])
    expect((await journal.entries()).find((candidate) => candidate.entry === entry.entry)).toMatchObject({state: 'done', outcome: {id: charges[0].id, replayed: true}})
    figures.killedProcess = {killedAfterSending: 1, pendingEntries: 1, recordsAfterRetry: charges.length, replayed: true}
  })

  it('a withdraw killed after sending and before the answer leaves a pending entry, and journal retry settles it with exactly one withdrawal', async () => {
    const paidOut = async () => {
      const listed = (await (await fetch(`${sandbox.baseUrl}/_sandbox/withdrawals`)).json()) as {data: Array<{id: string; externalCode?: string}>}
      return listed.data.filter((withdrawal) => withdrawal.externalCode === 'killed-payout-1')
    }
    await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/withdraw', kind: 'slow', delayMs: 60_000, count: 1})
    const child = spawn(process.execPath, [BIN, 'withdraw', '--amount', '2500', '--pix-key', 'maria@example.com', '--external-code', 'killed-payout-1', '--yes', '--json'], {
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
    const deadline = Date.now() + 20_000
    while ((await paidOut()).length === 0) {
      expect(Date.now(), 'the withdrawal was never made').toBeLessThan(deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    child.kill('SIGKILL')
    expect(await exited).toBe('SIGKILL')

    const journal = new Journal(config.dir)
    const [entry] = (await journal.entries()).filter((candidate) => candidate.externalCode === 'killed-payout-1')
    expect(entry).toMatchObject({state: 'pending', outcomes: 0, command: 'withdraw', amount: 2500})
    expect(JSON.stringify(entry)).not.toContain('"destination":"maria@example.com"')

    const retry = await runCommand(['journal', 'retry', '--yes', '--json'], {env})
    expect(retry.code).toBe(0)
    const withdrawals = await paidOut()
    expect(withdrawals).toHaveLength(1)
    expect((await journal.entries()).find((candidate) => candidate.entry === entry.entry)).toMatchObject({state: 'done', outcome: {id: withdrawals[0].id, replayed: true}})
    figures.killedWithdraw = {killedAfterSending: 1, pendingEntries: 1, recordsAfterRetry: withdrawals.length, replayed: true}
  })

  it('20 processes at once on a token under the renewal margin: all succeed, the cache stays valid JSON, at most 2 token requests', async () => {
    const created = await runCommand(['tx', 'create', '--amount', '100', '--json'], {env})
    const {id} = JSON.parse(created.stdout) as {id: string}
    // The cached token has 30 s left: under the 60 s margin, every process wants to renew it.
    const file = join(config.dir, 'tokens.json')
    const cache = JSON.parse(readFileSync(file, 'utf8')) as Record<string, {expiresAt: number}>
    cache.default.expiresAt = Date.now() + 30_000
    writeFileSync(file, JSON.stringify(cache))
    const before = (await stats(sandbox.baseUrl)).tokenRequests
    const runs = await Promise.all(Array.from({length: 20}, () => runCli(['tx', 'get', id, '--json'], {env, timeoutMs: 60_000})))
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0)
      expect(JSON.parse(run.stdout).id).toBe(id)
    }
    const after = JSON.parse(readFileSync(file, 'utf8')) as Record<string, {expiresAt: number}>
    expect(after.default.expiresAt).toBeGreaterThan(Date.now() + 60_000)
    const tokenRequests = (await stats(sandbox.baseUrl)).tokenRequests - before
    expect(tokenRequests).toBeGreaterThanOrEqual(1)
    expect(tokenRequests).toBeLessThanOrEqual(2)
    figures.tokenStampede = {processes: 20, succeeded: runs.filter((run) => run.code === 0).length, tokenRequests, cacheValidJson: true}
  })
})
