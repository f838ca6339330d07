import type {Journal} from '../journal/journal.js'

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

/** The requests among `requests` that repeat one the journal shows was sent; see the module's comment. */
export async function findRepeats<R extends {body: Record<string, unknown>}>(
  journal: Journal,
  target: {profile: string; baseUrl: string},
  command: string,
  requests: readonly R[],
): Promise<Array<Repeat<R>>> {
  const sent = new Map<string, EarlierRequest>()
  for (const entry of await journal.entries()) {
    if (family(entry.command) !== family(command) || entry.profile !== target.profile || entry.baseUrl !== target.baseUrl) continue
    if (entry.state === 'failed' || entry.state === 'not-sent') continue
    const {idempotencyKey: _key, ...rest} = entry.request.body
    if (typeof rest.externalCode === 'string') {
      sent.set(canonical(rest), {idempotencyKey: entry.idempotencyKey, at: entry.at, state: entry.state, externalCode: rest.externalCode})
    }
  }
  if (sent.size === 0) return []
  const repeats: Array<Repeat<R>> = []
  for (const request of requests) {
    const {idempotencyKey, ...rest} = request.body
    if (typeof rest.externalCode !== 'string') continue
    const earlier = sent.get(canonical(rest))
    if (earlier && earlier.idempotencyKey !== idempotencyKey) repeats.push({request, earlier})
  }
  return repeats
}

/** "external code payout-7: the same withdrawal was sent at … under the key … (done in the journal); this one's key is …". */
export function repeatLine(one: string, earlier: EarlierRequest, key: string, field: string): string {
  return `${field} ${earlier.externalCode}: the same ${one} was sent at ${earlier.at} under the key ${earlier.idempotencyKey} (${earlier.state} in the journal); this one's key is ${key}`
}
