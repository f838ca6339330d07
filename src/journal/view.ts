import {maskKey, type JournalEntry} from './journal.js'

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
    ...(outcome?.note === undefined ? {} : {note: outcome.note}),
    ...(outcome === undefined ? {} : {settledAt: outcome.at, settledBy: outcome.by}),
    outcomes,
    request: {...request, body},
  }
}
