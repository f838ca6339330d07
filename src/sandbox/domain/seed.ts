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
