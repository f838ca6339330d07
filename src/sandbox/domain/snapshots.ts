import type {Transaction} from '../../api/types.js'
import {DEPOSIT_FILTER_KEYS, type DepositFilters, type DepositQuery} from '../../schemas/deposit.js'
import {parseDateTime} from '../../schemas/rules.js'
import type {Origin} from './build.js'
import type {RecordStore} from './records.js'

/** A snapshot nobody has used for this long is gone. */
export const SNAPSHOT_TTL_MS = 30 * 60_000
/** At most this many snapshots are kept; a new one evicts the least recently used. */
export const SNAPSHOT_LIMIT = 100

type FilterKey = keyof DepositFilters
/** Each filter a snapshot was made with, as one canonical text. */
export type FilterTexts = Partial<Record<FilterKey, string>>

/**
 * A filter's value as one text, the form snapshots compare: lists sorted (order does not
 * count), dates as UTC ISO (2026-01-01T00:00:00-03:00 and 2026-01-01T03:00:00Z are one instant).
 */
export function filterTexts(query: DepositQuery): FilterTexts {
  const texts: FilterTexts = {}
  for (const key of DEPOSIT_FILTER_KEYS) {
    const value = query[key]
    if (value === undefined) continue
    if (Array.isArray(value)) texts[key] = [...value].sort().join(',')
    else if (typeof value === 'string') texts[key] = new Date(parseDateTime(value)).toISOString()
    else texts[key] = String(value)
  }
  return texts
}

/**
 * A fixed result set. It holds each record's `data` object as it was when the snapshot was made:
 * the store replaces a record's data on every change and never mutates it, so later pages show
 * the record as it was. Two parallel arrays rather than an array of pairs: a page is a slice of
 * each, and a 100,000-record snapshot costs two arrays of references, not 100,000 small objects.
 */
export interface Snapshot {
  readonly id: string
  readonly perPage: number
  readonly filters: FilterTexts
  readonly records: ReadonlyArray<Readonly<Transaction>>
  readonly origins: readonly Origin[]
  usedAtMs: number
}

/** The records the query matches, newest first; the date range is binary-searched. */
export function select(store: RecordStore, query: DepositQuery): Pick<Snapshot, 'records' | 'origins'> {
  const statuses = query.status && new Set<string>(query.status)
  const origins = query.depositOrigin && new Set<string>(query.depositOrigin)
  const {minAmount = -Infinity, maxAmount = Infinity} = query
  const fromMs = query.startDate === undefined ? -Infinity : parseDateTime(query.startDate)
  const toMs = query.endDate === undefined ? Infinity : parseDateTime(query.endDate)
  const selected = {records: [] as Array<Readonly<Transaction>>, origins: [] as Origin[]}
  for (const {data, origin} of store.newestFirst(fromMs, toMs)) {
    if (statuses && !statuses.has(data.status)) continue
    if (origins && !origins.has(origin)) continue
    if (data.amount < minAmount || data.amount > maxAmount) continue
    selected.records.push(data)
    selected.origins.push(origin)
  }
  return selected
}

/** What a later request changed against its snapshot, one phrase per difference. */
export function differences(snapshot: Snapshot, perPage: number, filters: FilterTexts): string[] {
  const found: string[] = []
  if (snapshot.perPage !== perPage) found.push(`with perPage ${snapshot.perPage}, not ${perPage}`)
  for (const key of DEPOSIT_FILTER_KEYS) {
    const made = snapshot.filters[key]
    const asked = filters[key]
    if (made === asked) continue
    if (made === undefined) found.push(`without ${key}, not ${asked}`)
    else found.push(`with ${key} ${made}, not ${asked ?? 'without it'}`)
  }
  return found
}

/** The snapshots of one sandbox, least recently used first (a Map keeps insertion order). */
export class Snapshots {
  private readonly byId = new Map<string, Snapshot>()

  add(snapshot: Snapshot): Snapshot {
    this.dropExpired(snapshot.usedAtMs)
    while (this.byId.size >= SNAPSHOT_LIMIT) this.byId.delete(this.byId.keys().next().value!)
    this.byId.set(snapshot.id, snapshot)
    return snapshot
  }

  /** The snapshot, marked as just used; undefined when unknown or expired. */
  use(id: string, nowMs: number): Snapshot | undefined {
    this.dropExpired(nowMs)
    const snapshot = this.byId.get(id)
    if (!snapshot) return undefined
    this.byId.delete(id)
    this.byId.set(id, snapshot)
    snapshot.usedAtMs = nowMs
    return snapshot
  }

  /** Expired ones sit at the front, in order of last use: stop at the first live one. */
  private dropExpired(nowMs: number): void {
    for (const [id, snapshot] of this.byId) {
      if (nowMs - snapshot.usedAtMs <= SNAPSHOT_TTL_MS) break
      this.byId.delete(id)
    }
  }
}
