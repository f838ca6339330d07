import type {GatewayApi, Idempotent} from '../api/gateway.js'
import type {Session} from '../api/profile.js'
import type {CommandContext} from '../cli/context.js'
import {InterruptedError, UsageError} from '../cli/errors.js'
import {Journal, maskKey, type JournalEntry, type JournalSpec, type OutcomeRecord, type RequestRecord} from '../journal/journal.js'
import {errorOutcome, writableJournal} from '../journal/journaled.js'
import {findRepeats, repeatLine} from './repeats.js'

/**
 * The one way a request that moves money (a withdrawal) or asks for it (a charge) is sent, by the
 * single commands, by --batch and by `journal retry` alike:
 *   1. the login is checked (a request that could never be authenticated leaves no trace);
 *   2. the repeat guard: a payout whose external code, or a charge whose external code and fields,
 *      the journal shows already sent to this gateway and client id under another key is refused
 *      (exit 2), unless repeats are allowed;
 *   3. the caller's last word (a confirmation, the key shown): nothing has been written yet;
 *   4. the journal entry, on disk before anything leaves, written under the journal's lock in one
 *      step with a last look of the repeat guard, so that of the same request sent by several
 *      processes at once only the first is written and sent (the lock is never held while a
 *      request is out);
 *   5. the request, retried under its idempotency key by the client;
 *   6. the answer read: a 2xx without the record is not success (the entry stays pending); a
 *      replayed answer's record is looked up for its current status;
 *   7. the outcome, in the journal: done, failed (refused: nothing moved), not-sent (provably never
 *      left) or pending (unknown).
 */

/** The record every create answers: an id, and usually a status. */
export interface CreatedRecord {
  id: string
  status?: string
}

export interface MoneySend<T extends CreatedRecord> {
  /** What the journal records, and `journal retry` replays. */
  spec: JournalSpec
  /** Sends it once through the gateway's typed endpoint (the client retries under the key). */
  post: (api: GatewayApi) => Promise<Idempotent<T>>
  /** The record, one: "charge", "withdrawal": for messages. */
  one: string
}

export interface SendOptions {
  /** Send even when the journal shows the same request sent under another key (--allow-repeats). */
  allowRepeats?: boolean
  /**
   * The caller has already run the repeat guard over every request it sends (a batch does, up
   * front): only its check under the journal's lock, with the entry's write, remains.
   */
  guarded?: boolean
  /** Called after every check and before the journal entry: a confirmation, the key shown. */
  beforeSend?: () => Promise<void> | void
  /**
   * On SIGINT or SIGTERM the request is abandoned at once and its entry left pending; the line that
   * says so is the caller's when false (a batch says it once, for all its rows out).
   */
  interruptNote?: boolean
  /** Wraps the sending itself (a spinner). */
  around?: <R>(work: () => Promise<R>) => Promise<R>
  /** Another session than the context's (a journal entry's own profile). */
  session?: Session
  /** Replay this journal entry instead of writing a new one (`journal retry`). */
  entry?: JournalEntry
  /** What records the outcome: the command, or `journal retry`. */
  by?: string
}

export interface MoneySent<T extends CreatedRecord> {
  record: T
  /** The gateway answered with the record an earlier request under the same key made. */
  replayed: boolean
  /** The record's status now: looked up after a replay (when the request has a lookup), else as answered. */
  status?: string
}

/** Sends one money-moving request; see the module's comment. */
export async function sendMoney<T extends CreatedRecord>(ctx: CommandContext, send: MoneySend<T>, options: SendOptions = {}): Promise<MoneySent<T>> {
  const {spec} = send
  // The journal first: a request that could not be journalled is not sent, nor its login asked for.
  const journal = await writableJournal(ctx, spec.command)
  const session = options.session ?? (await ctx.session())
  await session.client.accessToken()
  // The repeat guard, first before the caller's last word (nothing is asked about a request that
  // would be refused), then again under the journal's lock with the entry's write.
  const guard = !options.entry && !options.allowRepeats ? send.one : undefined
  if (guard && !options.guarded) await refuseRepeat(journal, session, spec, guard)
  await options.beforeSend?.()
  const secrets = [...(await ctx.secrets()), ...session.client.secrets()]
  const entry = options.entry?.entry ?? (await writeRequest(ctx, journal, session, spec, secrets, guard))
  const by = options.by ?? spec.command
  const {GatewayApi} = await import('../api/gateway.js')
  const api = new GatewayApi(session.client)
  const around = options.around ?? ((work) => work())
  let answer: Idempotent<T>
  let answered = false
  let signalled: NodeJS.Signals | undefined
  // Out at the gateway until its record is in the journal and in ctx.made (below): a failure of the
  // output meanwhile says how many are out (src/cli/outcome.ts, outputFailureLine).
  ctx.sending++
  try {
    // A signal while the request is out: it is abandoned at once, its fate unknown, and the operator
    // is told how to settle it.
    const never = new Promise<never>(() => {})
    const interrupted = ctx.interrupted().then(async (signal): Promise<never> => {
      if (answered) return never
      signalled = signal
      await session.client.destroy()
      throw new InterruptedError(signal)
    })
    answer = await Promise.race([around(() => send.post(api)), interrupted])
    answered = true
  } catch (error) {
    answered = true
    ctx.sending--
    if (signalled) {
      // No outcome is written: the entry stays pending, as its fate is unknown.
      if (options.interruptNote !== false) ctx.note(
        `Interrupted (${signalled}) while sending the ${send.one}, idempotency key ${spec.idempotencyKey}: it may or may not have reached the gateway, and is pending in the journal. Settle it with \`${ctx.bin} journal retry\`, or run the same command again with --idempotency-key ${spec.idempotencyKey}.`,
      )
      throw new InterruptedError(signalled)
    }
    await appendOutcome(ctx, journal, errorOutcome(entry, by, error, [...secrets, ...session.client.secrets()]))
    throw error
  }
  let status = answer.body.status
  if (answer.replayed && spec.lookup) {
    // The answer is the first request's record, as it was then: its status now is in the lookup.
    try {
      const {body: current} = await session.client.request<Record<string, unknown>>('GET', spec.lookup.replace('{id}', encodeURIComponent(answer.body.id)), {
        context: `looking up ${answer.body.id}`,
      })
      if (typeof current?.status === 'string') status = current.status
    } catch (error) {
      ctx.note(`Warning: the current status of ${answer.body.id} could not be read (${(error as Error).message}); the status shown is the one first answered.`)
    }
  }
  const done = (settled: string): OutcomeRecord => ({
    type: 'outcome',
    entry: settled,
    at: new Date(ctx.now()).toISOString(),
    state: 'done',
    by,
    id: answer.body.id,
    ...(status === undefined ? {} : {status}),
    ...(answer.replayed ? {replayed: true} : {}),
  })
  try {
    await appendOutcome(ctx, journal, done(entry))
    ctx.made.push({one: send.one, id: answer.body.id, idempotencyKey: spec.idempotencyKey})
  } finally {
    ctx.sending--
  }
  if (answer.replayed) {
    // The gateway answered an earlier request's record: an earlier entry of this key, to this
    // gateway, left pending by a failure, is settled by the same answer.
    const earlier = (await journal.entries().catch(() => [])).filter(
      (other) => other.entry !== entry && other.state === 'pending' && other.idempotencyKey === spec.idempotencyKey && other.profile === session.profile && other.baseUrl === session.baseUrl,
    )
    for (const other of earlier) await appendOutcome(ctx, journal, done(other.entry))
  }
  return {record: answer.body, replayed: answer.replayed, status}
}

/**
 * The request record, on disk before the request leaves: a process that dies after this leaves the
 * entry pending, for `journal retry` to settle under the same key. Nothing is sent when it cannot
 * be written, nor when the request would carry a secret of the login.
 */
async function writeRequest(
  ctx: CommandContext,
  journal: Journal,
  session: Session,
  spec: JournalSpec,
  secrets: readonly string[],
  guard: string | undefined,
): Promise<string> {
  const entry = Journal.newEntryId()
  const record: RequestRecord = {
    type: 'request',
    entry,
    at: new Date(ctx.now()).toISOString(),
    profile: session.profile,
    baseUrl: session.baseUrl,
    ...(session.clientId === undefined ? {} : {clientId: session.clientId}),
    command: spec.command,
    idempotencyKey: spec.idempotencyKey,
    amount: spec.amount,
    ...(spec.externalCode === undefined ? {} : {externalCode: spec.externalCode}),
    ...(spec.destination === undefined ? {} : {destination: maskKey(spec.destination)}),
    request: spec.request,
    ...(spec.lookup === undefined ? {} : {lookup: spec.lookup}),
  }
  if (secrets.some((secret) => secret.length >= 6 && JSON.stringify(record).includes(secret))) {
    throw new UsageError('the request holds a secret of this login (the client secret or a token): it was not sent')
  }
  let written = false
  try {
    // One step under the journal's lock: the guard's look and the entry. Of several processes
    // sending the same request at once, the first writes its entry, and the others see it.
    await journal.locked(async () => {
      if (guard) await refuseRepeat(journal, session, spec, guard)
      written = true
      await journal.appendHeld(record, {durable: true})
    })
  } catch (error) {
    if (!written) throw error
    // The journal is as it was (a line that could not be written whole is taken back): exit 1, the disk is not the gateway.
    throw new Error(`cannot write the journal ${journal.path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}), so nothing was sent${(error as NodeJS.ErrnoException).code === 'ENOSPC' ? ': the disk is full' : ''}`)
  }
  return entry
}

/** Refuses (exit 2) a request the journal shows was sent before under another key; see src/send/repeats.ts. */
async function refuseRepeat(journal: Journal, session: Session, spec: JournalSpec, one: string): Promise<void> {
  const [repeat] = await findRepeats(journal, {profile: session.profile, baseUrl: session.baseUrl, clientId: session.clientId}, spec.command, [{body: spec.request.body}])
  if (!repeat) return
  throw new UsageError(repeatLine(one, repeat.earlier, spec.idempotencyKey, 'external code'), {
    hint: `Nothing was sent. To finish or check that ${one}, send it again with --idempotency-key ${repeat.earlier.idempotencyKey} (the gateway answers the record it made, and moves nothing twice); if a second one is meant, add --allow-repeats.`,
    body: {earlier: repeat.earlier},
  })
}

/** Appends an outcome; failing that, says so: the entry stays pending, and a retry settles it harmlessly. */
async function appendOutcome(ctx: CommandContext, journal: Journal, outcome: OutcomeRecord): Promise<void> {
  try {
    await journal.append(outcome)
  } catch (error) {
    ctx.note(`Warning: the outcome could not be written to the journal (${(error as Error).message}); the entry stays pending until \`${ctx.bin} journal retry\` settles it.`)
  }
}
