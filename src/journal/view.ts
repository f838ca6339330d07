import {maskKey, type JournalEntry} from './journal.js'
import {replayAmount, replayDestination} from './replay.js'

/**
 * An entry as shown to people and programs: the amount and destination are those of the body a
 * replay sends (not what the entry says of itself), and its PIX key masked.
 */
export function entryView(entry: JournalEntry): Record<string, unknown> {
  const {type: _type, state, outcome, outcomes, request, ...rest} = entry
  const body = {...request.body}
  if (typeof body.pixKey === 'string') body.pixKey = maskKey(body.pixKey)
  const destination = replayDestination(entry)
  return {
    ...rest,
    amount: replayAmount(entry) ?? null,
    ...(destination === undefined ? {} : {destination}),
    state,
    ...(outcome?.id === undefined ? {} : {id: outcome.id}),
    ...(outcome?.status === undefined ? {} : {status: outcome.status}),
    ...(outcome?.replayed ? {replayed: true} : {}),
    ...(outcome?.error === undefined ? {} : {error: outcome.error}),
    ...(outcome?.note === undefined ? {} : {note: outcome.note}),
    ...(outcome === undefined ? {} : {settledAt: outcome.at, settledBy: outcome.by}),
    outcomes,
    request: {...request, body},
  }
}
