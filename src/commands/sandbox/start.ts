import {Flags} from '@oclif/core'

import {expectedCsv as expectedCsvOf, MAX_SEED_DEPOSITS, MAX_SEED_RECONCILE} from '../../sandbox/domain/seed.js'
import {MAX_TIMER_MS} from '../../schemas/enums.js'

import {isLoopbackHost} from '../../api/base-url.js'
import {BaseCommand} from '../../base-command.js'
import {UsageError} from '../../cli/errors.js'
import {DEFAULT_PLAN_KINDS, FAULT_KINDS, type FaultKind, type FaultPlan} from '../../sandbox/http/faults.js'

export default class SandboxStart extends BaseCommand<typeof SandboxStart> {
  static override summary = 'Run the embedded gateway sandbox in the foreground.'

  static override description = `Starts a local emulator of the whole gateway API on loopback: tokens, transactions with real BR Code QR payloads, deposits with snapshot paging, and sandbox-only controls that move a record through its life. It keeps its state in memory and runs until SIGINT or SIGTERM.

With --json it prints exactly one line on stdout when ready: {"baseUrl": ..., "clients": [...]}, plus "faults": {rate, kinds, seed} under --faults.

--faults makes that share of gateway requests (all but the token endpoint) fail, each with one of --fault-kinds: 500 or 503 answered; 429 with Retry-After: 1; reset, the connection reset before the request is handled; reset-after, the request handled and committed, then the connection reset, so the answer is lost; slow, the request handled and its answer held 35 s. The same --fault-seed fails the same requests again.`

  /** Written out: oclif's own puts --faults after --fault-kinds, which needs it, and pads brackets with spaces. */
  static override usage =
    '<%= command.id %> [--json] [--host <value>] [--port <value>] [--token-ttl <value>] [--auto-pay <ms>] [--seed-deposits <count>] [--forward-webhooks <url>] [--faults <rate> [--fault-kinds <list>] [--fault-seed <value>]] [--latency <ms>] [--log]'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {description: 'Any free port, machine-readable', command: '<%= config.bin %> <%= command.id %> --port 0 --json'},
    {description: 'Tokens that live 2 minutes', command: '<%= config.bin %> <%= command.id %> --token-ttl 120'},
    {description: 'For a demo: 10,000 past deposits, and QR codes that pay themselves after 3 s', command: '<%= config.bin %> <%= command.id %> --seed-deposits 10000 --auto-pay 3000'},
    {description: 'A day to reconcile: 1,000 expected charges, their deposits, and the expected file', command: '<%= config.bin %> <%= command.id %> --seed-reconcile 1000 --expected-file expected.csv'},
    {description: 'Webhooks to a local listener (gateway webhooks listen), webhookUrl staying https', command: '<%= config.bin %> <%= command.id %> --forward-webhooks http://127.0.0.1:4020/'},
    {description: 'A gateway that fails 30% of requests, the same ones each run', command: '<%= config.bin %> <%= command.id %> --faults 0.3 --fault-seed 42'},
    {description: 'A slow link: every answer 50 ms late', command: '<%= config.bin %> <%= command.id %> --latency 50'},
    {description: 'Every request on stderr as it is answered', command: '<%= config.bin %> <%= command.id %> --log'},
  ]

  /**
   * None of the global flags: a server has no profile, gateway, answer timeout or HTTP trace of its
   * own. Only the flags below show in its help, and are accepted. (The type stays the base
   * command's, which this command never reads: oclif merges baseFlags at run time only.)
   */
  static override baseFlags = {} as (typeof BaseCommand)['baseFlags']

  static override flags = {
    json: Flags.boolean({description: 'Print one JSON line on stdout when ready: {"baseUrl", "clients", "faults"?}; errors as a JSON document.'}),
    host: Flags.string({description: 'Address to listen on (loopback only).', default: '127.0.0.1'}),
    port: Flags.integer({description: 'Port to listen on; 0 takes any free port.', default: 4010, min: 0, max: 65_535}),
    'token-ttl': Flags.integer({description: 'Lifetime of issued tokens, in seconds.', default: 3600, min: 1, max: 86_400 * 30}),
    'auto-pay': Flags.integer({description: 'Pay every new QR code after this many milliseconds (at most 2147483647).', min: 1, max: MAX_TIMER_MS, helpValue: '<ms>'}),
    'seed-deposits': Flags.integer({description: `Fill this many varied deposits at start-up (every status, both origins, 90 days; at most ${MAX_SEED_DEPOSITS}).`, min: 0, max: MAX_SEED_DEPOSITS, helpValue: '<count>'}),
    'seed-reconcile': Flags.integer({
      description: `Seed this many expected charges of the last 20 hours (codes REC-<YYYYMMDD>-<000001...>) and their deposits: most paid once, and one in twenty each paid twice, with another amount, open (past due or not), failed, missing or paid with another QR code open, plus one unknown deposit (REC-<YYYYMMDD>-X...) in twenty; at most ${MAX_SEED_RECONCILE}. The sandbox's own.`,
      min: 0,
      max: MAX_SEED_RECONCILE,
      helpValue: '<count>',
    }),
    'expected-file': Flags.string({description: 'With --seed-reconcile: write the matching expected file here (CSV: external-code,amount,due-date).', helpValue: '<file>', dependsOn: ['seed-reconcile']}),
    'forward-webhooks': Flags.string({
      description: 'Deliver every notification to this local listener instead of its webhookUrl; the intended URL goes in the X-Original-Url header.',
      helpValue: '<url>',
    }),
    faults: Flags.string({description: 'Fail this share of gateway requests at random, from 0 to 1 (0.3 is 30%).', helpValue: '<rate>'}),
    'fault-kinds': Flags.string({
      description: `With --faults: the kinds of fault, comma-separated, from ${FAULT_KINDS.join(', ')} (default: ${DEFAULT_PLAN_KINDS.join(', ')}).`,
      helpValue: '<list>',
      dependsOn: ['faults'],
    }),
    'fault-seed': Flags.integer({description: 'With --faults: the seed of the draw, to fail the same requests again (default: a new one, shown).', dependsOn: ['faults']}),
    latency: Flags.integer({description: 'Delay every answer of the gateway API by this many milliseconds (at most 2147483647).', min: 0, max: MAX_TIMER_MS, helpValue: '<ms>'}),
    log: Flags.boolean({description: 'Print one line per request on stderr: time, method, path, status, duration in ms, client id.'}),
  }

  async run(): Promise<void> {
    const {flags} = this
    if (!isLoopbackHost(flags.host)) throw new UsageError(`--host must be a loopback address, got "${flags.host}"`)
    const forward = flags['forward-webhooks']
    if (forward !== undefined) {
      const {destinationUrlProblem} = await import('../../schemas/rules.js')
      const problem = destinationUrlProblem(forward)
      if (problem) throw new UsageError(`--forward-webhooks ${problem}, got "${forward}"`)
    }
    const faults = flags.faults === undefined ? undefined : faultPlan(flags.faults, flags['fault-kinds'], flags['fault-seed'])
    const {startSandbox} = await import('../../sandbox/server.js')
    const sandbox = await startSandbox({
      host: flags.host,
      port: flags.port,
      tokenTtlSec: flags['token-ttl'],
      autoPayMs: flags['auto-pay'],
      seedDeposits: flags['seed-deposits'],
      seedReconcile: flags['seed-reconcile'],
      forwardWebhooksTo: forward,
      faults,
      latencyMs: flags.latency,
      log: flags.log ? (line) => process.stderr.write(`${line}\n`) : undefined,
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') throw new UsageError(`--port ${flags.port} is already in use; pick another or use --port 0`)
      throw error
    })
    if (flags['expected-file']) await writeExpected(flags['expected-file'], sandbox.domain.expectedSeeds, () => sandbox.close())
    const clients = sandbox.clients.map(({clientId, clientSecret, scopes}) => ({clientId, clientSecret, scopes}))
    const ctx = this.ctx
    if (this.jsonEnabled()) {
      ctx.io.stdout.write(`${JSON.stringify({baseUrl: sandbox.baseUrl, clients, ...(faults ? {faults} : {})})}\n`)
    } else {
      ctx.out(`Sandbox listening on ${ctx.paint('bold', sandbox.baseUrl)} (tokens live ${flags['token-ttl']}s). Ctrl-C stops it.`)
      if (flags['seed-deposits']) ctx.out(`Seeded ${flags['seed-deposits']} deposits over the last 90 days.`)
      if (flags['seed-reconcile']) ctx.out(`Seeded ${flags['seed-reconcile']} expected charges of the last 20 hours and their deposits${flags['expected-file'] ? `; the expected file is ${flags['expected-file']}` : ''}.`)
      if (flags['auto-pay']) ctx.out(`New QR codes are paid after ${flags['auto-pay']} ms.`)
      if (forward) ctx.out(`Every notification goes to ${forward} (the intended URL in X-Original-Url).`)
      if (faults) {
        ctx.out(`Failing ${faults.rate * 100}% of gateway requests (${faults.kinds.join(', ')}), seed ${faults.seed}: --fault-seed ${faults.seed} fails the same ones again.`)
      }
      if (flags.latency) ctx.out(`Every gateway answer comes ${flags.latency} ms late.`)
      ctx.out('Clients:')
      for (const client of clients) ctx.out(`  ${client.clientId} / ${client.clientSecret}  scopes: ${client.scopes.join(', ')}`)
      ctx.out('Log in with:')
      ctx.out(`  GATEWAY_CLIENT_SECRET=sandbox-secret gateway login --base-url ${sandbox.baseUrl} --client-id sandbox`)
    }
    const signal = await ctx.interrupted()
    await sandbox.close()
    if (!this.jsonEnabled()) ctx.note(`Sandbox stopped (${signal}).`)
  }
}

/** Writes the expected file of --seed-reconcile; a file that cannot be written stops the sandbox (exit 2). */
async function writeExpected(file: string, rows: Parameters<typeof expectedCsvOf>[0], close: () => Promise<void>): Promise<void> {
  const {writeFile} = await import('node:fs/promises')
  try {
    await writeFile(file, expectedCsvOf(rows))
  } catch (error) {
    await close()
    throw new UsageError(`--expected-file ${file} cannot be written: ${(error as Error).message}`)
  }
}

/** The plan of --faults, --fault-kinds and --fault-seed; exit 2 for a value out of bounds. */
function faultPlan(rateText: string, kindsText = DEFAULT_PLAN_KINDS.join(','), seed?: number): FaultPlan {
  const rate = Number(rateText)
  if (rateText.trim() === '' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw new UsageError(`--faults must be a share from 0 to 1, e.g. 0.3; got "${rateText}"`)
  }
  const kinds = kindsText.split(',').map((kind) => kind.trim())
  const unknown = kinds.filter((kind) => !FAULT_KINDS.includes(kind as FaultKind))
  if (unknown.length > 0 || kinds.length === 0) {
    throw new UsageError(`--fault-kinds takes ${FAULT_KINDS.join(', ')}; got "${unknown.join(',') || kindsText}"`)
  }
  return {rate, kinds: kinds as FaultKind[], seed: seed ?? Math.floor(Math.random() * 2 ** 31)}
}
