import {randomUUID} from 'node:crypto'

import {z} from 'zod'

import type {DepositPage, Transaction} from '../api/types.js'
import {checkDepositQuery, DEPOSIT_FILTER_KEYS, type DepositFilters, type DepositQuery} from '../schemas/deposit.js'
import {DEPOSIT_STATUSES, LIMITS, type DepositStatus} from '../schemas/enums.js'
import {cents, checkWith, formatIssue, parseDateTime, type Issue} from '../schemas/rules.js'
import {ACQUIRER, brCode, txidFor, type Random} from './fixtures.js'
import {HttpError, readJson, sendJson} from './http.js'
import {transition, withStatuses, type Action} from './lifecycle.js'
import {depositView, lookupView, recordsOf, type RecordEntry, type RecordStore} from './records.js'
import type {Route} from './router.js'
import type {SandboxState} from './state.js'

type Origin = RecordEntry['origin']

/** A snapshot nobody has used for this long is gone. */
export const SNAPSHOT_TTL_MS = 30 * 60_000
/** At most this many snapshots are kept; a new one evicts the least recently used. */
export const SNAPSHOT_LIMIT = 100

// ---------------------------------------------------------------------------------------------
// The query string

const LIST_PARAMS = new Set(['status', 'depositOrigin'])
const NUMBER_PARAMS = new Set(['minAmount', 'maxAmount', 'page', 'perPage'])
const TEXT_PARAMS = new Set(['startDate', 'endDate', 'snapshot'])

/**
 * Turns the query string into the object checkDepositQuery reads, with what cannot be read into it
 * (a value given twice, a number that is none) as issues of its own. A list takes repeated keys,
 * `key[]=` and comma-separated values alike (decisions.md); an empty `status=` makes an empty
 * list, which the check refuses. Parameters the endpoint does not know are ignored.
 */
function readQuery(params: URLSearchParams): {query: Record<string, unknown>; issues: Issue[]} {
  const values = new Map<string, string[]>()
  for (const [rawKey, value] of params) {
    const key = rawKey.endsWith('[]') ? rawKey.slice(0, -2) : rawKey
    const list = values.get(key)
    if (list) list.push(value)
    else values.set(key, [value])
  }
  const query: Record<string, unknown> = {}
  const issues: Issue[] = []
  for (const [key, given] of values) {
    if (LIST_PARAMS.has(key)) {
      query[key] = given.flatMap((value) => (value === '' ? [] : value.split(',').map((part) => part.trim())))
    } else if (!NUMBER_PARAMS.has(key) && !TEXT_PARAMS.has(key)) {
      continue
    } else if (given.length > 1) {
      issues.push({path: key, message: `must be given once, not ${given.length} times`})
    } else if (TEXT_PARAMS.has(key)) {
      query[key] = given[0]
    } else {
      // Number('') is 0 and Number('1e3') is 1000: only the first is no number here.
      const number = Number(given[0])
      if (given[0].trim() !== '' && Number.isFinite(number)) query[key] = number
      else issues.push({path: key, message: `must be a number, not "${given[0]}"`})
    }
  }
  return {query, issues}
}

/** The checked query, or a 422 listing every problem. */
function checkedQuery(params: URLSearchParams): DepositQuery {
  const read = readQuery(params)
  const checked = checkDepositQuery(read.query, {side: 'gateway'})
  const issues = [...read.issues, ...(checked.ok ? [] : checked.issues)]
  if (issues.length > 0 || !checked.ok) throw new HttpError(422, issues.map(formatIssue))
  return checked.value
}

// ---------------------------------------------------------------------------------------------
// Filters and snapshots

type FilterKey = keyof DepositFilters
/** Each filter a snapshot was made with, as one canonical text. */
type FilterTexts = Partial<Record<FilterKey, string>>

/**
 * A filter's value as one text, the form snapshots compare: lists sorted (order does not
 * count), dates as UTC ISO (2026-01-01T00:00:00-03:00 and 2026-01-01T03:00:00Z are one instant).
 */
function filterTexts(query: DepositQuery): FilterTexts {
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
interface Snapshot {
  readonly id: string
  readonly perPage: number
  readonly filters: FilterTexts
  readonly records: ReadonlyArray<Readonly<Transaction>>
  readonly origins: readonly Origin[]
  usedAtMs: number
}

/** The records the query matches, newest first; the date range is binary-searched. */
function select(store: RecordStore, query: DepositQuery): Pick<Snapshot, 'records' | 'origins'> {
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
function differences(snapshot: Snapshot, perPage: number, filters: FilterTexts): string[] {
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
class Snapshots {
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

/** One page of a snapshot: a slice, so it costs O(perPage) however large the snapshot is. */
function pageOf(snapshot: Snapshot, page: number, nowMs: number): DepositPage {
  const start = (page - 1) * snapshot.perPage
  const records = snapshot.records.slice(start, start + snapshot.perPage)
  return {
    totalPages: Math.ceil(snapshot.records.length / snapshot.perPage),
    currentPage: page,
    perPage: snapshot.perPage,
    snapshot: snapshot.id,
    data: records.map((data, index) => depositView(data, snapshot.origins[start + index], nowMs)),
  }
}

// ---------------------------------------------------------------------------------------------
// Records in a given status

/**
 * How a record comes to be in each status after its creation: the life-cycle actions it goes
 * through, then a status it waits in. Going through `transition` gives every status the fields
 * its history implies (payer, endToEnd, receipts, refund fields...).
 */
const PATHS: Record<DepositStatus, {actions: Action[]; waitIn?: DepositStatus}> = {
  PENDING: {actions: []},
  PIX_QRCODE_GENERATED: {actions: []},
  DEPOSIT_PIXKEY_GENERATED: {actions: []},
  PENDING_COMPLIANCE: {actions: [], waitIn: 'PENDING_COMPLIANCE'},
  PAID: {actions: ['pay']},
  PROCESSING_REFUND: {actions: ['pay'], waitIn: 'PROCESSING_REFUND'},
  PROCESSING_INFRACTION: {actions: ['pay'], waitIn: 'PROCESSING_INFRACTION'},
  REFUNDED: {actions: ['pay', 'refund']},
  INFRACTION: {actions: ['pay', 'infraction']},
  BLOCKED: {actions: ['pay', 'block']},
  FAILED: {actions: ['fail']},
}

/** The statuses a new record passes through at once, as POST /core/transaction makes them. */
const CREATED: Record<Origin, DepositStatus[]> = {QRCODE: ['PENDING', 'PIX_QRCODE_GENERATED'], PIX_KEY: ['DEPOSIT_PIXKEY_GENERATED']}

/**
 * The statuses a record wanted in `status` is created with: its origin's, cut at `status` when
 * that is one of them; just `status` when that is another status a record only starts in (a
 * PIX-key deposit asked for in PENDING).
 */
function createdWith(origin: Origin, status: DepositStatus): DepositStatus[] {
  const created = CREATED[origin]
  const index = created.indexOf(status)
  if (index !== -1) return created.slice(0, index + 1)
  const path = PATHS[status]
  return path.actions.length === 0 && !path.waitIn ? [status] : created
}

/** The QR code's lifetime when the create request names none (the reference's default). */
const QR_LIFETIME_MS = LIMITS.expirationSeconds.default * 1000

interface RecordSpec {
  id: string
  origin: Origin
  amount: number
  status: DepositStatus
  createdAtMs: number
  /** The time of each next step of its life, never before the previous one. */
  nextStepMs: () => number
  random?: Random
}

/**
 * A record in the given status. A QRCODE one carries a real BR Code but no PNG: the deposit list
 * leaves the image out, and making it would cost a thousand times more than the code itself.
 */
function recordIn(spec: RecordSpec): Transaction {
  const created = createdWith(spec.origin, spec.status)
  const at = new Date(spec.createdAtMs).toISOString()
  let data: Transaction = {
    id: spec.id,
    acquirer: ACQUIRER.name,
    acquirerCode: ACQUIRER.code,
    amount: spec.amount,
    paymentMethod: 'PIX',
    isInfoProduct: true,
    createdAt: at,
    status: created.at(-1)!,
    statusHistory: created.map((status) => ({status, date: at, durationInMilliseconds: 0})),
    updatedAt: at,
  }
  if (spec.origin === 'QRCODE') {
    data.pixResponse = {uri: brCode(spec.amount, txidFor(spec.id)), expirationDate: new Date(spec.createdAtMs + QR_LIFETIME_MS).toISOString()}
  }
  const path = PATHS[spec.status]
  for (const action of path.actions) data = transition(data, action, spec.nextStepMs(), {random: spec.random})
  if (path.waitIn) data = withStatuses(data, [path.waitIn], spec.nextStepMs())
  return data
}

/** Makes the record and stores it, frozen as the store's copy-on-write expects. */
function addRecord(store: RecordStore, spec: RecordSpec): Readonly<Transaction> {
  const data = Object.freeze(recordIn(spec))
  store.insert({id: spec.id, origin: spec.origin, createdAtMs: spec.createdAtMs, data})
  return data
}

const sandboxDepositSchema = z.strictObject({
  amount: cents(),
  status: z.enum(DEPOSIT_STATUSES, {error: `must be one of ${DEPOSIT_STATUSES.join(', ')}`}).optional(),
})

// ---------------------------------------------------------------------------------------------
// Routes

/** GET /core/deposit with snapshot paging, and the PIX-key deposit control. */
export function depositRoutes(state: SandboxState): Route[] {
  const store = recordsOf(state)
  const snapshots = state.part('deposit-snapshots', () => new Snapshots())
  return [
    {
      method: 'GET',
      path: '/core/deposit',
      handler({url, res}) {
        const query = checkedQuery(url.searchParams)
        const nowMs = state.now()
        const perPage = query.perPage ?? LIMITS.perPage.default
        const filters = filterTexts(query)
        let snapshot: Snapshot
        if (query.snapshot === undefined) {
          snapshot = snapshots.add({id: randomUUID(), perPage, filters, ...select(store, query), usedAtMs: nowMs})
        } else {
          const found = snapshots.use(query.snapshot, nowMs)
          if (!found) {
            throw new HttpError(
              422,
              `snapshot ${query.snapshot} is unknown or expired (a snapshot lasts ${SNAPSHOT_TTL_MS / 60_000} minutes after its last use); list again without snapshot to make a new one`,
            )
          }
          const changed = differences(found, perPage, filters)
          if (changed.length > 0) throw new HttpError(422, `snapshot ${found.id} was made ${changed.join('; ')}`)
          snapshot = found
        }
        sendJson(res, 200, pageOf(snapshot, query.page ?? 1, nowMs))
      },
    },
    {
      method: 'POST',
      path: '/_sandbox/deposits',
      api: false,
      /**
       * A deposit received through the merchant's PIX key, in any status (default
       * DEPOSIT_PIXKEY_GENERATED). Answers the record as the lookup shows it, plus its origin.
       */
      async handler({req, res}) {
        const body = checkWith(sandboxDepositSchema, await readJson(req))
        if (!body.ok) throw new HttpError(422, body.issues.map(formatIssue))
        const nowMs = state.now()
        const spec: RecordSpec = {
          id: randomUUID(),
          origin: 'PIX_KEY',
          amount: body.value.amount,
          status: body.value.status ?? 'DEPOSIT_PIXKEY_GENERATED',
          createdAtMs: nowMs,
          nextStepMs: () => nowMs,
        }
        const data = addRecord(store, spec)
        sendJson(res, 201, {...lookupView(data, nowMs), depositOrigin: 'PIX_KEY'})
      },
    },
  ]
}

// ---------------------------------------------------------------------------------------------
// Seeding

/** A fixed seed, so a given count always makes the same deposits (relative to the clock). */
const SEED = 0x5eed_d3b0
const SEED_SPAN_MS = 90 * 86_400_000

/** Mulberry32: a tiny seeded generator of numbers in [0, 1), plenty for test data. */
function mulberry32(seed: number): Random {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let mixed = Math.imul(state ^ (state >>> 15), state | 1)
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61)
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296
  }
}

const between = (random: Random, min: number, max: number) => min + Math.floor(random() * (max - min + 1))

/** A UUID v4 drawn from the seeded generator, so seeded ids repeat with the seed too. */
function seededUuid(random: Random): string {
  const word = () => Math.floor(random() * 0x1_0000_0000).toString(16).padStart(8, '0')
  const hex = word() + word() + word() + word()
  const variant = '89ab'[Number.parseInt(hex[16], 16) & 3]
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20)}`
}

/** How often each status turns up among the seeds, roughly as a live merchant would see them. */
const SEED_WEIGHTS: Record<DepositStatus, number> = {
  PAID: 40,
  PIX_QRCODE_GENERATED: 14,
  REFUNDED: 8,
  FAILED: 6,
  DEPOSIT_PIXKEY_GENERATED: 5,
  PENDING_COMPLIANCE: 4,
  PENDING: 4,
  INFRACTION: 3,
  BLOCKED: 3,
  PROCESSING_REFUND: 2,
  PROCESSING_INFRACTION: 2,
}
const WEIGHT_TOTAL = Object.values(SEED_WEIGHTS).reduce((sum, weight) => sum + weight, 0)

function weightedStatus(random: Random): DepositStatus {
  let left = random() * WEIGHT_TOTAL
  for (const status of DEPOSIT_STATUSES) {
    left -= SEED_WEIGHTS[status]
    if (left < 0) return status
  }
  return 'PAID'
}

/** Statuses that belong to one origin only; the rest come by QR code two times in three. */
const ORIGIN_OF: Partial<Record<DepositStatus, Origin>> = {
  PENDING: 'QRCODE',
  PIX_QRCODE_GENERATED: 'QRCODE',
  DEPOSIT_PIXKEY_GENERATED: 'PIX_KEY',
  PENDING_COMPLIANCE: 'PIX_KEY',
}

/** The statuses of `count` seeds: each of the 11 at least once (when count allows), in random order. */
function seedStatuses(count: number, random: Random): DepositStatus[] {
  const statuses = Array.from({length: count}, (_, index) => DEPOSIT_STATUSES[index] ?? weightedStatus(random))
  for (let index = count - 1; index > 0; index -= 1) {
    const other = between(random, 0, index)
    ;[statuses[index], statuses[other]] = [statuses[other], statuses[index]]
  }
  return statuses
}

/** Creation times over the last 90 days, oldest first: the store takes seeds in creation order. */
function seedTimes(count: number, nowMs: number, random: Random): Float64Array {
  const times = Float64Array.from({length: count}, () => nowMs - Math.floor(random() * SEED_SPAN_MS))
  return times.sort()
}

/**
 * Fills `count` varied deposits: every status and both origins, created over the last 90 days,
 * amounts from R$ 1 to R$ 100.000 spread evenly over their orders of magnitude. Paid ones are
 * paid within the QR code's lifetime, later steps come hours to days after, never past now.
 * Ids, statuses, origins, amounts and times repeat for a given count; payers' documents and
 * end-to-end ids come from the fixtures' own randomness.
 */
export function seedDeposits(state: SandboxState, count: number): void {
  const store = recordsOf(state)
  const random = mulberry32(SEED)
  const nowMs = state.now()
  const statuses = seedStatuses(count, random)
  const times = seedTimes(count, nowMs, random)
  for (let index = 0; index < count; index += 1) {
    const status = statuses[index]
    const origin = ORIGIN_OF[status] ?? (random() < 2 / 3 ? 'QRCODE' : 'PIX_KEY')
    const createdAtMs = times[index]
    let atMs = createdAtMs
    let steps = 0
    const nextStepMs = () => {
      // The first step (paying, failing) comes within the QR code's lifetime, later ones much later.
      steps += 1
      const gap = steps === 1 ? between(random, 5_000, QR_LIFETIME_MS - 60_000) : between(random, 3_600_000, 7 * 86_400_000)
      atMs = Math.min(nowMs, atMs + gap)
      return atMs
    }
    const amount = Math.round(10 ** (2 + random() * 5))
    addRecord(store, {id: seededUuid(random), origin, amount, status, createdAtMs, nextStepMs, random})
  }
}
