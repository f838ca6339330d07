import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {Journal} from '../../src/journal/journal.js'
import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand, type RunOptions} from '../helpers/context.js'
import {recordFigures} from '../helpers/figures.js'
import {control, startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

/**
 * 200 withdrawals against a gateway that fails 30% of its requests, with every kind of fault: each
 * exits 0, or 6 or 7 naming its idempotency key and left pending in the journal; `journal retry`
 * makes each once or has it answered as made; the sandbox then holds exactly 200 withdrawals, one per external code.
 */

const RUNS = 200
const AT_ONCE = 20
const SEED = 2026

describe('withdrawals under faults', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  const options = (): RunOptions => ({env, sleep: async () => {}})

  beforeAll(async () => {
    sandbox = await startTestSandbox({faults: {rate: 0.3, kinds: ['500', '503', '429', 'reset', 'reset-after', 'slow'], seed: SEED}})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  it(`${RUNS} withdraw runs: none doubled, none lost`, async () => {
    const code = (index: number) => `withdraw-run-${String(index).padStart(4, '0')}`
    const args = (index: number) => ['withdraw', '--amount', String(100 + index), '--pix-key', 'maria@example.com', '--external-code', code(index), '--yes', '--timeout', '1s', '--json']
    const exits: number[] = []
    const keys = new Map<number, string>()
    let next = 0
    await Promise.all(
      Array.from({length: AT_ONCE}, async () => {
        while (next < RUNS) {
          const index = next++
          const result = await runCommand(args(index), options())
          expect([0, 6, 7], result.stdout + result.stderr).toContain(result.code)
          exits[index] = result.code
          if (result.code !== 0) {
            // The error names the key to send it again with.
            const key = /idempotency key ([0-9a-f-]{36})/.exec(JSON.parse(result.stdout).error.message)?.[1]
            expect(key, result.stdout).toBeDefined()
            keys.set(index, key!)
          }
        }
      }),
    )
    // Each failed one is pending in the journal: journal retry, still under faults, until none is.
    const journal = new Journal(config.dir)
    expect((await journal.entries()).filter((entry) => entry.state === 'pending').length).toBe(keys.size)
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
    const resent = passes
    const injected = ((await (await fetch(`${sandbox.baseUrl}/_sandbox/faults`)).json()) as {injected: Record<string, number>}).injected
    await control(sandbox.baseUrl, '/_sandbox/faults', {rate: 0})
    const listed = (await (await fetch(`${sandbox.baseUrl}/_sandbox/withdrawals`)).json()) as {data: Array<{externalCode?: string}>}
    const codes = listed.data.map((withdrawal) => withdrawal.externalCode).filter((externalCode) => externalCode?.startsWith('withdraw-run-'))
    const distinct = new Set(codes)
    expect(codes).toHaveLength(RUNS)
    expect(distinct.size).toBe(RUNS)
    recordFigures('withdrawals-under-faults', {
      runs: RUNS,
      atOnce: AT_ONCE,
      faultRate: 0.3,
      faultSeed: SEED,
      faultsInjectedByKind: injected,
      exitCodes: {0: exits.filter((exit) => exit === 0).length, 6: exits.filter((exit) => exit === 6).length, 7: exits.filter((exit) => exit === 7).length},
      journalRetryPasses: resent,
      records: codes.length,
      duplicates: codes.length - distinct.size,
      lost: RUNS - distinct.size,
    })
  })
})
