import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {mkdirSync, unlinkSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:net'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

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

  /**
   * Holds the journal's lock as another command would (a socket listening at journal.lock), and
   * answers once `count` processes have come to it: each waiter says its pid when it asks who holds
   * the lock. `release` lets go of it, as its owner does.
   */
  async function holdJournal(): Promise<{waiters(count: number): Promise<void>; release(): void}> {
    mkdirSync(config.dir, {recursive: true, mode: 0o700})
    const path = join(config.dir, 'journal.lock')
    const seen = new Set<number>()
    const server: Server = createServer((socket) => {
      socket.setEncoding('utf8').on('data', (text: string) => {
        const pid = (JSON.parse(text.split('\n')[0]) as {pid?: number}).pid
        if (typeof pid === 'number') seen.add(pid)
      })
      socket.on('error', () => {})
      socket.end(`${JSON.stringify({pid: process.pid, command: 'test', since: new Date().toISOString()})}\n`)
    })
    await new Promise<void>((resolve) => server.listen(path, resolve))
    return {
      async waiters(count) {
        const deadline = Date.now() + 50_000
        while (seen.size < count) {
          if (Date.now() > deadline) throw new Error(`fewer than ${count} processes came to the journal`)
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      },
      release() {
        unlinkSync(path)
        server.close()
      },
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
      const lock = await holdJournal()
      const running = Promise.all(Array.from({length: 10}, () => runCli(args, {env, timeoutMs: 60_000})))
      await lock.waiters(10)
      lock.release()
      const results = await running
      const paid = await paidWith(code)
      expect(paid, `round ${round}: ${results.map((result) => result.code).join(',')}`).toHaveLength(1)
      const sent = results.filter((result) => result.code === 0)
      const refused = results.filter((result) => result.code === 2)
      expect(sent).toHaveLength(1)
      expect(refused).toHaveLength(9)
      const first = JSON.parse(sent[0].stdout) as {idempotencyKey: string}
      for (const result of refused) {
        expect(result.stdout + result.stderr).toContain(`external code ${code}: a withdrawal with this external code was sent`)
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
    const lock = await holdJournal()
    const running = Promise.all([first, second].map((file) => runCli(['withdraw', '--batch', file, '--yes', '--output', 'ndjson', '--concurrency', '4'], {env, timeoutMs: 90_000})))
    await lock.waiters(2)
    lock.release()
    const [a, b] = await running
    const all = await sandboxWithdrawals(sandbox.baseUrl)
    const counts = new Map<string, number>()
    for (const withdrawal of all) if (withdrawal.externalCode?.startsWith('overlap-')) counts.set(withdrawal.externalCode, (counts.get(withdrawal.externalCode) ?? 0) + 1)
    // Each external code is paid once, the edited row's too (one payout per external code,
    // whatever its amount). A run that starts after the other has written entries is refused whole
    // up front (exit 2); one that raced it has each repeated row refused as it comes (exit 2 for
    // that row).
    for (const row of rows) expect(counts.get(row.externalCode), row.externalCode).toBe(1)
    type Row = {outcome: string; exitCode: number; externalCode: string; error: string | null}
    const results = [...ndjson<Row>(a.stdout), ...ndjson<Row>(b.stdout)]
    const refused = results.filter((result) => result.outcome === 'failed')
    for (const result of refused) {
      expect(result.exitCode).toBe(2)
      expect(result.error).toMatch(/a withdrawal with this external code was sent/)
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

  /** A process holding the journal's lock, as a command paused between its look and its write would: in this PID namespace or one of its own. */
  async function holder(namespace: boolean): Promise<ChildProcess> {
    const lock = fileURLToPath(new URL('../../dist/api/lock.js', import.meta.url))
    const script = `const {withFileLock} = await import(${JSON.stringify(lock)}); await withFileLock(${JSON.stringify(join(config.dir, 'journal.lock'))}, async () => { process.stdout.write('held\\n'); await new Promise(() => setInterval(() => {}, 1000)) })`
    const argv = [process.execPath, '--input-type=module', '-e', script]
    const child = namespace ? spawn('unshare', ['--pid', '--fork', '--kill-child', ...argv]) : spawn(argv[0], argv.slice(1))
    await new Promise<void>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (text: string) => text.includes('held') && resolve())
      child.on('exit', () => reject(new Error('the holder ended before it held the lock')))
    })
    return child
  }
  const ended = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.on('exit', () => resolve())))
  const unshareMissing = spawnSync('unshare', ['--pid', '--fork', '--kill-child', 'true']).status !== 0

  it('a withdraw waiting for a stopped holder names it, exits 7 after its wait with nothing sent, and is sent once the holder is gone', async () => {
    const child = await holder(false)
    try {
      child.kill('SIGSTOP')
      const args = ['withdraw', '--amount', '700', '--pix-key', 'maria@example.com', '--external-code', 'paused-holder-1', '--yes']
      const waited = await runCli([...args, '--json'], {env: {...env, GATEWAY_LOCK_WAIT_MS: '2500'}, timeoutMs: 30_000})
      expect(waited.code).toBe(7)
      const {error} = JSON.parse(waited.stdout) as {error: {code: string; message: string}}
      expect(error.code).toBe('LOCK_HELD')
      expect(error.message).toMatch(new RegExp(`^the journal \\(\\S+journal\\.lock\\) is held by pid ${child.pid} \\(.*since \\S+\\), which does not answer \\(paused\\?\\): waited 3 s for it, and nothing was sent$`))
      // While it waited, it said who holds the journal and that nothing was sent yet.
      expect(waited.stderr).toMatch(new RegExp(`Waiting for the journal .* held by pid ${child.pid} .*nothing was sent yet`))
      expect(await paidWith('paused-holder-1')).toHaveLength(0)
      // However long it stays stopped, the lock is never taken from it; once it ends, the next run goes in.
      child.kill('SIGCONT')
      child.kill('SIGKILL')
      await ended(child)
      const sent = await runCli(args, {env, timeoutMs: 30_000})
      expect(sent.code, sent.stderr).toBe(0)
      expect(await paidWith('paused-holder-1')).toHaveLength(1)
    } finally {
      child.kill('SIGCONT')
      child.kill('SIGKILL')
    }
  }, 60_000)

  it.skipIf(unshareMissing)('a holder in another PID namespace (its pid not visible here) is waited for, never broken, until it dies', async () => {
    const child = await holder(true)
    try {
      const args = ['withdraw', '--amount', '800', '--pix-key', 'maria@example.com', '--external-code', 'namespace-holder-1', '--yes']
      const waited = await runCli(args, {env: {...env, GATEWAY_LOCK_WAIT_MS: '1500'}, timeoutMs: 30_000})
      expect(waited.code).toBe(7)
      expect(waited.stderr).toMatch(/is held by pid 1 \(/)
      expect(waited.stderr).toContain('nothing was sent')
      expect(await paidWith('namespace-holder-1')).toHaveLength(0)
      child.kill('SIGKILL')
      await ended(child)
      const sent = await runCli(args, {env, timeoutMs: 30_000})
      expect(sent.code, sent.stderr).toBe(0)
      expect(await paidWith('namespace-holder-1')).toHaveLength(1)
    } finally {
      child.kill('SIGKILL')
    }
  }, 60_000)
})
