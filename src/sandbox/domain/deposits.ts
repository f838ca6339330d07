import {randomUUID} from 'node:crypto'

import type {Transaction} from '../../api/types.js'
import type {DepositQuery} from '../../schemas/deposit.js'
import {LIMITS, type DepositStatus} from '../../schemas/enums.js'
import {recordIn} from './build.js'
import {Invalid} from './errors.js'
import type {RecordStore} from './records.js'
import {differences, filterTexts, select, SNAPSHOT_TTL_MS, Snapshots, type Snapshot} from './snapshots.js'
import type {DepositPageOf} from './views.js'

/** Deposits: the list with snapshot paging, and deposits received through the merchant's PIX key. */
export class Deposits {
  private readonly snapshots = new Snapshots()

  constructor(
    private readonly records: RecordStore,
    private readonly now: () => number,
  ) {}

  /**
   * One page of the deposits a checked query matches (depositPageJson writes it). The first request makes a snapshot; later
   * ones name it, with the same filters and perPage (Invalid otherwise, naming each difference).
   */
  list(query: DepositQuery): DepositPageOf {
    const nowMs = this.now()
    const perPage = query.perPage ?? LIMITS.perPage.default
    const filters = filterTexts(query)
    let snapshot: Snapshot
    if (query.snapshot === undefined) {
      snapshot = this.snapshots.add({id: randomUUID(), perPage, filters, ...select(this.records, query), usedAtMs: nowMs})
    } else {
      const found = this.snapshots.use(query.snapshot, nowMs)
      if (!found) {
        throw new Invalid(
          `snapshot ${query.snapshot} is unknown or expired (a snapshot lasts ${SNAPSHOT_TTL_MS / 60_000} minutes after its last use); list again without snapshot to make a new one`,
        )
      }
      const changed = differences(found, perPage, filters)
      if (changed.length > 0) throw new Invalid(`snapshot ${found.id} was made ${changed.join('; ')}`)
      snapshot = found
    }
    return pageOf(snapshot, query.page ?? 1)
  }

  /** A deposit received through the merchant's PIX key, in any status (default DEPOSIT_PIXKEY_GENERATED). */
  receive(request: {amount: number; status?: DepositStatus}): Readonly<Transaction> {
    const nowMs = this.now()
    const id = randomUUID()
    const status = request.status ?? 'DEPOSIT_PIXKEY_GENERATED'
    const data = Object.freeze(recordIn({id, origin: 'PIX_KEY', amount: request.amount, status, createdAtMs: nowMs, nextStepMs: () => nowMs}))
    this.records.insert({id, origin: 'PIX_KEY', createdAtMs: nowMs, data})
    return data
  }
}

/** One page of a snapshot: a slice, so it costs O(perPage) however large the snapshot is. */
function pageOf(snapshot: Snapshot, page: number): DepositPageOf {
  const start = (page - 1) * snapshot.perPage
  const end = start + snapshot.perPage
  return {
    totalPages: Math.ceil(snapshot.records.length / snapshot.perPage),
    currentPage: page,
    perPage: snapshot.perPage,
    snapshot: snapshot.id,
    records: snapshot.records.slice(start, end),
    origins: snapshot.origins.slice(start, end),
  }
}
