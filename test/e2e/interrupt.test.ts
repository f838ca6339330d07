import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {BIN, cleanEnv, runCli, runInTerminal, tempConfigDir} from '../helpers/cli.js'
import {payoutCsv, payouts} from '../helpers/batch.js'
import {control, startTestSandbox, type Sandbox} from '../helpers/sandbox.js'
import {loggedInSandbox} from '../helpers/world.js'

const ANSI = /\u001B\[[0-9;?]*[A-Za-z]/g

/** An answer held longer than any run here lasts: a command that ends, ends because it was told to. */
const HELD_MS = 120_000

/**
 * Ctrl-C and SIGTERM while a charge or a payout is out: the command ends at once (130, 143) with
 * one line, its journal entry stays pending, and the terminal keeps its signals meanwhile.
 */
describe('a money command interrupted while its request is out', () => {
  const world = loggedInSandbox()

  // tx create runs on the fast path, and on oclif's with GATEWAY_FAST_PATH=0: both end the same way.
  const commands = [
    {name: 'withdraw', argv: ['withdraw', '--amount', '2500', '--pix-key', 'maria@example.com', '--yes'], extra: {}, route: 'POST /core/withdraw', one: 'withdrawal', spinner: 'Sending the withdrawal'},
    {name: 'tx create', argv: ['tx', 'create', '--amount', '1500'], extra: {}, route: 'POST /core/transaction', one: 'charge', spinner: 'Creating the charge'},
    {name: "tx create on oclif's path", argv: ['tx', 'create', '--amount', '1700'], extra: {GATEWAY_FAST_PATH: '0'}, route: 'POST /core/transaction', one: 'charge', spinner: 'Creating the charge'},
  ]

  /** The pending entries of the journal, as `journal list --pending --json` shows them. */
  async function pending(): Promise<Array<{idempotencyKey: string; command: string; state: string}>> {
    const listed = await runCli(['journal', 'list', '--pending', '--json'], {env: world.env})
    expect(listed.code).toBe(0)
    return JSON.parse(listed.stdout) as Array<{idempotencyKey: string; command: string; state: string}>
  }

  beforeEach(async () => {
    await fetch(`${world.sandbox.baseUrl}/_sandbox/faults`, {method: 'DELETE'})
  })

  it.each(commands)('$name: Ctrl-C in a terminal ends it at once with exit 130 and one line; the entry is pending, and the terminal kept its signals', async ({argv, extra, route, one, spinner}) => {
    const before = (await pending()).length
    await control(world.sandbox.baseUrl, '/_sandbox/faults', {route, kind: 'slow', delayMs: HELD_MS})
    const result = await runInTerminal(argv, {
      env: {...world.env, ...extra},
      steps: [{expect: spinner, modes: true, send: '\u0003'}],
      timeoutS: 30,
    })
    // The answer was held for two minutes: a run that ended (within the helper's 30 s) was ended by the key.
    expect(result.code).toBe(130)
    // While the request was out, the terminal still made a signal of Ctrl-C, and read lines as usual.
    expect(result.modes).toEqual([{isig: true, icanon: true, echo: true}])
    expect(result.after).toEqual({isig: true, icanon: true, echo: true})
    const screen = result.output.replace(ANSI, '')
    const lines = screen.split(/\r?\n/).filter((line) => /Interrupted/.test(line))
    expect(lines).toHaveLength(1)
    expect(screen).not.toMatch(/Error:|could not reach/)
    expect(lines[0]).toMatch(
      new RegExp(`Interrupted \\(SIGINT\\) while sending the ${one}, idempotency key ([0-9a-f-]{36}): it may or may not have reached the gateway, and is pending in the journal\\. Settle it with \`gateway journal retry\``),
    )
    const key = /idempotency key ([0-9a-f-]{36}):/.exec(lines[0])![1]
    const left = await pending()
    expect(left).toHaveLength(before + 1)
    expect(left.find((entry) => entry.idempotencyKey === key)).toMatchObject({state: 'pending'})
  })

  it.each(commands)('$name: SIGTERM ends it at once with exit 143 and the same line; `journal retry` then settles it under the same key', async ({argv, extra, route, one}) => {
    await control(world.sandbox.baseUrl, '/_sandbox/faults', {route, kind: 'slow', delayMs: HELD_MS})
    const child = spawn(process.execPath, [BIN, ...argv], {env: cleanEnv({...world.env, ...extra}), stdio: ['ignore', 'pipe', 'pipe']})
    let stderr = ''
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    // Signalled once the request has reached the sandbox, which took the fault and holds the answer.
    await waitFor(() => world.sandbox.state.faults.queued.length === 0)
    child.kill('SIGTERM')
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code).toBe(143)
    expect(stdout).toBe('')
    const line = stderr.split('\n').filter((text) => /Interrupted/.test(text))
    expect(line).toHaveLength(1)
    expect(stderr).not.toMatch(/Error:|could not reach/)
    expect(line[0]).toMatch(new RegExp(`Interrupted \\(SIGTERM\\) while sending the ${one}, idempotency key [0-9a-f-]{36}: it may or may not have reached the gateway, and is pending in the journal`))
    const key = /idempotency key ([0-9a-f-]{36}):/.exec(line[0])![1]
    expect((await pending()).find((entry) => entry.idempotencyKey === key)).toMatchObject({state: 'pending'})
    // The sandbox made the record before it held the answer: the retry gets that record back, and makes no other.
    const retried = await runCli(['journal', 'retry', '--yes', '--key', key, '--json'], {env: world.env})
    expect(retried.code).toBe(0)
    const report = JSON.parse(retried.stdout) as {retried: Array<{idempotencyKey: string; state: string; replayed?: boolean}>}
    expect(report.retried).toEqual([expect.objectContaining({idempotencyKey: key, state: 'done', replayed: true})])
    expect((await pending()).find((entry) => entry.idempotencyKey === key)).toBeUndefined()
  })
})

/**
 * A batch interrupted while a row is out (the sandbox holds its answer): it ends at once, the row out
 * reported interrupted and pending in the journal, the rows not started reported not sent, in one line.
 */
describe('a batch interrupted while a row is out', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  let files: string

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    files = mkdtempSync(join(tmpdir(), 'gateway-batch-'))
    const login = await runCli(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox'], {env: {...env, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
    expect(login.code).toBe(0)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
    rmSync(files, {recursive: true, force: true})
  })

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s: exit %i at once, the row out pending, the rest not sent, said in one line', async (signal, code) => {
    const path = join(files, `${signal}.csv`)
    writeFileSync(path, payoutCsv(payouts(4, `batch-${signal}`)))
    await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/withdraw', kind: 'slow', delayMs: HELD_MS})
    const child = spawn(process.execPath, [BIN, 'withdraw', '--batch', path, '--yes', '--concurrency', '1', '--output', 'ndjson'], {env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    await waitFor(() => sandbox.state.faults.queued.length === 0)
    child.kill(signal)
    expect(await new Promise<number | null>((resolve) => child.on('close', resolve))).toBe(code)
    const rows = stdout.trim().split('\n').map((line) => JSON.parse(line) as {line: number; outcome: string; exitCode: number; idempotencyKey: string; error: string | null})
    expect(rows.map((row) => [row.outcome, row.exitCode])).toEqual([
      ['failed', code],
      ['not-sent', code],
      ['not-sent', code],
      ['not-sent', code],
    ])
    expect(rows[0].error).toBe(`interrupted (${signal}) while out: it may or may not have reached the gateway, and is pending in the journal`)
    const lines = stderr.split('\n').filter((line) => line.startsWith('Interrupted'))
    expect(lines).toEqual([
      `Interrupted (${signal}): 1 row was out and may or may not have reached the gateway: pending in the journal, \`gateway journal retry\` settles it with the same key. 3 rows were not sent. Run the same file again, unchanged, to send them: the rows already sent come back as replays.`,
    ])
    const listed = await runCli(['journal', 'list', '--pending', '--json'], {env})
    expect((JSON.parse(listed.stdout) as Array<{idempotencyKey: string}>).map((entry) => entry.idempotencyKey)).toContain(rows[0].idempotencyKey)
  })
})

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20))
}
