import {UnavailableError} from './errors.js'
import type {DepositListQuery, GatewayApi} from './gateway.js'
import type {DepositPage} from './types.js'

/** More pages than any real listing has: a gateway announcing more is not walked at all. */
export const MAX_PAGES = 100_000

/**
 * A page that breaks the paging contract: an absurd page count, a page answered as another, or a
 * record already seen under the same snapshot. Walking on would never end, or repeat records.
 */
export class PagingError extends UnavailableError {
  override readonly code = 'BAD_PAGE'
  /** The page that broke the contract. */
  readonly page: number

  constructor(page: number, message: string) {
    super(`the gateway's listing is unusable at page ${page}: ${message}; the listing stopped there`)
    this.page = page
  }
}

/** A page as it is handed on: its paging fields, and what `prepare` made of its records. */
export interface PreparedPage<T> {
  currentPage: number
  totalPages: number
  perPage: number
  snapshot?: string
  /** How many records the page held. */
  count: number
  /** What `prepare` made of the page's records (the records themselves by default). */
  records: T
}

export interface WalkOptions<T> {
  /** Pages fetched at once after the first (pages of one snapshot are independent). Default 4. */
  concurrency?: number
  /**
   * Turns a page's records into what is kept until the page's turn comes (a line of text per
   * record, say), as soon as the page arrives: the records themselves are then dropped young, and
   * pages waiting their turn hold little.
   */
  prepare?: (records: DepositPage['data']) => T
}

/** At most this share of an IdSet's slots is filled before it grows (linear probing stays short). */
const IDSET_LOAD = 0.8
/** An IdSet made for a listing's announced size starts with at most this many slots (2 MiB). */
const IDSET_PRESIZE_SLOTS = 2 ** 18

/**
 * The ids seen in one walk, as 64-bit hashes in an open-addressing table of 32-bit words: 10 to 20
 * bytes an id, with no object per id. Two different ids share a hash with odds of about n²/2⁶⁵.
 *
 * Made for the number of ids a listing announces, the table is allocated once: growing it by
 * doubling would hold the old and the new table at once near the end of a long walk, and leave
 * the freed ones behind in the allocator. What a gateway announces only sizes the start (up to
 * IDSET_PRESIZE_SLOTS); more ids than announced still fit, the table growing as it must.
 */
export class IdSet {
  private table: Uint32Array
  private size = 0
  /** How many ids the table holds before it grows. */
  private limit: number

  constructor(expected = 0) {
    let slots = 1024
    while (slots < IDSET_PRESIZE_SLOTS && slots * IDSET_LOAD < expected) slots *= 2
    this.table = new Uint32Array(2 * slots)
    this.limit = Math.floor(slots * IDSET_LOAD)
  }

  get count(): number {
    return this.size
  }

  /** How many ids fit before the table grows. */
  get capacity(): number {
    return this.limit
  }

  /** Adds an id; answers false when it was already there. */
  add(id: string): boolean {
    const hash = new Uint32Array(2)
    IdSet.hash(id, hash, 0)
    return this.addHash(hash[0], hash[1])
  }

  /**
   * Writes an id's 64-bit hash into `into` at `at` and `at + 1`: two 32-bit FNV-1a hashes of
   * different offsets and multipliers, over UTF-16 code units (the second never 0).
   */
  static hash(id: string, into: Uint32Array, at: number): void {
    let high = 0x811c9dc5
    let low = 0x01000193
    for (let index = 0; index < id.length; index += 1) {
      const unit = id.charCodeAt(index)
      high = Math.imul(high ^ unit, 0x01000193)
      low = Math.imul(low ^ unit, 0x5bd1e995)
    }
    into[at] = high >>> 0
    // A slot whose second word is 0 is empty.
    into[at + 1] = (low >>> 0) | 1
  }

  /** Adds a hash made by `hash`; answers false when it was already there. */
  addHash(high: number, low: number): boolean {
    if (this.size + 1 > this.limit) this.grow()
    return this.place(this.table, high, low)
  }

  private place(table: Uint32Array, high: number, low: number): boolean {
    const slots = table.length / 2
    let slot = (high ^ Math.imul(low, 0x9e3779b1)) >>> 0
    for (slot %= slots; ; slot = (slot + 1) % slots) {
      const at = 2 * slot
      if (table[at + 1] === 0) {
        table[at] = high
        table[at + 1] = low
        if (table === this.table) this.size += 1
        return true
      }
      if (table[at] === high && table[at + 1] === low) return false
    }
  }

  private grow(): void {
    const old = this.table
    const table = new Uint32Array(old.length * 2)
    for (let at = 0; at < old.length; at += 2) if (old[at + 1] !== 0) this.place(table, old[at], old[at + 1])
    this.table = table
    this.limit = Math.floor((table.length / 2) * IDSET_LOAD)
  }
}

/**
 * Every page of one snapshot, in order: the first page makes the snapshot, later pages are fetched
 * up to `concurrency` at a time and handed on in order, so at most that many pages are held at once,
 * each as `prepare` made it.
 *
 * The walk stops with a PagingError (the gateway failed: exit 7), naming the page, when the first
 * page announces more than MAX_PAGES pages, when a page answers as another page than the one asked
 * for, or when a page holds a record already seen under the snapshot: a gateway answering the same
 * records on every page would otherwise be walked without end.
 */
export async function* walkPages<T = DepositPage['data']>(api: GatewayApi, query: DepositListQuery, options: WalkOptions<T> = {}): AsyncGenerator<PreparedPage<T>> {
  const concurrency = Math.max(1, options.concurrency ?? 4)
  const prepare = options.prepare ?? ((records: DepositPage['data']) => records as unknown as T)
  // Made once the first page says how many records the listing holds.
  let seen: IdSet
  /** A page as soon as it arrives: checked, its ids hashed, its records prepared and dropped. */
  const arrived = (page: DepositPage, number: number) => {
    if (page.currentPage !== number) throw new PagingError(number, `asked for page ${number}, it answered page ${page.currentPage} (the page number does not advance)`)
    // The ids as hashes, so that nothing of the records outlives this call.
    const ids = new Uint32Array(2 * page.data.length)
    let names = ''
    for (const [index, record] of page.data.entries()) {
      const id = String(record.id)
      IdSet.hash(id, ids, 2 * index)
      // One flat string, kept only to name a repeated id.
      names += index === 0 ? id : `\n${id}`
    }
    return {
      page: {currentPage: page.currentPage, totalPages: page.totalPages, perPage: page.perPage, snapshot: page.snapshot, count: page.data.length, records: prepare(page.data)},
      ids,
      names,
    }
  }
  /** The page in its turn: none of its records may have been seen before under this snapshot. */
  const inTurn = ({page, ids, names}: {page: PreparedPage<T>; ids: Uint32Array; names: string}) => {
    for (let at = 0; at < ids.length; at += 2) {
      if (!seen.addHash(ids[at], ids[at + 1])) {
        const id = names.split('\n')[at / 2]
        throw new PagingError(page.currentPage, `record ${JSON.stringify(id)} was already listed under the same snapshot`)
      }
    }
    return page
  }

  const first = await api.listDeposits({...query, page: 1})
  const total = first.totalPages
  if (!Number.isSafeInteger(total) || total < 0 || total > MAX_PAGES) {
    throw new PagingError(1, `it announces ${String(total)} pages, more than the ${MAX_PAGES.toLocaleString('en-US')} a listing may have`)
  }
  seen = new IdSet(total * first.data.length)
  const pinned = {...query, snapshot: first.snapshot ?? query.snapshot}
  const head = inTurn(arrived(first, 1))
  yield head
  if (head.count === 0) return
  const inflight = new Map<number, Promise<ReturnType<typeof arrived>>>()
  let next = 2
  try {
    for (let number = 2; number <= total; number++) {
      while (next <= total && next < number + concurrency) {
        const asked = next
        const pending = api.listDeposits({...pinned, page: asked}).then((page) => arrived(page, asked))
        // Its failure is reported when its turn comes; until then it must not count as unhandled.
        pending.catch(() => {})
        inflight.set(asked, pending)
        next += 1
      }
      const page = inTurn(await inflight.get(number)!)
      inflight.delete(number)
      yield page
      if (page.count === 0) return
    }
  } finally {
    inflight.clear()
  }
}

/** Every page of one snapshot, in order, as the gateway answered it (see walkPages: the same checks). */
export async function* walkDeposits(api: GatewayApi, query: DepositListQuery, options: Omit<WalkOptions<never>, 'prepare'> = {}): AsyncGenerator<DepositPage> {
  for await (const page of walkPages(api, query, {concurrency: options.concurrency})) {
    yield {currentPage: page.currentPage, totalPages: page.totalPages, perPage: page.perPage, ...(page.snapshot === undefined ? {} : {snapshot: page.snapshot}), data: page.records}
  }
}
