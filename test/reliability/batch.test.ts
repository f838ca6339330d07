import {spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {createInterface} from 'node:readline'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {Journal} from '../../src/journal/journal.js'
import {ndjson, payoutCsv, payouts, sandboxWithdrawals} from '../helpers/batch.js'
import {BIN, cleanEnv, runCli, tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {recordFigures} from '../helpers/figures.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

/** What only a real process shows of a batch: killed half-way, then run again; and no terminal at all. */
describe('withdraw --batch in a real process', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  const figures: Record<string, unknown> = {}

  beforeAll(async () => {
    // Every answer of the gateway comes 100 ms after the request was handled, so a batch takes a while.
    sandbox = await startTestSandbox({latencyMs: 100})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
  })
  afterAll(async () => {
    recordFigures('batch', figures)
    await sandbox.close()
    config.remove()
  })

  const held = async (tag: string) => (await sandboxWithdrawals(sandbox.baseUrl)).filter((withdrawal) => withdrawal.externalCode?.startsWith(`${tag}-`))

  it('200 withdrawals killed with SIGKILL half-way, then the same file again: exactly 200 withdrawals, none doubled; a third run sends nothing', async () => {
    const tag = 'killed'
    const path = join(dirname(config.dir), 'payouts.csv')
    writeFileSync(path, payoutCsv(payouts(200, tag)))

    const child = spawn(process.execPath, [BIN, 'withdraw', '--batch', path, '--yes', '--output', 'ndjson'], {env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe']})
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
    let printed = 0
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    await new Promise<void>((resolve, reject) => {
      // A batch that stops making progress fails the test with what it said, instead of timing it out.
      const watchdog = setTimeout(() => {
        child.kill('SIGKILL')
        reject(new Error(`no progress after ${printed} rows; stderr: ${stderr.slice(-2000)}`))
      }, 60_000)
      child.once('exit', () => clearTimeout(watchdog))
      createInterface({input: child.stdout}).on('line', (line) => {
        if (!line.trim()) return
        // A row that did not go through ends the test with what it said, rather than leaving it waiting.
        if ((JSON.parse(line) as {outcome?: string}).outcome !== 'done') {
          child.kill('SIGKILL')
          reject(new Error(`a row of the first run did not go through: ${line}`))
          return
        }
        // Killed once some rows are done: others are in flight, handled by the gateway and not yet answered.
        if (++printed === 60) {
          child.kill('SIGKILL')
          resolve()
        }
      })
      child.once('exit', () => reject(new Error(`the batch ended before it was killed, after ${printed} rows`)))
    })
    expect(await exited).toBe('SIGKILL')
    const afterKill = await held(tag)
    expect(afterKill.length).toBeGreaterThanOrEqual(60)
    expect(afterKill.length).toBeLessThan(200)
    const entries = (await new Journal(config.dir).entries()).filter((entry) => entry.externalCode?.startsWith(`${tag}-`))
    const pending = entries.filter((entry) => entry.state === 'pending').length

    const again = await runCommand(['withdraw', '--batch', path, '--yes', '--concurrency', '16'], {env})
    expect(again.code, again.stderr).toBe(0)
    const results = ndjson<{outcome: string; id: string; replayed: boolean}>(again.stdout)
    expect(results).toHaveLength(200)
    const replayed = results.filter((result) => result.replayed).length
    // Every withdrawal the killed run made, answered or not, comes back as a replay; the rest are made now.
    expect(replayed).toBe(afterKill.length)
    expect(results.filter((result) => result.outcome === 'done')).toHaveLength(200 - afterKill.length)
    const all = await held(tag)
    expect(all).toHaveLength(200)
    expect(new Set(all.map((withdrawal) => withdrawal.externalCode)).size).toBe(200)
    expect(new Set(results.map((result) => result.id))).toEqual(new Set(all.map((withdrawal) => withdrawal.id)))

    // Run twice by mistake: nothing new goes out.
    const third = await runCommand(['withdraw', '--batch', path, '--yes', '--concurrency', '16'], {env})
    expect(third.code, third.stderr).toBe(0)
    expect(ndjson<{replayed: boolean}>(third.stdout).every((result) => result.replayed)).toBe(true)
    expect(await held(tag)).toHaveLength(200)
    figures.killedBatch = {
      rows: 200,
      printedBeforeKill: printed,
      madeBeforeKill: afterKill.length,
      pendingInJournalAfterKill: pending,
      rerun: {replayed, done: 200 - replayed, exitCode: again.code},
      thirdRun: {replayed: 200},
      withdrawalsInSandbox: all.length,
      doubled: all.length - new Set(all.map((withdrawal) => withdrawal.externalCode)).size,
    }
  }, 120_000)

  it('without a terminal and without --yes: exit 2, the summary on stderr, nothing on stdout, nothing sent', async () => {
    const path = join(dirname(config.dir), 'unconfirmed.csv')
    writeFileSync(path, payoutCsv(payouts(4, 'unconfirmed')))
    const before = (await stats(sandbox.baseUrl)).requests
    const result = await runCli(['withdraw', '--batch', path], {env})
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(': 4 withdrawals')
    // stderr is a pipe: the line starts with the time.
    expect(result.stderr).toMatch(/^\S+Z Error: a batch of 4 withdrawals needs a confirmation: give --yes/m)
    expect((await stats(sandbox.baseUrl)).requests).toBe(before)
  })
})
