import {mkdirSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {Journal} from '../../src/journal/journal.js'
import {ndjson, payoutCsv, payouts, sandboxWithdrawals} from '../helpers/batch.js'
import {runCli, tempConfigDir} from '../helpers/cli.js'
import {logIn} from '../helpers/context.js'
import {recordFigures} from '../helpers/figures.js'
import {startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

/**
 * The repeat guard and the journal entry are one step under the journal's lock: commands started at
 * the same instant, in real processes sharing one config folder, send each request once.
 */
describe('money-moving commands started at once', () => {
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
    recordFigures('concurrent-money', figures)
    await sandbox.close()
    config.remove()
  })

  /** Waits until `count` processes wait for the journal's lock (each has made its own `journal.lock.<pid>`). */
  async function waitForLockers(count: number): Promise<void> {
    const deadline = Date.now() + 50_000
    while (readdirSync(config.dir).filter((name) => /^journal\.lock\.\d+$/.test(name)).length < count) {
      if (Date.now() > deadline) throw new Error(`fewer than ${count} processes came to the journal`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  const paidWith = async (externalCode: string) => (await sandboxWithdrawals(sandbox.baseUrl)).filter((withdrawal) => withdrawal.externalCode === externalCode)

  it('of ten identical withdrawals started at once, exactly one is sent; the others exit 2 naming it', async () => {
    for (const round of [1, 2]) {
      const code = `same-instant-${round}`
      const args = ['withdraw', '--amount', '15000', '--pix-key', '529.982.247-25', '--external-code', code, '--yes', '--json']
      // The journal is held (as by another command writing to it) while the ten start, and let go
      // once all ten wait for it: they then reach the journal at the same instant, however slowly
      // each process starts on a busy machine.
      mkdirSync(config.dir, {recursive: true, mode: 0o700})
      const lock = join(config.dir, 'journal.lock')
      writeFileSync(lock, String(process.pid), {mode: 0o600})
      const running = Promise.all(Array.from({length: 10}, () => runCli(args, {env, timeoutMs: 60_000})))
      await waitForLockers(10)
      rmSync(lock)
      const results = await running
      const paid = await paidWith(code)
      expect(paid, `round ${round}: ${results.map((result) => result.code).join(',')}`).toHaveLength(1)
      const sent = results.filter((result) => result.code === 0)
      const refused = results.filter((result) => result.code === 2)
      expect(sent).toHaveLength(1)
      expect(refused).toHaveLength(9)
      const first = JSON.parse(sent[0].stdout) as {idempotencyKey: string}
      for (const result of refused) {
        expect(result.stdout + result.stderr).toContain(`external code ${code}: the same withdrawal was sent`)
        expect(result.stdout + result.stderr).toContain(`under the key ${first.idempotencyKey}`)
      }
      const entries = (await new Journal(config.dir).entries()).filter((entry) => entry.externalCode === code)
      expect(entries).toHaveLength(1)
      figures[`round${round}`] = {processes: 10, withdrawals: paid.length, refused: refused.length}
    }
  }, 120_000)

  it('two batch runs of overlapping files at once send each external code at most once', async () => {
    const rows = payouts(20, 'overlap')
    const first = join(config.dir, '..', 'first.csv')
    const second = join(config.dir, '..', 'second.csv')
    writeFileSync(first, payoutCsv(rows))
    // The same file with one row edited: another content, so other derived keys for every row.
    writeFileSync(second, payoutCsv(rows.map((row, index) => (index === 7 ? {...row, amount: row.amount + 1} : row))))
    // The journal is held while both start, and let go once both wait for it: both have passed the
    // up-front check of the whole file before either has written an entry.
    const lock = join(config.dir, 'journal.lock')
    writeFileSync(lock, String(process.pid), {mode: 0o600})
    const running = Promise.all([first, second].map((file) => runCli(['withdraw', '--batch', file, '--yes', '--output', 'ndjson', '--concurrency', '4'], {env, timeoutMs: 90_000})))
    await waitForLockers(2)
    rmSync(lock)
    const [a, b] = await running
    const all = await sandboxWithdrawals(sandbox.baseUrl)
    const counts = new Map<string, number>()
    for (const withdrawal of all) if (withdrawal.externalCode?.startsWith('overlap-')) counts.set(withdrawal.externalCode, (counts.get(withdrawal.externalCode) ?? 0) + 1)
    // Each row the two files share is paid once. The edited row is another request (its fields
    // differ): each file's version of it may be paid. A run that starts after the other has
    // written entries is refused whole up front (exit 2); one that raced it has each repeated row
    // refused as it comes (exit 2 for that row).
    for (const [index, row] of rows.entries()) {
      if (index === 7) expect(counts.get(row.externalCode), row.externalCode).toBeGreaterThanOrEqual(1)
      else expect(counts.get(row.externalCode), row.externalCode).toBe(1)
    }
    type Row = {outcome: string; exitCode: number; externalCode: string; error: string | null}
    const results = [...ndjson<Row>(a.stdout), ...ndjson<Row>(b.stdout)]
    const refused = results.filter((result) => result.outcome === 'failed')
    for (const result of refused) {
      expect(result.exitCode).toBe(2)
      expect(result.error).toMatch(/the same withdrawal was sent/)
    }
    expect(results.length - refused.length).toBe([...counts.values()].reduce((sum, count) => sum + count, 0))
    // A run exits 2 when any of its rows was refused, 0 otherwise. Which run that is depends on how
    // the two interleave: one refused whole up front, one refused row by row, or both racing, each
    // with some rows refused.
    for (const run of [a, b]) expect(run.code, run.stderr).toBe(ndjson<Row>(run.stdout).some((result) => result.outcome === 'failed') || run.stdout === '' ? 2 : 0)
    expect([a.code, b.code]).toContain(2)
    expect(refused.length, `${a.stderr}\n${b.stderr}`).toBeGreaterThan(0)
    figures.overlappingBatches = {rows: 40, paid: results.length - refused.length, refusedAsRepeats: refused.length, exitCodes: [a.code, b.code]}
  }, 120_000)
})
