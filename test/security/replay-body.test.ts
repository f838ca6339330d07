import {randomUUID} from 'node:crypto'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {Journal, type RequestRecord} from '../../src/journal/journal.js'
import {sandboxWithdrawals} from '../helpers/batch.js'
import {runCli, tempConfigDir} from '../helpers/cli.js'
import {logIn} from '../helpers/context.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

/** A replay sends the recorded body: what is shown of an entry is read from it, and it is checked as the command that wrote it checks. */
describe('a replay shows what it sends, and checks it', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  /** A pending withdrawal of R$ 5,00 to the CPF 529.982.247-25, as `withdraw` records it, its body then edited. */
  async function pendingEntry(code: string, edit: (body: Record<string, unknown>) => void): Promise<RequestRecord> {
    const idempotencyKey = randomUUID()
    const body: Record<string, unknown> = {amount: 500, pixKey: '52998224725', pixKeyType: 'CPF', externalCode: code, idempotencyKey}
    edit(body)
    const record: RequestRecord = {
      type: 'request',
      entry: randomUUID(),
      at: new Date().toISOString(),
      profile: 'default',
      baseUrl: sandbox.baseUrl,
      command: 'withdraw',
      idempotencyKey,
      amount: 500,
      externalCode: code,
      destination: '*******4725',
      request: {method: 'POST', path: '/core/withdraw', body},
    }
    await new Journal(config.dir).append(record)
    return record
  }

  it('journal list and journal retry show the amount and destination of the body that is sent, not what the entry says of itself', async () => {
    const record = await pendingEntry('edited-body-1', (body) => {
      body.amount = 9_000_000
      body.pixKey = 'mallory@example.com'
      body.pixKeyType = 'EMAIL'
    })
    const list = await runCli(['journal', 'list', '--pending'], {env: {...env, COLUMNS: '250'}})
    expect(list.code).toBe(0)
    const row = list.stdout.split('\n').find((line) => line.includes(record.idempotencyKey))!
    expect(row).toContain('R$ 90.000,00')
    expect(row).toContain('***************.com')
    expect(row).not.toContain('R$ 5,00')
    const json = await runCli(['journal', 'list', '--pending', '--json'], {env})
    const [view] = (JSON.parse(json.stdout) as Array<Record<string, unknown>>).filter((entry) => entry.idempotencyKey === record.idempotencyKey)
    expect(view).toMatchObject({amount: 9_000_000, destination: '***************.com'})

    const retry = await runCli(['journal', 'retry', '--yes', '--key', record.idempotencyKey], {env})
    expect(retry.code, retry.stderr).toBe(0)
    expect(retry.stdout).toMatch(/done\s+withdraw {2}R\$ 90\.000,00 to \*+\.com {2}key /)
    const paid = (await sandboxWithdrawals(sandbox.baseUrl)).filter((withdrawal) => withdrawal.externalCode === 'edited-body-1')
    expect(paid.map((withdrawal) => withdrawal.amount)).toEqual([9_000_000])
  })

  it.each([
    ['an amount over the limit', (body: Record<string, unknown>) => (body.amount = 50_000_000), /amount/],
    ['a PIX key that breaks its rules', (body: Record<string, unknown>) => (body.pixKey = '111.111.111-11'), /pixKey/],
    ['another idempotency key in the body', (body: Record<string, unknown>) => (body.idempotencyKey = 'another-key-000001'), /idempotencyKey/],
  ])('an entry whose body has %s is refused (exit 2), named, and stays pending; nothing is sent', async (_case, edit, problem) => {
    const record = await pendingEntry(`edited-body-${randomUUID().slice(0, 8)}`, edit)
    const before = (await stats(sandbox.baseUrl)).requests
    const retry = await runCli(['journal', 'retry', '--yes', '--key', record.idempotencyKey], {env})
    expect(retry.code, retry.stderr).toBe(2)
    expect(retry.stderr).toContain(`key ${record.idempotencyKey}`)
    expect(retry.stderr).toMatch(problem)
    expect(retry.stdout).toContain('not replayed: the recorded body fails its checks')
    expect((await stats(sandbox.baseUrl)).requests).toBe(before)
    const entry = (await new Journal(config.dir).entries()).find((candidate) => candidate.entry === record.entry)
    expect(entry?.state).toBe('pending')
  })
})
