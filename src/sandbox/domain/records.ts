import type {Transaction} from '../../api/types.js'

/**
 * One record of the sandbox: a transaction (origin QRCODE) or a deposit received by PIX key.
 * `data` is the record as the lookup answers it, unmasked; it is never mutated, only replaced, so
 * a deposit snapshot that holds the old object keeps seeing the record as it was.
 */
export interface RecordEntry {
  readonly id: string
  readonly origin: 'QRCODE' | 'PIX_KEY'
  readonly createdAtMs: number
  data: Readonly<Transaction>
}

/**
 * Every record, ordered by creation time (oldest first), with an index by id. Seeds are inserted
 * in order at start-up; later records are appended.
 */
export class RecordStore {
  private readonly entries: RecordEntry[] = []
  private readonly byId = new Map<string, RecordEntry>()

  get size(): number {
    return this.entries.length
  }

  get(id: string): RecordEntry | undefined {
    return this.byId.get(id)
  }

  insert(entry: RecordEntry): RecordEntry {
    const last = this.entries.at(-1)
    if (!last || last.createdAtMs <= entry.createdAtMs) this.entries.push(entry)
    else this.entries.splice(this.lowerBound(entry.createdAtMs + 1), 0, entry)
    this.byId.set(entry.id, entry)
    return entry
  }

  /** Replaces a record's data with a new object made from the old one. */
  update(id: string, change: (data: Readonly<Transaction>) => Transaction): RecordEntry | undefined {
    const entry = this.byId.get(id)
    if (!entry) return undefined
    entry.data = Object.freeze(change(entry.data))
    return entry
  }

  /** Index of the first entry created at or after `ms`. */
  lowerBound(ms: number): number {
    let low = 0
    let high = this.entries.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (this.entries[mid].createdAtMs < ms) low = mid + 1
      else high = mid
    }
    return low
  }

  /** Entries created within [fromMs, toMs], newest first. */
  *newestFirst(fromMs = -Infinity, toMs = Infinity): Generator<RecordEntry> {
    const start = this.lowerBound(fromMs)
    const end = this.lowerBound(toMs === Infinity ? Infinity : toMs + 1)
    for (let index = end - 1; index >= start; index -= 1) yield this.entries[index]
  }
}
