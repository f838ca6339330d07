import {cpSync, lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {sandboxWithdrawals} from '../helpers/batch.js'
import {BIN, runCli} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

const CPF = '529.982.247-25'
/** The system calls by which the journal, its index, its archives and its lock change on disk. */
const STEPS = ['write', 'pwrite64', 'fdatasync', 'fsync', 'link', 'linkat', 'rename', 'renameat', 'renameat2', 'unlink', 'unlinkat']

/**
 * A `withdraw` whose first append rotates the journal (the settled entries to an archive and the
 * index, the pending one kept), killed by strace at each of its writes, flushes, links, renames and
 * unlinks in turn, each time on a fresh copy of the same folder. After every kill, whatever step it
 * died at: the pending entry of before is still pending, every payout of before is still refused as
 * a repeat (never sent again), the payout being sent was made at most once, and the next command
 * takes the lock and runs.
 */
describe('a withdraw killed at each step of a rotation', () => {
  let sandbox: Sandbox
  let work: string
  let template: string
  let maxBytes: number
  let batch: string
  const paid = ['rotate-paid-0001', 'rotate-paid-0002', 'rotate-paid-0003', 'rotate-paid-0004', 'rotate-paid-0005', 'rotate-paid-0006']

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    work = mkdtempSync(join(tmpdir(), 'gateway-kill-'))
    template = join(work, 'template')
    const env = {GATEWAY_CONFIG_DIR: template}
    await logIn(sandbox.baseUrl, env)
    for (const code of paid) {
      const sent = await runCommand(['withdraw', '--amount', '100', '--pix-key', CPF, '--external-code', code, '--yes'], {env})
      expect(sent.code, sent.stderr).toBe(0)
    }
    // One left pending: sent, and its answer lost.
    await fetch(`${sandbox.baseUrl}/_sandbox/faults`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({route: 'POST /core/withdraw', kind: 'reset-after'})})
    const lost = await runCommand(['withdraw', '--amount', '100', '--pix-key', CPF, '--external-code', 'rotate-pending-1', '--yes'], {env: {...env, GATEWAY_RETRIES: '0'}})
    await fetch(`${sandbox.baseUrl}/_sandbox/faults`, {method: 'DELETE'})
    expect(lost.code, lost.stderr).toBe(7)
    // The next append rotates.
    maxBytes = lstatSync(join(template, 'journal.jsonl')).size
    batch = join(work, 'again.csv')
    writeFileSync(batch, `amount,pix-key,external-code\n${[...paid, 'rotate-pending-1'].map((code) => `100,${CPF},${code}`).join('\n')}\n`)
  }, 120_000)
  afterAll(async () => {
    await sandbox?.close()
    rmSync(work, {recursive: true, force: true})
  })

  /** A fresh copy of the folder, and its environment. */
  let copies = 0
  const copy = (): Record<string, string> => {
    copies += 1
    const dir = join(work, `copy-${copies}`)
    cpSync(template, dir, {recursive: true})
    // One thread for the file system's work: a kill at a thread's N-th call falls at one place in the run.
    return {GATEWAY_CONFIG_DIR: dir, GATEWAY_JOURNAL_MAX_BYTES: String(maxBytes), GATEWAY_LOCK_WAIT_MS: '5000', UV_THREADPOOL_SIZE: '1'}
  }

  /** How many times each step is taken by a whole run, from a traced run on a copy (spawned without blocking: the sandbox runs in this process). */
  async function stepCounts(env: Record<string, string>, code: string): Promise<Map<string, number>> {
    const log = join(work, `trace-${code}`)
    const traced = await runCli(['withdraw', '--amount', '100', '--pix-key', CPF, '--external-code', code, '--yes'], {
      env,
      program: ['strace', '-f', '-qq', '-o', log, '-e', `trace=${STEPS.join(',')}`, process.execPath, BIN],
    })
    expect(traced.code, traced.stderr).toBe(0)
    // strace counts each thread's calls apart (\`when=N\` is a thread's N-th): the most any one thread made.
    const byThread = new Map<string, number>()
    for (const line of readFileSync(log, 'utf8').split('\n')) {
      const [, thread, name] = /^(\d+)\s+([a-z0-9_]+)\(/.exec(line) ?? []
      if (name && STEPS.includes(name)) byThread.set(`${name} ${thread}`, (byThread.get(`${name} ${thread}`) ?? 0) + 1)
    }
    const counts = new Map<string, number>()
    for (const [key, count] of byThread) {
      const name = key.split(' ')[0]
      counts.set(name, Math.max(counts.get(name) ?? 0, count))
    }
    return counts
  }

  it('keeps every pending entry, refuses every earlier payout again, and pays the new one at most once', async () => {
    const counts = await stepCounts(copy(), 'rotate-traced-1')
    // The rotation happened in the traced run: an archive link and the new file's rename.
    expect((counts.get('link') ?? 0) + (counts.get('linkat') ?? 0)).toBeGreaterThan(0)
    expect((counts.get('rename') ?? 0) + (counts.get('renameat') ?? 0) + (counts.get('renameat2') ?? 0)).toBeGreaterThan(0)
    let kills = 0
    for (const [step, count] of counts) {
      // Of each step, its first, second and last, and three between (a rotation flushes some 256
      // index files: each is one more place to die, and alike).
      const places = [...new Set([1, 2, Math.ceil(count / 4), Math.ceil(count / 2), Math.ceil((3 * count) / 4), count])].filter((at) => at >= 1 && at <= count)
      for (const at of places) {
        const env = copy()
        const code = `rotate-new-${step}-${at}`
        const killed = await runCli(['withdraw', '--amount', '100', '--pix-key', CPF, '--external-code', code, '--yes'], {
          env,
          program: ['strace', '-f', '-qq', '-o', '/dev/null', '-e', `trace=${step}`, '-e', `inject=${step}:signal=SIGKILL:when=${at}`, process.execPath, BIN],
        })
        if (killed.code === 0) continue
        kills += 1
        const where = `killed at ${step} #${at}`
        // The next command takes the lock and reads the journal: the pending entry of before is there.
        const pending = await runCli(['journal', 'list', '--pending', '--json'], {env})
        expect(pending.code, `${where}: ${pending.stderr}`).toBe(0)
        expect(pending.stdout, where).toContain('rotate-pending-1')
        // Every payout of before, paid or pending, is refused again as a batch: exit 2 as repeats, or 3
        // where a line naming one was cut short; never sent (counted at the end).
        const repeat = await runCli(['withdraw', '--batch', batch, '--yes'], {env})
        expect([2, 3], `${where}: ${repeat.stderr}`).toContain(repeat.code)
        // The payout being sent when it died: made at most once, whatever the next try does.
        const retry = await runCli(['withdraw', '--amount', '100', '--pix-key', CPF, '--external-code', code, '--yes'], {env})
        expect([0, 2, 3, 7], `${where}, retry: ${retry.stderr}`).toContain(retry.code)
        const made = (await sandboxWithdrawals(sandbox.baseUrl)).filter((withdrawal) => withdrawal.externalCode === code)
        expect(made.length, where).toBeLessThanOrEqual(1)
      }
    }
    // Enough places to die at to mean something.
    expect(kills).toBeGreaterThan(10)
    // Each payout of before was made once, for all the kills and the tries after them.
    for (const code of [...paid, 'rotate-pending-1']) expect((await sandboxWithdrawals(sandbox.baseUrl)).filter((withdrawal) => withdrawal.externalCode === code), code).toHaveLength(1)
  }, 600_000)
})
