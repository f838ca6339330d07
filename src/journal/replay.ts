import {isReplay, type GatewayClient} from '../api/client.js'
import {maskKey, type JournalEntry} from './journal.js'

/** What the gateway answered to a replayed entry. */
export interface ReplayAnswer {
  id: string
  /** The record's current status: looked up when the answer was a replay of the first request. */
  status?: string
  /** The gateway answered with the record the first request made. */
  replayed: boolean
}

/**
 * Sends a journal entry's request again, exactly as it was first sent and under its original
 * idempotency key, so the gateway answers the record the first request made, or makes it once now.
 * After a replayed answer, the record's lookup gives its current status (the answer's is the
 * first one's); a failed lookup leaves the answer's status.
 */
export async function replayEntry(entry: JournalEntry, client: GatewayClient): Promise<ReplayAnswer> {
  const {method, path, body} = entry.request
  const {body: answer, headers} = await client.request<Record<string, unknown>>(method, path, {
    json: body,
    idempotencyKey: entry.idempotencyKey,
    context: `replaying ${entry.command} (idempotency key ${entry.idempotencyKey})`,
  })
  const id = typeof answer?.id === 'string' ? answer.id : ''
  let status = typeof answer?.status === 'string' ? answer.status : undefined
  const replayed = isReplay(headers)
  if (replayed && id && entry.lookup) {
    try {
      const {body: current} = await client.request<Record<string, unknown>>('GET', entry.lookup.replace('{id}', encodeURIComponent(id)), {
        context: `looking up ${id}`,
      })
      if (typeof current?.status === 'string') status = current.status
    } catch {
      // The record exists: its status as first answered will do.
    }
  }
  return {id, status, replayed}
}

/** An entry as shown to people and programs: the replay body's PIX key masked, like the destination. */
export function entryView(entry: JournalEntry): Record<string, unknown> {
  const {type: _type, state, outcome, outcomes, request, ...rest} = entry
  const body = {...request.body}
  if (typeof body.pixKey === 'string') body.pixKey = maskKey(body.pixKey)
  return {
    ...rest,
    state,
    ...(outcome?.id === undefined ? {} : {id: outcome.id}),
    ...(outcome?.status === undefined ? {} : {status: outcome.status}),
    ...(outcome?.replayed ? {replayed: true} : {}),
    ...(outcome?.error === undefined ? {} : {error: outcome.error}),
    ...(outcome === undefined ? {} : {settledAt: outcome.at, settledBy: outcome.by}),
    outcomes,
    request: {...request, body},
  }
}
