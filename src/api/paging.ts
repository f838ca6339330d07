import type {DepositListQuery, GatewayApi} from './gateway.js'
import type {DepositPage} from './types.js'

export interface WalkOptions {
  /** Pages fetched at once after the first (pages of one snapshot are independent). Default 4. */
  concurrency?: number
  /** Called with each page as it is handed on, in order. */
  onPage?: (page: DepositPage) => void
}

/**
 * Every page of one snapshot, in order: the first page makes the snapshot, later pages are fetched
 * up to `concurrency` at a time and handed on in order, so at most that many pages are held at once.
 */
export async function* walkDeposits(api: GatewayApi, query: DepositListQuery, options: WalkOptions = {}): AsyncGenerator<DepositPage> {
  const concurrency = Math.max(1, options.concurrency ?? 4)
  const first = await api.listDeposits({...query, page: 1})
  const pinned = {...query, snapshot: first.snapshot ?? query.snapshot}
  yield first
  const total = first.totalPages
  if (first.data.length === 0) return
  const inflight = new Map<number, Promise<DepositPage>>()
  let next = 2
  try {
    for (let number = 2; number <= total; number++) {
      while (next <= total && next < number + concurrency) {
        const pending = api.listDeposits({...pinned, page: next})
        // Its failure is reported when its turn comes; until then it must not count as unhandled.
        pending.catch(() => {})
        inflight.set(next, pending)
        next += 1
      }
      const page = await inflight.get(number)!
      inflight.delete(number)
      yield page
      if (page.data.length === 0) return
    }
  } finally {
    inflight.clear()
  }
}
