import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runCli, unstamped} from '../helpers/cli.js'
import {loggedInSandbox} from '../helpers/world.js'
import {expectedCsv, insertDeposit} from '../../src/sandbox/domain/seed.js'

/** What a real process shows a cron job: the exit code of each case, and stdin through a pipe. */
describe('deposits reconcile as a process', () => {
  const world = loggedInSandbox({seedReconcile: 40})

  it('exits 10 on discrepancies, 0 when every row is paid, 2 on a bad file; reads stdin', async () => {
    const seeds = world.sandbox.domain.expectedSeeds
    const file = join(world.config.dir, '..', 'day.csv')
    writeFileSync(file, expectedCsv(seeds))
    const found = await runCli(['deposits', 'reconcile', '--expected', file, '--from', '1d'], {env: world.env})
    expect(found.code).toBe(10)
    expect(found.stdout).toContain('Summary: 40 expected charges')
    expect(unstamped(found.stderr)).toMatch(/^Error: discrepancies found/m)

    // A window of its own, where two deposits match two rows exactly: reconciled, from stdin.
    const at = Date.parse('2026-01-05T10:00:00.000Z')
    insertDeposit(world.sandbox.domain.records, {externalCode: 'CLEAN-JAN-0001', amount: 1500, status: 'PAID', createdAtMs: at})
    insertDeposit(world.sandbox.domain.records, {externalCode: 'CLEAN-JAN-0002', amount: 2500, status: 'PAID', createdAtMs: at + 1000})
    const window = ['--from', '2026-01-05T09:00:00Z', '--to', '2026-01-05T11:00:00Z']
    const ok = await runCli(['deposits', 'reconcile', '--expected', '-', ...window, '--output', 'csv'], {env: world.env, input: 'external-code,amount\nCLEAN-JAN-0001,1500\nCLEAN-JAN-0002,2500\n'})
    expect(ok.code).toBe(0)
    expect(ok.stdout.split('\r\n').filter((line) => line.startsWith('paid,'))).toHaveLength(2)
    expect(ok.stderr).toMatch(/Reconciled: all 2 expected charges/)
    const off = await runCli(['deposits', 'reconcile', '--expected', '-', ...window], {env: world.env, input: 'external-code,amount\nCLEAN-JAN-0001,1500\nCLEAN-JAN-0002,2501\n'})
    expect(off.code).toBe(10)

    const bad = await runCli(['deposits', 'reconcile', '--expected', '-'], {env: world.env, input: 'external-code,amount\nCODE-0001,ten\n'})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/line 2: amount must be an integer number of cents/)
  })
})
