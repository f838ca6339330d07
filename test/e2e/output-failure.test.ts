import {spawn} from 'node:child_process'
import {closeSync, existsSync, openSync} from 'node:fs'

import {describe, expect, it} from 'vitest'

import {BIN, cleanEnv, runCli, unstamped} from '../helpers/cli.js'
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
    expect(errorLines(result.stderr)).toEqual(['Error: cannot write the chart to /dev/full: ENOSPC: no space left on device, write'])
  })

  /** The id of a charge the journal holds (the tests above made some). */
  async function chargeId(): Promise<string | undefined> {
    const listed = await runCli(['journal', 'list', '--json'], {env: world.env})
    return (JSON.parse(listed.stdout) as Array<{id?: string; command: string}>).find((entry) => entry.command === 'tx create' && entry.id)?.id
  }
})
