import {GatewayError} from '../api/errors.js'
import {scrub} from '../api/redact.js'
import type {CommandContext} from '../cli/context.js'
import {Journal, DEFAULT_MAX_BYTES, maskKey, type EntryState, type JournalSpec, type OutcomeRecord, type ReplayRequest, type RequestRecord} from './journal.js'

export type {JournalSpec}

/** What the answer says: the record's id and status, and whether it replays an earlier request. */
export interface Settled {
  id: string
  status?: string
  replayed?: boolean
}

/** The journal of the context's config folder. GATEWAY_JOURNAL_MAX_BYTES moves the rotation size. */
export function journalOf(ctx: CommandContext): Journal {
  const configured = Number(ctx.env.GATEWAY_JOURNAL_MAX_BYTES)
  return new Journal(ctx.configDir, {maxBytes: Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_MAX_BYTES})
}

/**
 * What an error says about a request's fate: `failed` when the gateway refused it (nothing moved),
 * `pending` when the outcome is unknown (a timeout, a reset, a 5xx or 429 after retries).
 */
export function stateAfter(error: unknown): EntryState {
  if (error instanceof GatewayError && error.status !== undefined && !error.retryable) return 'failed'
  return 'pending'
}

/** The outcome record of an error, with secrets blanked out of its message. */
export function errorOutcome(entry: string, by: string, error: unknown, secrets: readonly string[]): OutcomeRecord {
  return {
    type: 'outcome',
    entry,
    at: new Date().toISOString(),
    state: stateAfter(error),
    by,
    error: {
      code: error instanceof GatewayError ? error.code : 'UNEXPECTED',
      message: scrub(error instanceof Error ? error.message : String(error), secrets),
      ...(error instanceof GatewayError && error.status !== undefined ? {status: error.status} : {}),
    },
  }
}

/**
 * Sends a money-moving request with a journal entry around it: the entry is written and flushed
 * before the request leaves, and its outcome appended after the answer. A process that dies in
 * between leaves the entry pending, for `gateway journal retry` to settle under the same key.
 * Nothing is sent when the entry cannot be written. The login is checked first, so a request that
 * could never be authenticated leaves no entry.
 */
export async function journaled<T>(ctx: CommandContext, spec: JournalSpec, send: () => Promise<T>, settled: (result: T) => Settled): Promise<T> {
  const session = await ctx.session()
  await session.client.accessToken()
  const journal = journalOf(ctx)
  const secrets = await ctx.secrets()
  const entry = Journal.newEntryId()
  const record: RequestRecord = {
    type: 'request',
    entry,
    at: new Date(ctx.now()).toISOString(),
    profile: session.profile,
    baseUrl: session.baseUrl,
    command: spec.command,
    idempotencyKey: spec.idempotencyKey,
    amount: spec.amount,
    ...(spec.externalCode === undefined ? {} : {externalCode: spec.externalCode}),
    ...(spec.destination === undefined ? {} : {destination: maskKey(spec.destination)}),
    request: spec.request,
    ...(spec.lookup === undefined ? {} : {lookup: spec.lookup}),
  }
  if (secrets.some((secret) => secret.length >= 6 && JSON.stringify(record).includes(secret))) {
    const {UsageError} = await import('../cli/errors.js')
    throw new UsageError('the request holds a secret of this login (the client secret or a token): it was not sent')
  }
  try {
    await journal.append(record, {durable: true})
  } catch (error) {
    throw new Error(`cannot write the journal ${journal.path}, so nothing was sent: ${(error as Error).message}`)
  }
  const by = spec.command
  let result: T
  try {
    result = await send()
  } catch (error) {
    await appendOutcome(ctx, journal, errorOutcome(entry, by, error, secrets))
    throw error
  }
  const {id, status, replayed} = settled(result)
  await appendOutcome(ctx, journal, {
    type: 'outcome',
    entry,
    at: new Date(ctx.now()).toISOString(),
    state: 'done',
    by,
    id,
    ...(status === undefined ? {} : {status}),
    ...(replayed ? {replayed: true} : {}),
  })
  return result
}

/** Appends an outcome; failing that, says so: the entry stays pending, and a retry settles it harmlessly. */
async function appendOutcome(ctx: CommandContext, journal: Journal, outcome: OutcomeRecord): Promise<void> {
  try {
    await journal.append(outcome)
  } catch (error) {
    ctx.note(`Warning: the outcome could not be written to the journal (${(error as Error).message}); the entry stays pending until \`${ctx.bin} journal retry\` settles it.`)
  }
}
