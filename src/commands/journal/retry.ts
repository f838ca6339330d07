import {Flags} from '@oclif/core'

import type {Session} from '../../api/profile.js'
import {BaseCommand} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'
import {UsageError} from '../../cli/errors.js'
import type {EntryState, JournalEntry} from '../../journal/journal.js'

export interface JournalRetryOptions {
  /** Replay without asking (needed when there is no terminal to ask in). */
  yes?: boolean
  /** Only the pending entries with these idempotency keys. */
  keys?: string[]
}

/** What became of one replayed entry. */
export interface RetryResult {
  entry: string
  command: string
  idempotencyKey: string
  amount: number
  profile: string
  state: EntryState
  id?: string
  status?: string
  replayed?: boolean
  error?: {code: string; message: string; status?: number}
}

export interface JournalRetryReport {
  retried: RetryResult[]
  done: number
  failed: number
  pending: number
}

/**
 * `journal retry`: replays every pending entry of the journal, each with its original profile, base
 * URL, idempotency key and body, so the gateway answers the record the first request made, or makes
 * it once now; records each outcome. It moves money: it asks first in a terminal, and needs --yes
 * without one.
 */
export async function journalRetry(options: JournalRetryOptions, ctx: CommandContext): Promise<JournalRetryReport> {
  const {journalOf, errorOutcome} = await import('../../journal/journaled.js')
  const journal = journalOf(ctx)
  const wanted = options.keys && options.keys.length > 0 ? new Set(options.keys) : undefined
  const all = await journal.entries()
  if (wanted) {
    const known = new Set(all.map((entry) => entry.idempotencyKey))
    const unknown = [...wanted].filter((key) => !known.has(key))
    if (unknown.length > 0) throw new UsageError(`--key ${unknown.join(', ')}: no such idempotency key in the journal`)
  }
  const pending = all.filter((entry) => entry.state === 'pending' && (!wanted || wanted.has(entry.idempotencyKey)))
  const report: JournalRetryReport = {retried: [], done: 0, failed: 0, pending: 0}
  if (pending.length === 0) {
    if (!ctx.globals.json) ctx.note('Nothing is pending: every request in the journal has an outcome.')
    return report
  }
  const {brl} = await import('../../render/money.js')
  const total = pending.reduce((sum, entry) => sum + entry.amount, 0)
  const what = `${pending.length} pending request${pending.length === 1 ? '' : 's'} (${brl(total)} in all)`
  if (!options.yes) {
    if (!ctx.io.prompt) {
      throw new UsageError(`journal retry sends ${what} again, which may move money: confirm with --yes (there is no terminal to ask in)`)
    }
    for (const entry of pending) ctx.note(`  ${entry.command}  ${brl(entry.amount)}  key ${entry.idempotencyKey}  (${entry.profile}, ${entry.at})`)
    const {confirm} = await import('../../output/prompt.js')
    if (!(await confirm(ctx.io, `Replay ${what} under their original idempotency keys?`))) {
      ctx.note('Nothing was sent.')
      return report
    }
  }

  const {replayEntry} = await import('../../journal/replay.js')
  const sessions = new Map<string, Promise<Session>>()
  const sessionFor = (entry: JournalEntry): Promise<Session> => {
    const id = `${entry.profile}\n${entry.baseUrl}`
    let session = sessions.get(id)
    if (!session) {
      session = (async () => {
        const {openSession} = await import('../../api/profile.js')
        return openSession({
          profile: entry.profile,
          baseUrl: entry.baseUrl,
          timeoutMs: ctx.globals.timeoutMs,
          retries: ctx.globals.retries ?? 3,
          sleep: ctx.sleep,
          trace: ctx.trace,
          env: ctx.env,
          store: await ctx.store(),
        })
      })()
      sessions.set(id, session)
    }
    return session
  }
  let lastUnknown: unknown
  let firstRefusal: unknown
  try {
    for (const entry of pending) {
      const base = {entry: entry.entry, command: entry.command, idempotencyKey: entry.idempotencyKey, amount: entry.amount, profile: entry.profile}
      let result: RetryResult
      try {
        const session = await sessionFor(entry)
        const answer = await replayEntry(entry, session.client)
        await journal.append({
          type: 'outcome',
          entry: entry.entry,
          at: new Date(ctx.now()).toISOString(),
          state: 'done',
          by: 'journal retry',
          id: answer.id,
          ...(answer.status === undefined ? {} : {status: answer.status}),
          ...(answer.replayed ? {replayed: true} : {}),
        })
        result = {...base, state: 'done', id: answer.id, status: answer.status, ...(answer.replayed ? {replayed: true} : {})}
      } catch (error) {
        for (const session of sessions.values()) for (const secret of (await session.catch(() => undefined))?.client.secrets() ?? []) ctx.handled(secret)
        const outcome = errorOutcome(entry.entry, 'journal retry', error, await ctx.secrets())
        await journal.append(outcome)
        result = {...base, state: outcome.state, error: outcome.error}
        if (outcome.state === 'pending') lastUnknown = error
        else firstRefusal ??= error
      }
      report.retried.push(result)
      report[result.state] += 1
      if (!ctx.globals.json) ctx.out(resultLine(result, brl))
    }
  } finally {
    for (const session of sessions.values()) {
      const opened = await session.catch(() => undefined)
      for (const secret of opened?.client.secrets() ?? []) ctx.handled(secret)
      await opened?.client.close()
    }
  }
  if (!ctx.globals.json) ctx.note(`Replayed ${report.retried.length}: ${report.done} done, ${report.failed} failed, ${report.pending} still pending.`)
  const {ReportedError} = await import('../../cli/errors.js')
  // Still unknown: the gateway could not be reached or kept failing; exit as that failure (6 or 7).
  if (lastUnknown !== undefined) throw new ReportedError(restated(lastUnknown, `${report.pending} of ${report.retried.length} replayed requests are still pending`), {lines: [], json: {...report}})
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

function resultLine(result: RetryResult, brl: (cents: number) => string): string {
  const head = `${result.state.padEnd(7)}  ${result.command}  ${brl(result.amount)}  key ${result.idempotencyKey}`
  if (result.state === 'done') return `${head}  → ${result.id} ${result.status ?? ''}${result.replayed ? ' (created earlier)' : ' (created now)'}`.trimEnd()
  return `${head}  ${result.error?.message ?? ''}`
}

export default class JournalRetry extends BaseCommand<typeof JournalRetry> {
  static override summary = 'Replay every pending money-moving request under its original idempotency key.'

  static override description = `A pending journal entry is a request whose outcome nobody knows: the process died, or the network failed after it was sent. journal retry sends each again, exactly as first sent and with the same idempotency key, profile and base URL, so the gateway answers the record the first request made, or makes it now, once. Each outcome is recorded; a replay that the gateway answers from an earlier request shows the record's current status.

It may move money, so it asks first in a terminal; without one, pass --yes. Exits 0 when every entry is settled, 5 when the gateway refused some, and 6 or 7 when some are still pending.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {description: 'From cron, after a failed run', command: '<%= config.bin %> <%= command.id %> --yes --json'},
    {description: 'One request only', command: '<%= config.bin %> <%= command.id %> --key order-4711 --yes'},
  ]

  static override flags = {
    yes: Flags.boolean({char: 'y', description: 'Replay without asking (needed without a terminal).'}),
    key: Flags.string({description: 'Only the pending entry with this idempotency key. Repeatable.', multiple: true}),
  }

  async run(): Promise<JournalRetryReport | undefined> {
    const result = await journalRetry({yes: this.flags.yes, keys: this.flags.key}, this.ctx)
    return this.ctx.globals.json ? result : undefined
  }
}
