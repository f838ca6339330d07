/** The most deposits a sandbox seeds: it keeps every one in memory. */
export const MAX_SEED_DEPOSITS = 1_000_000

import {DEPOSIT_STATUSES, type DepositStatus} from '../../schemas/enums.js'
import {QR_LIFETIME_MS, recordIn, type Origin} from './build.js'
import type {Random} from './fixtures.js'
import {between, mulberry32, seededUuid} from './random.js'
import type {RecordStore} from './records.js'

/** A fixed seed, so a given count always makes the same deposits (relative to the clock). */
const SEED = 0x5eed_d3b0
const SEED_SPAN_MS = 90 * 86_400_000

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
export function seedDeposits(store: RecordStore, count: number, nowMs: number): void {
  const random = mulberry32(SEED)
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
    const id = seededUuid(random)
    store.insert({id, origin, createdAtMs, data: Object.freeze(recordIn({id, origin, amount, status, createdAtMs, nextStepMs, random}))})
  }
}

// ---------------------------------------------------------------------------------------------
// Seeds for reconciling: a day of charges an expected file can be matched against

/** The most expected charges `seedReconcile` makes. */
export const MAX_SEED_RECONCILE = 1_000_000

const RECONCILE_SEED = 0x7ec0_c11e
const RECONCILE_SPAN_MS = 20 * 3_600_000
const DAY_MS = 86_400_000

/** One charge the seeded day expected: a row of the expected file. */
export interface ExpectedSeed {
  externalCode: string
  amount: number
  /** A date (YYYY-MM-DD, UTC). */
  dueDate: string
}

/** What becomes of the expected charge of index i: one in twenty of each kind that needs attention. */
export type SeedFate = 'paid' | 'paid-twice' | 'other-amount' | 'open-overdue' | 'open' | 'failed' | 'missing' | 'paid-and-open'
const FATES: SeedFate[] = ['paid-twice', 'other-amount', 'open-overdue', 'open', 'failed', 'missing', 'paid-and-open']

export function seedFate(index: number): SeedFate {
  return FATES[index % 20] ?? 'paid'
}

/** The external code of the seeded day's charge `index` (from 1): REC-<YYYYMMDD>-<index, 6 digits>. */
export function reconcileCode(day: string, index: number): string {
  return `REC-${day}-${String(index).padStart(6, '0')}`
}

/** The code of an unknown deposit of the day: REC-<YYYYMMDD>-X<index, 6 digits>, in no expected row. */
export function unknownCode(day: string, index: number): string {
  return `REC-${day}-X${String(index).padStart(6, '0')}`
}

export interface DepositSeed {
  /** None: a deposit without a code (a PIX-key deposit whose payer gave none). */
  externalCode?: string
  amount: number
  status: DepositStatus
  createdAtMs: number
  origin?: Origin
}

/** Inserts one deposit with an external code in a status, with every field its history implies. */
export function insertDeposit(store: RecordStore, seed: DepositSeed, random: Random = mulberry32(seed.createdAtMs)): string {
  const id = seededUuid(random)
  const origin = seed.origin ?? 'QRCODE'
  let atMs = seed.createdAtMs
  const nextStepMs = () => {
    atMs += between(random, 5_000, 600_000)
    return atMs
  }
  const data = recordIn({id, origin, amount: seed.amount, status: seed.status, createdAtMs: seed.createdAtMs, nextStepMs, random})
  if (seed.externalCode !== undefined) data.externalCode = seed.externalCode
  store.insert({id, origin, createdAtMs: seed.createdAtMs, data: Object.freeze(data)})
  return id
}

/**
 * Seeds `count` expected charges of the last 20 hours and the deposits of each, as a day of a
 * merchant would leave them: most paid once as expected; one in twenty each paid twice, paid
 * with another amount (R$ 1,50 more or less), open past its due date, open and not yet due,
 * failed, without any deposit, or paid once with a second QR code left open; and one deposit in
 * twenty whose code is in no row. Answers the rows of the matching expected file, in code order.
 * The same count gives the same codes, amounts and fates (times are relative to the clock).
 */
export function seedReconcile(store: RecordStore, count: number, nowMs: number): ExpectedSeed[] {
  const random = mulberry32(RECONCILE_SEED)
  const day = new Date(nowMs).toISOString().slice(0, 10)
  const code = day.replace(/-/g, '')
  const yesterday = new Date(nowMs - DAY_MS).toISOString().slice(0, 10)
  const tomorrow = new Date(nowMs + DAY_MS).toISOString().slice(0, 10)
  const expected: ExpectedSeed[] = []
  const deposits: DepositSeed[] = []
  const at = () => nowMs - 60_000 - Math.floor(random() * RECONCILE_SPAN_MS)
  for (let index = 1; index <= count; index += 1) {
    const externalCode = reconcileCode(code, index)
    const amount = 500 + Math.floor(random() * 99_500)
    const fate = seedFate(index)
    expected.push({externalCode, amount, dueDate: fate === 'open-overdue' ? yesterday : tomorrow})
    const deposit = (status: DepositStatus, cents = amount) => deposits.push({externalCode, amount: cents, status, createdAtMs: at()})
    switch (fate) {
      case 'paid-twice':
        deposit('PAID')
        deposit('PAID')
        break
      case 'other-amount':
        deposit('PAID', index % 40 === 1 ? amount + 150 : Math.max(1, amount - 150))
        break
      case 'open-overdue':
      case 'open':
        deposit('PIX_QRCODE_GENERATED')
        break
      case 'failed':
        deposit('FAILED')
        break
      case 'missing':
        break
      case 'paid-and-open':
        deposit('PAID')
        deposit('PIX_QRCODE_GENERATED')
        break
      default:
        deposit('PAID')
    }
    if (index % 20 === 10) deposits.push({externalCode: unknownCode(code, index), amount, status: 'PAID', createdAtMs: at()})
  }
  deposits.sort((a, b) => a.createdAtMs - b.createdAtMs)
  for (const seed of deposits) insertDeposit(store, seed, random)
  return expected
}

/** The expected file of seedReconcile's rows, as CSV with a header: external-code,amount,due-date. */
export function expectedCsv(rows: readonly ExpectedSeed[]): string {
  const lines = ['external-code,amount,due-date']
  for (const row of rows) lines.push(`${row.externalCode},${row.amount},${row.dueDate}`)
  return `${lines.join('\n')}\n`
}
