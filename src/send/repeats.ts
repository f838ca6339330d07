import type {EntryState, Journal, JournalRecord} from '../journal/journal.js'

/**
 * The repeat guard: the same money-moving request sent again under another idempotency key would
 * move the money twice. A request with an external code whose fields (all but the key) equal a
 * request this config folder's journal shows was sent to the same gateway and profile, under
 * another key and not refused, is most likely the same request again: a command run twice, or an
 * edited batch file run again. Requests without an external code are not compared (the same amount
 * to the same key may well be meant again).
 */

/** What the journal knows of the earlier request. */
export interface EarlierRequest {
  idempotencyKey: string
  at: string
  state: string
  externalCode: string
}

export interface Repeat<R> {
  /** The request, as given. */
  request: R
  earlier: EarlierRequest
}

/** JSON with object keys sorted at every depth: two bodies that mean the same compare equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>
    const keys = Object.keys(object)
      .filter((key) => object[key] !== undefined)
      .sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(object[key])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** The command a journal entry belongs to, whether sent singly or in a batch: "withdraw". */
const family = (command: string) => command.replace(/ --batch$/, '')

/** A request of the journal that carries an external code, as the guard compares it. */
interface Sent {
  /** family, profile, gateway and the canonical body without its key: equal for the same request. */
  match: string
  earlier: Omit<EarlierRequest, 'state'>
  state: EntryState
  /** Whether a known outcome was recorded (a later unknown one does not undo it). */
  known: boolean
}

/**
 * What the guard knows of one journal file, read incrementally: a batch checks each row under the
 * journal's lock just before it is written, and reads only the lines appended since its last look
 * (by this process or another), not the whole journal again.
 */
interface SentIndex {
  at?: {ino: number; offset: number}
  entries: Map<string, Sent>
  byMatch: Map<string, Set<string>>
}

const indexes = new Map<string, SentIndex>()

const matchOf = (command: string, profile: string, baseUrl: string, body: Record<string, unknown>): string | undefined => {
  const {idempotencyKey: _key, ...rest} = body
  return typeof rest.externalCode === 'string' ? JSON.stringify([family(command), profile, baseUrl, canonical(rest)]) : undefined
}

function apply(index: SentIndex, record: JournalRecord): void {
  if (record.type === 'request') {
    if (index.entries.has(record.entry) || !record.request?.body) return
    const match = matchOf(record.command, record.profile, record.baseUrl, record.request.body)
    if (match === undefined) return
    const sent: Sent = {
      match,
      earlier: {idempotencyKey: record.idempotencyKey, at: record.at, externalCode: record.request.body.externalCode as string},
      state: 'pending',
      known: false,
    }
    index.entries.set(record.entry, sent)
    let same = index.byMatch.get(match)
    if (!same) index.byMatch.set(match, (same = new Set()))
    same.add(record.entry)
    // Outcomes read before their request (a rotated file keeps both, in order; this is for safety).
    return
  }
  const sent = index.entries.get(record.entry)
  if (!sent) return
  if (sent.known && record.state === 'pending') return
  sent.state = record.state
  sent.known = record.state !== 'pending'
}

/** The index of the journal, brought up to date with what was appended since it was last read. */
async function currentIndex(journal: Journal): Promise<SentIndex> {
  let index = indexes.get(journal.path)
  const read = await journal.readFrom(index?.at)
  if (!index || read.reset) {
    index = {entries: new Map(), byMatch: new Map()}
    indexes.set(journal.path, index)
  }
  for (const record of read.records) apply(index, record)
  index.at = {ino: read.ino, offset: read.offset}
  return index
}

/**
 * The requests among `requests` that repeat one the journal shows was sent; see the module's
 * comment. Inside the journal's lock, the answer holds until the lock is released: with the entry
 * written in the same hold, two processes can never both find no repeat and both send.
 */
export async function findRepeats<R extends {body: Record<string, unknown>}>(
  journal: Journal,
  target: {profile: string; baseUrl: string},
  command: string,
  requests: readonly R[],
): Promise<Array<Repeat<R>>> {
  // Only a request with an external code is compared: when none has one, the journal is not read
  // (a charge without a code, a cron job's usual one, would otherwise read up to a whole 1 MiB file).
  const compared = requests.flatMap((request) => {
    const match = matchOf(command, target.profile, target.baseUrl, request.body)
    return match === undefined ? [] : [{request, match}]
  })
  if (compared.length === 0) return []
  const index = await currentIndex(journal)
  if (index.byMatch.size === 0) return []
  const repeats: Array<Repeat<R>> = []
  for (const {request, match} of compared) {
    // The latest such request that was not refused is the one compared (and named).
    let earlier: EarlierRequest | undefined
    for (const id of index.byMatch.get(match) ?? []) {
      const sent = index.entries.get(id)!
      if (sent.state !== 'failed' && sent.state !== 'not-sent') earlier = {...sent.earlier, state: sent.state}
    }
    if (earlier && earlier.idempotencyKey !== request.body.idempotencyKey) repeats.push({request, earlier})
  }
  return repeats
}

/** "external code payout-7: the same withdrawal was sent at … under the key … (done in the journal); this one's key is …". */
export function repeatLine(one: string, earlier: EarlierRequest, key: string, field: string): string {
  return `${field} ${earlier.externalCode}: the same ${one} was sent at ${earlier.at} under the key ${earlier.idempotencyKey} (${earlier.state} in the journal); this one's key is ${key}`
}
