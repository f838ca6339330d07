import {spawn} from 'node:child_process'
import {closeSync, existsSync, lstatSync, openSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {payoutCsv, payouts, sandboxWithdrawals} from '../helpers/batch.js'
import {BIN, cleanEnv, runCli, unstamped} from '../helpers/cli.js'
import {mountTmpfs, tmpfsRefusal, type Tmpfs} from '../helpers/tmpfs.js'
import {loggedInSandbox} from '../helpers/world.js'

/** Runs the built CLI with its stdout on /dev/full, where every write fails with ENOSPC; stderr and stdin are pipes. */
function runIntoFullDisk(args: string[], env: Record<string, string>): Promise<{code: number | null; stderr: string}> {
  const full = openSync('/dev/full', 'w')
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {env: cleanEnv(env), stdio: ['pipe', full, 'pipe']})
    closeSync(full)
    let stderr = ''
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({code, stderr}))
    child.stdin!.end()
  })
}

/**
 * Output that cannot be written (a full disk under a cron redirect): one line naming the output and
 * the cause, and for a charge or payout the record it made, exit 1: never a stack trace, never 7.
 * The fast path (tx create, tx get) says the same as oclif's (GATEWAY_FAST_PATH=0).
 */
describe.skipIf(!existsSync('/dev/full'))('output that cannot be written', () => {
  const world = loggedInSandbox({seedDeposits: 30})

  /** The journal's last entry: what the run made, as the journal holds it. */
  async function lastEntry(): Promise<{id: string; idempotencyKey: string; state: string; command: string}> {
    const listed = await runCli(['journal', 'list', '--json'], {env: world.env})
    expect(listed.code).toBe(0)
    return (JSON.parse(listed.stdout) as Array<{id: string; idempotencyKey: string; state: string; command: string}>).at(-1)!
  }

  /** The error lines of stderr, time taken off; the run said nothing else wrong and showed no trace. */
  function errorLines(stderr: string): string[] {
    expect(stderr).not.toMatch(/^\s+at |node:internal|Node\.js v/m)
    return unstamped(stderr)
      .split('\n')
      .filter((line) => line.startsWith('Error:'))
  }

  const WHERE = 'Error: cannot write the output to standard output (/dev/full): no space left on device (ENOSPC)'
  // Each run names the bundle it ran (GATEWAY_CODE_CACHE_REPORT), so that each path is known to be the one tested.
  const paths: Array<{path: string; extra: Record<string, string>; bundle: RegExp}> = [
    {path: 'the fast path', extra: {GATEWAY_CODE_CACHE_REPORT: '1'}, bundle: /code cache of fast-tx-(create|get)\.cjs/},
    {path: "oclif's path", extra: {GATEWAY_CODE_CACHE_REPORT: '1', GATEWAY_FAST_PATH: '0'}, bundle: /code cache of gateway\.cjs/},
  ]

  it.each([
    ...paths.map(({path, extra, bundle}) => ({name: `tx create --json, ${path}`, argv: ['tx', 'create', '--amount', '1500', '--json'], extra, bundle, one: 'charge'})),
    ...paths.map(({path, extra, bundle}) => ({name: `tx create (a table), ${path}`, argv: ['tx', 'create', '--amount', '1600'], extra, bundle, one: 'charge'})),
    {name: 'withdraw --yes --json', argv: ['withdraw', '--amount', '2500', '--pix-key', 'maria@example.com', '--yes', '--json'], extra: {}, bundle: /(?:)/, one: 'withdrawal'},
  ])('$name: exit 1, one line naming the output, the cause and the record made', async ({argv, extra, bundle, one}) => {
    const result = await runIntoFullDisk(argv, {...world.env, ...extra})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(bundle)
    const made = await lastEntry()
    expect(made).toMatchObject({state: 'done'})
    expect(errorLines(result.stderr)).toEqual([`${WHERE}. The ${one} ${made.id} was made, idempotency key ${made.idempotencyKey}; \`gateway journal list\` shows it`])
  })

  it.each(paths)('tx get --json, $path: exit 1, one line naming the output and the cause', async ({extra, bundle}) => {
    const id = await chargeId()
    expect(id).toBeDefined()
    const result = await runIntoFullDisk(['tx', 'get', id!, '--json'], {...world.env, ...extra})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(bundle)
    expect(errorLines(result.stderr)).toEqual([WHERE])
  })

  it('deposits list --output csv: exit 1, one line naming the output and the cause', async () => {
    const result = await runIntoFullDisk(['deposits', 'list', '--output', 'csv'], world.env)
    expect(result.code).toBe(1)
    expect(errorLines(result.stderr)).toEqual([WHERE])
  })

  it('deposits summary --chart png to a full disk: exit 1, one line naming the file and the cause', async () => {
    const result = await runCli(['deposits', 'summary', '--chart', 'png', '/dev/full'], {env: world.env})
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(errorLines(result.stderr)).toEqual(['Error: cannot write --chart png /dev/full: the disk is full'])
    expect(lstatSync('/dev/full').isCharacterDevice()).toBe(true)
  })

  it.each(paths)('deposits list --output-file /dev/full, $path: exit 1, one line naming the file and the cause; the device stays a device', async ({extra, bundle}) => {
    const result = await runCli(['deposits', 'list', '--all', '--output', 'csv', '--output-file', '/dev/full'], {env: {...world.env, ...extra}})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(bundle === paths[0].bundle ? /code cache of fast-deposits-list\.cjs/ : bundle)
    expect(errorLines(result.stderr)).toEqual(['Error: cannot write --output-file /dev/full: the disk is full'])
    expect(lstatSync('/dev/full').isCharacterDevice()).toBe(true)
  })

  it.each(paths)('tx create --qr-png /dev/full, $path: exit 1, one line naming the charge made and how to get its image again', async ({extra, bundle}) => {
    const result = await runCli(['tx', 'create', '--amount', '1700', '--qr-png', '/dev/full'], {env: {...world.env, ...extra}})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(bundle)
    const made = await lastEntry()
    expect(made).toMatchObject({state: 'done', command: 'tx create'})
    expect(errorLines(result.stderr)).toEqual([
      `Error: the charge ${made.id} was created, but --qr-png /dev/full could not be written (the disk is full). Get its image without a new charge: gateway tx get ${made.id} --qr-png /dev/full`,
    ])
  })

  /** The id of a charge the journal holds (the tests above made some). */
  async function chargeId(): Promise<string | undefined> {
    const listed = await runCli(['journal', 'list', '--json'], {env: world.env})
    return (JSON.parse(listed.stdout) as Array<{id?: string; command: string}>).find((entry) => entry.command === 'tx create' && entry.id)?.id
  }
})

const root = typeof process.getuid === 'function' && process.getuid() === 0
const refusal = root ? tmpfsRefusal() : 'mount -t tmpfs needs root'
if (refusal) console.log(`[skip] an export to a full tmpfs, as a process: ${refusal}`)

/**
 * An export to a full disk, as cron runs it: a process on each path (the fast path, oclif's), its
 * --output-file on a real tmpfs with no room, or room for part of the export. Exit 1, one line
 * naming the file and the cause, the last good file intact, nothing else left in the folder.
 */
describe.skipIf(Boolean(refusal))('an export to a full disk, as a process', () => {
  const world = loggedInSandbox({seedDeposits: 600, latencyMs: 20})
  let disk: Tmpfs
  beforeAll(() => {
    disk = mountTmpfs('64k', '0755')
  })
  afterAll(() => disk?.unmount())

  const LAST_GOOD = `id,amount\r\n${'x'.repeat(812)}\r\n`
  const cases = [
    {path: 'the fast path', extra: {GATEWAY_CODE_CACHE_REPORT: '1'}, bundle: /code cache of fast-deposits-list\.cjs/},
    {path: "oclif's path", extra: {GATEWAY_CODE_CACHE_REPORT: '1', GATEWAY_FAST_PATH: '0'}, bundle: /code cache of gateway\.cjs/},
  ].flatMap((each) => [
    {...each, room: 0, what: 'no room'},
    {...each, room: 24 * 1024, what: 'room for part of the export'},
  ])

  it.each(cases)('$path, $what: exit 1, one line, the last good file intact', async ({extra, bundle, room}) => {
    const file = join(disk.path, 'paid.csv')
    writeFileSync(file, LAST_GOOD)
    disk.fill(room)
    try {
      const result = await runCli(['deposits', 'list', '--all', '--quiet', '--output', 'csv', '--output-file', file], {env: {...world.env, ...extra}})
      expect(result.code).toBe(1)
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(bundle)
      expect(result.stderr).not.toMatch(/^\s+at |node:internal/m)
      const errors = unstamped(result.stderr)
        .split('\n')
        .filter((line) => line.includes('Error'))
      expect(errors).toEqual([`Error: cannot write --output-file ${file}: the disk is full; the file was left as it was`])
      expect(readFileSync(file, 'utf8')).toBe(LAST_GOOD)
      expect(readdirSync(disk.path).filter((name) => name !== '.filler')).toEqual(['paid.csv'])
    } finally {
      disk.empty()
    }
  })
})

/**
 * Batch results that cannot be written (stdout on a full disk, after the rows went through): exit 1,
 * one line naming the output and the records made, and where they are kept (the journal), so that
 * the results are had again without sending anything twice.
 */
describe.skipIf(!existsSync('/dev/full'))('batch results that cannot be written', () => {
  const world = loggedInSandbox()

  it('withdraw --batch --yes with stdout on /dev/full: exit 1, one line naming stdout and the payouts made', async () => {
    const file = join(world.config.dir, '..', `payouts-${process.pid}.csv`)
    writeFileSync(file, payoutCsv(payouts(3, 'full-batch')))
    const result = await runIntoFullDisk(['withdraw', '--batch', file, '--yes', '--output', 'csv'], world.env)
    expect(result.code).toBe(1)
    const errors = unstamped(result.stderr)
      .split('\n')
      .filter((line) => line.startsWith('Error:'))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/^Error: cannot write the output to standard output \(\/dev\/full\): no space left on device \(ENOSPC\)\. (The withdrawal \S+ was made, idempotency key \S+; `gateway journal list` shows it|\d+ records were made before it, the last the withdrawal \S+ \(idempotency key \S+\); `gateway journal list` shows them)(; (1 more was|\d+ more were) being sent, pending in the journal: `gateway journal retry --yes` settles (it under its key|them under their keys), sending nothing twice)?$/)
    // Rows still in flight when the process ended are in the journal under the keys they were sent
    // with: journal retry settles them with the gateway's records, sending no payout twice, and then
    // the journal names every payout the run made.
    const made = async () => (await sandboxWithdrawals(world.sandbox.baseUrl)).filter((withdrawal) => withdrawal.externalCode?.startsWith('full-batch-'))
    const before = await made()
    expect(before.length).toBeGreaterThan(0)
    // The line accounts for every payout the gateway holds: those it names as made, and those it says were being sent.
    const named = /The withdrawal/.test(errors[0]) ? 1 : Number(/(\d+) records were made/.exec(errors[0])![1])
    const inFlight = Number(/(\d+) more were being sent/.exec(errors[0])?.[1] ?? (/1 more was being sent/.test(errors[0]) ? 1 : 0))
    expect(before.length).toBeLessThanOrEqual(named + inFlight)
    const retried = await runCli(['journal', 'retry', '--yes'], {env: world.env})
    expect(retried.code, retried.stderr).toBe(0)
    expect(await made()).toHaveLength(before.length)
    const listed = await runCli(['journal', 'list', '--json'], {env: world.env})
    const journal = JSON.parse(listed.stdout) as Array<{id?: string; idempotencyKey: string}>
    for (const withdrawal of before) expect(journal.map((entry) => entry.id)).toContain(withdrawal.id)
  })
})
