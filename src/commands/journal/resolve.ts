import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'
import {UsageError} from '../../cli/errors.js'
import type {EntryState} from '../../journal/journal.js'
import {explicitProfile} from './retry.js'

/** The longest note kept with an entry resolved by hand, and what it may hold. */
const NOTE_MAX = 200
const NOTE_TEXT = /^[\p{L}\p{M}\p{N}\p{P}\p{Sm}\p{Sc} ]+$/u

/** The states an operator may close an entry with. */
export const RESOLVED_STATES = ['done', 'failed', 'not-sent'] as const satisfies readonly EntryState[]

export interface JournalResolveOptions {
  key: string
  /** Required: asked for after the key is found, so a wrong key is said first. */
  as?: (typeof RESOLVED_STATES)[number]
  /** The record's id, when the operator found it (done). */
  id?: string
  note?: string
  /** Only this profile's entry (--profile or GATEWAY_PROFILE). */
  profile?: string
}

/**
 * `journal resolve`: closes a pending entry by hand, after the operator found out what became of
 * it (the record on the gateway's side, or proof it never arrived). It sends nothing: it appends
 * an outcome, recorded as `journal resolve`, so the entry is no longer replayed.
 */
export async function journalResolve(options: JournalResolveOptions, ctx: CommandContext): Promise<Record<string, unknown>> {
  const {printable} = await import('../../cli/errors.js')
  const {UUID_PATTERN} = await import('../../schemas/enums.js')
  if (options.id !== undefined && options.as !== undefined && options.as !== 'done') throw new UsageError(`--id goes with --as done: a ${options.as} request made no record`)
  if (options.id !== undefined && !UUID_PATTERN.test(options.id)) throw new UsageError(`--id must be the record's id, a UUID; got "${printable(options.id)}"`)
  if (options.note !== undefined && (options.note.trim().length === 0 || options.note.length > NOTE_MAX || !NOTE_TEXT.test(options.note))) {
    throw new UsageError(`--note must be 1 to ${NOTE_MAX} characters of letters, digits, punctuation and spaces`)
  }
  const key = printable(options.key)
  const {writableJournal} = await import('../../journal/journaled.js')
  const journal = await writableJournal(ctx, 'journal resolve')
  const matching = (await journal.entries()).filter(
    (entry) => entry.idempotencyKey === options.key && (options.profile === undefined || entry.profile === options.profile),
  )
  if (matching.length === 0) {
    throw new UsageError(`KEY ${key}: no such idempotency key in the journal${options.profile === undefined ? '' : ` of profile "${options.profile}"`}`)
  }
  const pending = matching.filter((entry) => entry.state === 'pending')
  if (pending.length === 0) {
    const [last] = matching.slice(-1)
    throw new UsageError(`KEY ${key}: the entry is not pending (it is ${last.state}): only a pending entry is resolved by hand`)
  }
  if (pending.length > 1) {
    const profiles = [...new Set(pending.map((entry) => entry.profile))]
    throw new UsageError(`KEY ${key}: ${pending.length} pending entries have this key (profiles ${profiles.join(', ')}): name one with --profile`)
  }
  const [entry] = pending
  if (options.as === undefined) throw new UsageError(`--as is required: the state the request ended in, ${RESOLVED_STATES.join(', ')}`)
  const outcome = {
    type: 'outcome' as const,
    entry: entry.entry,
    at: new Date(ctx.now()).toISOString(),
    state: options.as,
    by: 'journal resolve',
    ...(options.id === undefined ? {} : {id: options.id}),
    ...(options.note === undefined ? {} : {note: options.note}),
  }
  await journal.append(outcome, {durable: true})
  const result = {entry: entry.entry, idempotencyKey: entry.idempotencyKey, command: entry.command, amount: entry.amount, profile: entry.profile, baseUrl: entry.baseUrl, state: options.as, ...(options.id === undefined ? {} : {id: options.id}), ...(options.note === undefined ? {} : {note: options.note})}
  if (!ctx.globals.json) {
    const {brl} = await import('../../render/money.js')
    ctx.note(`Resolved by hand as ${options.as}: ${entry.command} ${brl(entry.amount)}, key ${printable(entry.idempotencyKey)} (profile ${entry.profile}, ${entry.baseUrl}). \`${ctx.bin} journal retry\` will not replay it.`)
  }
  return result
}

export default class JournalResolve extends BaseCommand<typeof JournalResolve> {
  static override summary = 'Close a pending journal entry by hand: done, failed or not-sent.'

  static override description = `A pending entry is one whose outcome nobody knows, which \`journal retry\` replays. When you have found out what became of it yourself (the record exists on the gateway, the gateway has no such request, or it never left this machine), close it with the state it ended in. Nothing is sent: an outcome is written to the journal, marked as resolved by hand, and the entry is no longer replayed.

--as done: the gateway made the record (give its --id when you know it). --as failed: the gateway refused it; no money moved. --as not-sent: it never reached the gateway.

Only a pending entry can be resolved. When entries of several profiles share the key, name one with --profile.`

  static override examples = [
    {description: 'The withdrawal is on the gateway: close the entry as done', command: '<%= config.bin %> <%= command.id %> payout-4711 --as done --id 0d3c6a4e-5f7b-4d2a-9c1e-8b7a6f5e4d3c'},
    {description: 'The gateway was never reached', command: "<%= config.bin %> <%= command.id %> order-4711 --as not-sent --note 'host was decommissioned'"},
    {description: "One profile's entry", command: '<%= config.bin %> <%= command.id %> order-4711 --as failed --profile prod'},
  ]

  static override args = {
    key: Args.string({description: 'The idempotency key of the pending entry.', required: true}),
  }

  static override flags = {
    as: Flags.string({description: 'The state the request ended in (required).', options: [...RESOLVED_STATES]}),
    id: Flags.string({description: 'With --as done: the id of the record the gateway made (a UUID).'}),
    note: Flags.string({description: `Why, in a few words (at most ${NOTE_MAX} characters): kept in the journal.`}),
  }

  async run(): Promise<Record<string, unknown> | undefined> {
    const result = await journalResolve(
      {key: this.args.key, as: this.flags.as as JournalResolveOptions['as'], id: this.flags.id, note: this.flags.note, profile: explicitProfile(this.ctx)},
      this.ctx,
    )
    return this.ctx.globals.json ? result : undefined
  }
}
