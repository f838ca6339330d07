import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {indexFile} from '../../src/journal/journal.js'
import {payoutCsv, payouts, sandboxWithdrawals} from '../helpers/batch.js'
import {runCommand, type RunOptions} from '../helpers/context.js'
import {stats} from '../helpers/sandbox.js'
import {loggedInSandbox} from '../helpers/world.js'

/**
 * The repeat guard as an operator meets it: a payout's external code is one payout, whatever its
 * other fields and under whichever profile of the same client; and it never forgets, however often
 * the journal rotates.
 */
describe('the repeat guard, end to end', () => {
  const world = loggedInSandbox()
  const instant: RunOptions = {sleep: async () => {}}
  const cli = (args: string[], env: Record<string, string> = {}) => runCommand(args, {...instant, env: {...world.env, ...env}})
  const paid = async (code: string) => (await sandboxWithdrawals(world.sandbox.baseUrl)).filter((withdrawal) => withdrawal.externalCode === code)
  const withdraw = (code: string, amount: string, key = 'maria@example.com', extra: string[] = []) => ['withdraw', '--amount', amount, '--pix-key', key, '--external-code', code, '--yes', ...extra]

  it('a withdraw with an edited amount or key under an external code already paid is refused, naming the earlier one; --allow-repeats sends it', async () => {
    const first = await cli([...withdraw('edit-0001', '1500'), '--json'])
    expect(first.code, first.stderr).toBe(0)
    const {idempotencyKey} = JSON.parse(first.stdout) as {idempotencyKey: string}
    for (const args of [withdraw('edit-0001', '1600'), withdraw('edit-0001', '1500', '529.982.247-25')]) {
      const before = (await stats(world.sandbox.baseUrl)).requests
      const again = await cli(args)
      expect(again.code).toBe(2)
      expect(again.stdout).toBe('')
      // When, the amount, the masked key and the idempotency key of the earlier request; nothing sent.
      expect(again.stderr).toMatch(new RegExp(`external code edit-0001: a withdrawal with this external code was sent at \\d{4}-\\d\\d-\\d\\dT\\S+ \\(R\\$ 15,00 to key \\*{13}\\.com\\) under the key ${idempotencyKey}`))
      expect(again.stderr).toContain('Nothing was sent')
      expect((await stats(world.sandbox.baseUrl)).requests).toBe(before)
    }
    expect(await paid('edit-0001')).toHaveLength(1)
    const allowed = await cli([...withdraw('edit-0001', '1600'), '--allow-repeats'])
    expect(allowed.code, allowed.stderr).toBe(0)
    expect((await paid('edit-0001')).map((withdrawal) => withdrawal.amount).sort()).toEqual([1500, 1600])
  })

  it('a charge with other fields under the same external code is another charge; with the same fields, a repeat', async () => {
    const first = await cli(['tx', 'create', '--amount', '700', '--external-code', 'order-edit-1'])
    expect(first.code, first.stderr).toBe(0)
    expect((await cli(['tx', 'create', '--amount', '700', '--external-code', 'order-edit-1'])).code).toBe(2)
    const other = await cli(['tx', 'create', '--amount', '800', '--external-code', 'order-edit-1'])
    expect(other.code, other.stderr).toBe(0)
  })

  it('two profiles of one gateway and client id share one guard', async () => {
    // A second profile of the same gateway and client, logged in under another name.
    const login = await cli(['login', '--profile', 'second', '--base-url', world.sandbox.baseUrl, '--client-id', 'sandbox'], {GATEWAY_CLIENT_SECRET: 'sandbox-secret'})
    expect(login.code, login.stderr).toBe(0)
    const first = await cli(withdraw('profiles-0001', '2000'))
    expect(first.code, first.stderr).toBe(0)
    const other = await cli([...withdraw('profiles-0001', '2000'), '--profile', 'second'])
    expect(other.code).toBe(2)
    expect(other.stderr).toContain('external code profiles-0001: a withdrawal with this external code was sent')
    expect(await paid('profiles-0001')).toHaveLength(1)
    // Through the environment, as a cron job runs: the same client, the same guard.
    const env = await cli(withdraw('profiles-0001', '2000'), {GATEWAY_PROFILE: 'second', GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'})
    expect(env.code).toBe(2)
    expect(await paid('profiles-0001')).toHaveLength(1)
  })

  it('a batch row edited after its file was paid is refused with the rest: one payout per external code', async () => {
    const rows = payouts(3, 'guard-batch')
    const dir = join(world.config.dir, '..')
    writeFileSync(join(dir, 'first.csv'), payoutCsv(rows))
    expect((await cli(['withdraw', '--batch', join(dir, 'first.csv'), '--yes'])).code).toBe(0)
    writeFileSync(join(dir, 'edited.csv'), payoutCsv([rows[0], {...rows[1], amount: rows[1].amount + 1}]))
    const before = (await stats(world.sandbox.baseUrl)).requests
    const edited = await cli(['withdraw', '--batch', join(dir, 'edited.csv'), '--yes'])
    expect(edited.code).toBe(2)
    expect(edited.stderr).toMatch(/line 3: external-code guard-batch-00002: a withdrawal with this external code was sent/)
    expect((await stats(world.sandbox.baseUrl)).requests).toBe(before)
    expect(await paid('guard-batch-00002')).toHaveLength(1)
  })

  it('never forgets across rotations: a payout refused before the journal rotated is refused after many', async () => {
    const first = await cli(withdraw('rotated-0001', '1234'))
    expect(first.code, first.stderr).toBe(0)
    expect((await cli(withdraw('rotated-0001', '1234'))).code).toBe(2)
    // Small journal: every few entries it rotates, and only five archives are kept.
    const small = {GATEWAY_JOURNAL_MAX_BYTES: '2048'}
    for (let index = 0; index < 40; index++) {
      const other = await cli(withdraw(`filler-${index}`, '100'), small)
      expect(other.code, other.stderr).toBe(0)
    }
    const archives = readdirSync(world.config.dir).filter((name) => /^journal-\d{8}T\d{9}Z\.jsonl$/.test(name))
    expect(archives.length).toBe(5)
    // The first payout's entry is in no file the journal keeps now, only in its index.
    const kept = ['journal.jsonl', ...archives].map((name) => readFileSync(join(world.config.dir, name), 'utf8')).join('')
    expect(kept).not.toContain('rotated-0001')
    expect(readFileSync(join(world.config.dir, indexFile('rotated-0001')), 'utf8')).toContain('"c":"rotated-0001"')
    const again = await cli(withdraw('rotated-0001', '1234'), small)
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('external code rotated-0001: a withdrawal with this external code was sent')
    expect(await paid('rotated-0001')).toHaveLength(1)
  })
})
