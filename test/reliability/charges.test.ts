import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {Journal} from '../../src/journal/journal.js'
import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand, type RunOptions} from '../helpers/context.js'
import {recordFigures} from '../helpers/figures.js'
import {control, startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

/**
 * 500 charges against a gateway that fails 30% of its requests, with every kind of fault: each
 * `tx create` exits 0, or 6 or 7 naming its idempotency key; `journal retry` settles every one left
 * pending; the gateway then holds exactly 500 charges, one per external code.
 */

const RUNS = 500
const AT_ONCE = 20
const SEED = 97

describe('charges under faults', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  /** Waits the client asked for, by reason, instead of sleeping them. */
  const waits: number[] = []
  const options = (): RunOptions => ({
    env,
    sleep: async (ms) => {
      waits.push(ms)
    },
  })

  beforeAll(async () => {
    sandbox = await startTestSandbox({faults: {rate: 0.3, kinds: ['500', '503', '429', 'reset', 'reset-after', 'slow'], seed: SEED}})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    // The token endpoint takes no random faults: logging in is not what is measured.
    await logIn(sandbox.baseUrl, env)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  it(`${RUNS} tx create runs: none doubled, none lost`, async () => {
    const code = (index: number) => `fault-run-${String(index).padStart(4, '0')}`
    const results: Array<{code: number; key?: string; replayed?: boolean}> = []
    let next = 0
    // A slow answer takes the whole timeout: several runs at once keep the test short, as several cron jobs would.
    await Promise.all(
      Array.from({length: AT_ONCE}, async () => {
        while (next < RUNS) {
          const index = next++
          const result = await runCommand(['tx', 'create', '--amount', String(100 + index), '--external-code', code(index), '--timeout', '1s', '--json'], options())
          const document = JSON.parse(result.stdout) as {idempotencyKey?: string; replayed?: boolean; error?: {message: string}}
          expect([0, 6, 7], result.stdout).toContain(result.code)
          expect(document.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/)
          // A failure names the key to reuse.
          if (result.code !== 0) expect(document.error!.message).toContain(`idempotency key ${document.idempotencyKey}`)
          results[index] = {code: result.code, key: document.idempotencyKey, replayed: document.replayed}
        }
      }),
    )
    const journal = new Journal(config.dir)
    const pendingAfterRuns = (await journal.entries()).filter((entry) => entry.state === 'pending').length
    const failed = results.filter((result) => result.code !== 0).length
    // A failed run is pending in the journal; a run may also be pending though it exited 0? Never: its outcome is written first.
    expect(pendingAfterRuns).toBe(failed)

    // journal retry, still under faults, until nothing is pending.
    let passes = 0
    while ((await journal.entries()).some((entry) => entry.state === 'pending')) {
      passes += 1
      expect(passes, 'journal retry keeps failing').toBeLessThanOrEqual(10)
      const retry = await runCommand(['journal', 'retry', '--yes', '--timeout', '1s', '--json'], options())
      expect([0, 6, 7]).toContain(retry.code)
    }
    const entries = await journal.entries()
    expect(entries).toHaveLength(RUNS)
    expect(entries.every((entry) => entry.state === 'done')).toBe(true)

    // Count what the gateway holds, by external code, with the faults off.
    const injected = (await (await fetch(`${sandbox.baseUrl}/_sandbox/faults`)).json()) as {injected: Record<string, number>}
    await control(sandbox.baseUrl, '/_sandbox/faults', {rate: 0})
    const listed = await runCommand(['deposits', 'list', '--all', '--output', 'ndjson', '--per-page', '100'], options())
    expect(listed.code).toBe(0)
    const codes = listed.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as {externalCode?: string}).externalCode)
      .filter((externalCode): externalCode is string => externalCode?.startsWith('fault-run-') ?? false)
    const distinct = new Set(codes)
    expect(codes).toHaveLength(RUNS)
    expect(distinct.size).toBe(RUNS)
    // Every journal entry settled on the record the gateway holds for its external code.
    const ids = new Map(entries.map((entry) => [entry.externalCode, entry.outcome?.id]))
    expect(new Set(ids.values()).size).toBe(RUNS)

    recordFigures('charges-under-faults', {
      runs: RUNS,
      atOnce: AT_ONCE,
      faultRate: 0.3,
      faultSeed: SEED,
      faultsInjectedByKind: injected.injected,
      exitCodes: {0: results.filter((r) => r.code === 0).length, 6: results.filter((r) => r.code === 6).length, 7: results.filter((r) => r.code === 7).length},
      replayedAnswers: results.filter((r) => r.replayed).length,
      pendingAfterRuns,
      journalRetryPasses: passes,
      retryWaits: waits.length,
      records: codes.length,
      duplicates: codes.length - distinct.size,
      lost: RUNS - distinct.size,
    })
  })
})
