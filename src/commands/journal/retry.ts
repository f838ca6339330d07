import {Flags} from '@oclif/core'

import type {Session} from '../../api/profile.js'
import {BaseCommand} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'
import {CliError, ExitCode, InterruptedError, UsageError} from '../../cli/errors.js'
import type {EntryState} from '../../journal/journal.js'

export interface JournalRetryOptions {
  /** Replay without asking (needed when there is no terminal to ask in). */
  yes?: boolean
  /** Only the pending entries with these idempotency keys. */
  keys?: string[]
  /** Only this profile's entries (--profile or GATEWAY_PROFILE); every profile's when not given. */
  profile?: string
}

/** What became of one replayed entry. */
export interface RetryResult {
  entry: string
  command: string
  idempotencyKey: string
  /** The amount of the body that is (or would be) sent; null when it holds no valid one. */
  amount: number | null
  /** Where the body sends the money (a PIX key, masked), for withdrawals. */
  destination?: string
  profile: string
  /** The gateway the entry was sent to: it is replayed there only. */
  baseUrl: string
  state: EntryState
  id?: string
  status?: string
  replayed?: boolean
  error?: {code: string; message: string; status?: number}
  /** Not replayed: the profile now points at another gateway, whose credentials must not go to this one. */
  elsewhere?: {profileBaseUrl: string}
  /** Not replayed: the recorded body fails the checks of the command that wrote it. */
  invalid?: string[]
}

export interface JournalRetryReport {
  retried: RetryResult[]
  done: number
  failed: number
  pending: number
  /** Left pending, not replayed: their profile now points at another gateway. */
  elsewhere: number
  /** Left pending, not replayed: their recorded body fails the checks of the command that wrote it. */
  invalid: number
}

/** Entries whose profile points at another gateway now: left pending, named, and the run exits 3. */
export class ElsewhereError extends CliError {
  readonly code = 'GATEWAY_MOVED'
  readonly exitCode = ExitCode.Auth
}

/**
 * `journal retry`: replays the pending entries of the journal (every profile's, or one profile's),
 * each through the one send path with its original profile, idempotency key and body, and only
 * against the gateway it was first sent to, while its profile still points there: the profile's
 * credentials never go to another gateway. The gateway answers the record the first request made,
 * or makes it once now; each outcome is recorded. It moves money: it asks first in a terminal, and
 * needs --yes without one.
 */
export async function journalRetry(options: JournalRetryOptions, ctx: CommandContext): Promise<JournalRetryReport> {
  const {writableJournal} = await import('../../journal/journaled.js')
  // Replays are journalled: without a journal that can be written, nothing is replayed, and nothing is said to be pending or not.
  const journal = await writableJournal(ctx, 'journal retry')
  const wanted = options.keys && options.keys.length > 0 ? new Set(options.keys) : undefined
  const all = (await journal.entries()).filter((entry) => options.profile === undefined || entry.profile === options.profile)
  if (wanted) {
    const known = new Set(all.map((entry) => entry.idempotencyKey))
    const unknown = [...wanted].filter((key) => !known.has(key))
    const where = options.profile === undefined ? 'the journal' : `the journal of profile "${options.profile}"`
    if (unknown.length > 0) throw new UsageError(`--key ${unknown.join(', ')}: no such idempotency key in ${where}`)
  }
  const pending = all.filter((entry) => entry.state === 'pending' && (!wanted || wanted.has(entry.idempotencyKey)))
  const report: JournalRetryReport = {retried: [], done: 0, failed: 0, pending: 0, elsewhere: 0, invalid: 0}
  if (pending.length === 0) {
    if (!ctx.globals.json) ctx.note(`Nothing is pending${options.profile === undefined ? '' : ` for profile "${options.profile}"`}: every request in the journal has an outcome.`)
    return report
  }
  const {brl} = await import('../../render/money.js')
  const {replayAmount, replayDestination, replayProblems} = await import('../../journal/replay.js')
  // What is shown and sent is the recorded body: it passes the checks of the command that wrote it first.
  const problems = new Map<string, string[]>()
  for (const entry of pending) {
    const found = await replayProblems(entry)
    if (found.length > 0) problems.set(entry.entry, found)
  }
  const sendable = pending.filter((entry) => !problems.has(entry.entry))
  const total = sendable.reduce((sum, entry) => sum + (replayAmount(entry) ?? 0), 0)
  const what = `${sendable.length} pending request${sendable.length === 1 ? '' : 's'} (${brl(total)} in all)`
  if (!options.yes && sendable.length > 0) {
    if (!ctx.io.prompt) {
      throw new UsageError(`journal retry sends ${what} again, which may move money: confirm with --yes (there is no terminal to ask in)`)
    }
    for (const entry of sendable) {
      const destination = replayDestination(entry)
      ctx.note(`  ${entry.command}  ${brl(replayAmount(entry) ?? 0)}${destination === undefined ? '' : ` to ${destination}`}  key ${entry.idempotencyKey}  (${entry.profile}, ${entry.baseUrl}, ${entry.at})`)
    }
    const {confirm} = await import('../../output/prompt.js')
    if (!(await confirm(ctx.io, `Replay ${what} under their original idempotency keys?`))) {
      ctx.note('Nothing was sent.')
      return report
    }
  }

  const {sendMoney} = await import('../../send/money.js')
  const {stateAfter} = await import('../../journal/journaled.js')
  const sessions = new Map<string, Promise<Session>>()
  // Each profile as it stands now: its own base URL (or the one given by --base-url or
  // GATEWAY_BASE_URL) and its own credentials.
  const sessionFor = (profile: string): Promise<Session> => {
    let session = sessions.get(profile)
    if (!session) {
      session = (async () => {
        const {openSession} = await import('../../api/profile.js')
        return openSession({
          profile,
          baseUrl: ctx.globals.baseUrl,
          timeoutMs: ctx.globals.timeoutMs,
          retries: ctx.globals.retries ?? 3,
          sleep: ctx.sleep,
          trace: ctx.trace,
          env: ctx.env,
          store: await ctx.store(),
        })
      })()
      sessions.set(profile, session)
    }
    return session
  }
  let lastUnknown: unknown
  let firstRefusal: unknown
  const moved: RetryResult[] = []
  const refused: RetryResult[] = []
  try {
    for (const entry of pending) {
      const destination = replayDestination(entry)
      const base = {
        entry: entry.entry,
        command: entry.command,
        idempotencyKey: entry.idempotencyKey,
        amount: replayAmount(entry) ?? null,
        ...(destination === undefined ? {} : {destination}),
        profile: entry.profile,
        baseUrl: entry.baseUrl,
      }
      let result: RetryResult
      try {
        const invalid = problems.get(entry.entry)
        const session = invalid ? undefined : await sessionFor(entry.profile)
        if (invalid || !session) {
          result = {...base, state: 'pending', invalid}
          refused.push(result)
        } else if (session.baseUrl !== entry.baseUrl) {
          result = {...base, state: 'pending', elsewhere: {profileBaseUrl: session.baseUrl}}
          moved.push(result)
        } else {
          const sent = await sendMoney(
            ctx,
            {
              spec: entry,
              one: 'request',
              post: (api) => api.postRecord(entry.request.path, entry.request.body, `replaying ${entry.command} (idempotency key ${entry.idempotencyKey})`),
            },
            {entry, session, by: 'journal retry'},
          )
          result = {...base, state: 'done', id: sent.record.id, status: sent.status, ...(sent.replayed ? {replayed: true} : {})}
        }
      } catch (error) {
        if (error instanceof InterruptedError) throw error
        for (const session of sessions.values()) for (const secret of (await session.catch(() => undefined))?.client.secrets() ?? []) ctx.handled(secret)
        const {errorOutcome} = await import('../../journal/journaled.js')
        const outcome = errorOutcome(entry.entry, 'journal retry', error, await ctx.secrets())
        result = {...base, state: stateAfter(error), error: outcome.error}
        if (result.state === 'pending') lastUnknown = error
        else firstRefusal ??= error
      }
      report.retried.push(result)
      if (result.elsewhere) report.elsewhere += 1
      else if (result.invalid) report.invalid += 1
      else if (result.state === 'done') report.done += 1
      else if (result.state === 'pending') report.pending += 1
      else report.failed += 1
      if (!ctx.globals.json) ctx.out(resultLine(result, brl, ctx.bin))
    }
  } finally {
    for (const session of sessions.values()) {
      const opened = await session.catch(() => undefined)
      for (const secret of opened?.client.secrets() ?? []) ctx.handled(secret)
      await opened?.client.close()
    }
  }
  if (!ctx.globals.json) {
    const left = report.elsewhere > 0 ? `, ${report.elsewhere} left pending (their profile points at another gateway now)` : ''
    const bad = report.invalid > 0 ? `, ${report.invalid} refused and left pending (the recorded body fails its checks)` : ''
    ctx.note(`Replayed ${report.retried.length - report.elsewhere - report.invalid}: ${report.done} done, ${report.failed} failed, ${report.pending} still pending${left}${bad}.`)
  }
  const {ReportedError} = await import('../../cli/errors.js')
  // Still unknown: the gateway could not be reached or kept failing; exit as that failure (6 or 7).
  if (lastUnknown !== undefined) throw new ReportedError(restated(lastUnknown, `${report.pending} of ${report.retried.length} replayed requests are still pending`), {lines: [], json: {...report}})
  if (moved.length > 0) {
    const [first] = moved
    throw new ReportedError(
      new ElsewhereError(
        `${moved.length === 1 ? '1 entry was' : `${moved.length} entries were`} not replayed: sent to a gateway that ${moved.length === 1 ? 'its profile no longer points at' : 'their profiles no longer point at'} (first: key ${first.idempotencyKey}, sent to ${first.baseUrl}, profile "${first.profile}" now at ${first.elsewhere!.profileBaseUrl})`,
        {
          hint: `A profile's credentials go to its own gateway only. To settle such an entry, log its profile in to the gateway it was sent to (\`${ctx.bin} login --profile ${first.profile} --base-url ${first.baseUrl} ...\`) and run \`${ctx.bin} journal retry --profile ${first.profile}\`; or check the record there and close the entry by hand: \`${ctx.bin} journal resolve ${first.idempotencyKey} --as done|failed|not-sent\`.`,
        },
      ),
      {lines: [], json: {...report}},
    )
  }
  if (refused.length > 0) {
    const [first] = refused
    throw new ReportedError(
      new UsageError(
        `${refused.length === 1 ? '1 entry was' : `${refused.length} entries were`} not replayed: the recorded body fails the checks of the command that wrote it (first: key ${first.idempotencyKey}: ${first.invalid!.join('; ')})`,
        {
          hint: `Nothing was sent for ${refused.length === 1 ? 'it' : 'them'}, and ${refused.length === 1 ? 'it stays' : 'they stay'} pending. The journal holds what was sent; a body that fails its checks was changed after it was written. Check the record at the gateway and close the entry by hand: \`${ctx.bin} journal resolve ${first.idempotencyKey} --as done|failed|not-sent\`.`,
        },
      ),
      {lines: [], json: {...report}},
    )
  }
  // Refused by the gateway: nothing moved for those, but the operator should look (exit 5).
  if (firstRefusal !== undefined) throw new ReportedError(restated(firstRefusal, `${report.failed} of ${report.retried.length} replayed requests were refused`), {lines: [], json: {...report}})
  return report
}

/** The same error, its message led by what it means for the whole run. */
function restated(error: unknown, lead: string): unknown {
  if (!(error instanceof Error)) return error
  const Type = error.constructor as new (message: string, options: Record<string, unknown>) => Error
  const fields = error as Error & Record<string, unknown>
  return new Type(`${lead}; the last error: ${error.message}`, {
    status: fields.status,
    body: fields.body,
    messages: fields.messages,
    hint: fields.hint,
    retryable: fields.retryable,
    cause: error.cause,
  })
}

function resultLine(result: RetryResult, brl: (cents: number) => string, bin: string): string {
  const amount = result.amount === null ? 'no valid amount' : brl(result.amount)
  const head = `${result.state.padEnd(7)}  ${result.command}  ${amount}${result.destination === undefined ? '' : ` to ${result.destination}`}  key ${result.idempotencyKey}`
  if (result.invalid) return `${head}  not replayed: the recorded body fails its checks: ${result.invalid.join('; ')}`
  if (result.elsewhere) {
    return `${head}  not replayed: sent to ${result.baseUrl}, but profile "${result.profile}" now points at ${result.elsewhere.profileBaseUrl} (settle it there, or \`${bin} journal resolve ${result.idempotencyKey} --as ...\`)`
  }
  if (result.state === 'done') return `${head}  → ${result.id} ${result.status ?? ''}${result.replayed ? ' (created earlier)' : ' (created now)'}`.trimEnd()
  return `${head}  ${result.error?.message ?? ''}`
}

export default class JournalRetry extends BaseCommand<typeof JournalRetry> {
  static override summary = 'Replay every pending money-moving request under its original idempotency key.'

  static override description = `A pending journal entry is a request whose outcome nobody knows: the process died, or the network failed after it was sent. journal retry sends each again, exactly as first sent and with the same idempotency key, so the gateway answers the record the first request made, or makes it now, once. Each outcome is recorded; a replay that the gateway answers from an earlier request shows the record's current status.

Without --profile (or GATEWAY_PROFILE) it covers every profile's entries; with either, that profile's only. An entry is replayed with its own profile, and only while that profile still points at the gateway the entry was sent to: a profile logged in to another gateway since keeps its credentials for that one, and the entry is left pending and named (exit 3, after the others are settled). Log the profile in to the entry's gateway again, or check the record there and close the entry with \`journal resolve\`.

Entries recorded not-sent (the request provably never left this machine) and failed ones (refused) are not replayed.

What is replayed is the recorded body: the amount and destination shown are read from it, and it passes the offline checks of the command that wrote it (its limits, the PIX key's rules) first. An entry whose body fails them is not sent; it stays pending and is named (exit 2, after the others are settled).

It may move money, so it asks first in a terminal; without one, pass --yes. Exits 0 when every entry is settled, 5 when the gateway refused some, 2 when some recorded bodies fail their checks, 3 when some were left for another gateway (or the login failed, or the config folder cannot be written), and 6 or 7 when some are still pending.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {description: 'From cron, after a failed run', command: '<%= config.bin %> <%= command.id %> --yes --json'},
    {description: 'One profile only', command: '<%= config.bin %> <%= command.id %> --profile prod --yes'},
    {description: 'One request only', command: '<%= config.bin %> <%= command.id %> --key order-4711 --yes'},
  ]

  static override flags = {
    yes: Flags.boolean({char: 'y', description: 'Replay without asking (needed without a terminal).'}),
    key: Flags.string({description: 'Only the pending entry with this idempotency key. Repeatable.', multiple: true}),
  }

  async run(): Promise<JournalRetryReport | undefined> {
    const result = await journalRetry({yes: this.flags.yes, keys: this.flags.key, profile: explicitProfile(this.ctx)}, this.ctx)
    return this.ctx.globals.json ? result : undefined
  }
}

/** The profile the operator named (--profile or GATEWAY_PROFILE), or none: the flag's default is not a choice. */
export function explicitProfile(ctx: CommandContext): string | undefined {
  return ctx.globals.profileChosen ? ctx.globals.profile : undefined
}
