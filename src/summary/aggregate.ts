import {UsageError} from '../cli/errors.js'
import {DEPOSIT_STATUSES} from '../schemas/enums.js'

/**
 * Totals of deposits by day and status, built one record at a time: `add` keeps the sums and
 * drops the record, so a summary of any number of pages holds only one entry per day and status.
 */

/** What the aggregator reads of a deposit (src/api/types.ts Deposit); every other field is ignored. */
export interface SummaryInput {
  createdAt: string
  status: string
  amount: number
  amountPaid?: number | null
  refundAmount?: number | null
  feeAmount?: number | null
}

/** Sums in integer cents, and how many records made them. */
export interface Totals {
  count: number
  amount: number
  amountPaid: number
  refundAmount: number
  feeAmount: number
}

/** One day's totals for one status. */
export interface StatusRow extends Totals {
  /** The calendar day in the summary's time zone, YYYY-MM-DD. */
  day: string
  status: string
}

export interface DayRow extends Totals {
  day: string
}

export interface Summary {
  /** The IANA time zone the days were cut in. */
  timeZone: string
  /** One row per day and status that has records, by day, then status in life-cycle order. */
  rows: StatusRow[]
  /** One row per day that has records, by day. */
  days: DayRow[]
  /** Everything added. */
  total: Totals
}

/** A row of the flat listing a table or CSV shows: a status row, a day's total, or the grand total. */
export type SummaryLine = (StatusRow & {kind: 'status'}) | (DayRow & {kind: 'day'; status: null}) | (Totals & {kind: 'total'; day: null; status: null})

export const emptyTotals = (): Totals => ({count: 0, amount: 0, amountPaid: 0, refundAmount: 0, feeAmount: 0})

function addTo(totals: Totals, record: SummaryInput): void {
  totals.count += 1
  totals.amount += record.amount
  totals.amountPaid += record.amountPaid ?? 0
  totals.refundAmount += record.refundAmount ?? 0
  totals.feeAmount += record.feeAmount ?? 0
}

function sumInto(target: Totals, source: Totals): void {
  target.count += source.count
  target.amount += source.amount
  target.amountPaid += source.amountPaid
  target.refundAmount += source.refundAmount
  target.feeAmount += source.feeAmount
}

const plain = ({count, amount, amountPaid, refundAmount, feeAmount}: Totals): Totals => ({count, amount, amountPaid, refundAmount, feeAmount})

/** The process's time zone: `TZ` when set, else the system's. */
export function localTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone
}

/** Checks an IANA time zone name (or UTC), answering its canonical spelling. */
export function checkTimeZone(timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', {timeZone}).resolvedOptions().timeZone
  } catch {
    throw new UsageError(`time zone "${timeZone}" is not an IANA time zone, such as America/Sao_Paulo or UTC`)
  }
}

/** Day boundaries fall on quarter hours in every zone in use since 1972, so a quarter hour has one day. */
const QUARTER_HOUR_MS = 15 * 60 * 1000
const DAY_CACHE_LIMIT = 100_000

/** The calendar day (YYYY-MM-DD) of instants in one time zone, through Intl, cached per quarter hour. */
export class DayCutter {
  private readonly format: Intl.DateTimeFormat
  private readonly cache = new Map<number, string>()

  constructor(readonly timeZone: string) {
    this.format = new Intl.DateTimeFormat('en-US', {timeZone, year: 'numeric', month: '2-digit', day: '2-digit'})
  }

  private exact(ms: number): string {
    let year = ''
    let month = ''
    let day = ''
    for (const part of this.format.formatToParts(ms)) {
      if (part.type === 'year') year = part.value
      else if (part.type === 'month') month = part.value
      else if (part.type === 'day') day = part.value
    }
    return `${year.padStart(4, '0')}-${month}-${day}`
  }

  dayOf(ms: number): string {
    const bucket = Math.floor(ms / QUARTER_HOUR_MS)
    const cached = this.cache.get(bucket)
    if (cached !== undefined) return cached
    const start = bucket * QUARTER_HOUR_MS
    const first = this.exact(start)
    // Cached only when the quarter hour starts and ends on the same day (always, in zones whose
    // offsets are whole quarter hours); otherwise each instant is cut exactly.
    if (first !== this.exact(start + QUARTER_HOUR_MS - 1)) return this.exact(ms)
    if (this.cache.size >= DAY_CACHE_LIMIT) this.cache.clear()
    this.cache.set(bucket, first)
    return first
  }
}

const STATUS_ORDER = new Map<string, number>(DEPOSIT_STATUSES.map((status, index) => [status, index]))

/** Statuses in life-cycle order (the order of DEPOSIT_STATUSES); unknown ones after them, by name. */
export function compareStatus(a: string, b: string): number {
  const left = STATUS_ORDER.get(a) ?? STATUS_ORDER.size
  const right = STATUS_ORDER.get(b) ?? STATUS_ORDER.size
  return left - right || (a < b ? -1 : a > b ? 1 : 0)
}

const cents = (value: unknown, field: string): void => {
  if (value !== undefined && value !== null && !(typeof value === 'number' && Number.isSafeInteger(value))) {
    throw new TypeError(`${field} must be integer cents; got ${JSON.stringify(value)}`)
  }
}

export class DepositAggregator {
  readonly timeZone: string
  private readonly cutter: DayCutter
  /** day → status → totals. */
  private readonly byDay = new Map<string, Map<string, Totals>>()
  private readonly grand = emptyTotals()

  /** `timeZone` defaults to the process's (`TZ`); an unknown zone is a UsageError. */
  constructor(options: {timeZone?: string} = {}) {
    this.timeZone = checkTimeZone(options.timeZone ?? localTimeZone())
    this.cutter = new DayCutter(this.timeZone)
  }

  /** Adds one record's amounts to its day and status. A record without a valid createdAt or integer amounts is refused with a TypeError. */
  add(record: SummaryInput): void {
    const ms = Date.parse(record.createdAt)
    if (Number.isNaN(ms)) throw new TypeError(`createdAt must be an ISO date-time; got ${JSON.stringify(record.createdAt)}`)
    if (typeof record.status !== 'string' || record.status === '') throw new TypeError(`status must be a text; got ${JSON.stringify(record.status)}`)
    if (record.amount === undefined || record.amount === null) throw new TypeError('amount is missing')
    cents(record.amount, 'amount')
    cents(record.amountPaid, 'amountPaid')
    cents(record.refundAmount, 'refundAmount')
    cents(record.feeAmount, 'feeAmount')
    const day = this.cutter.dayOf(ms)
    let statuses = this.byDay.get(day)
    if (!statuses) {
      statuses = new Map()
      this.byDay.set(day, statuses)
    }
    let totals = statuses.get(record.status)
    if (!totals) {
      totals = emptyTotals()
      statuses.set(record.status, totals)
    }
    addTo(totals, record)
    addTo(this.grand, record)
  }

  /** Adds every record of a page. */
  addAll(records: Iterable<SummaryInput>): void {
    for (const record of records) this.add(record)
  }

  get count(): number {
    return this.grand.count
  }

  /** The totals so far, sorted; the aggregator can go on adding after. */
  result(): Summary {
    const rows: StatusRow[] = []
    const days: DayRow[] = []
    for (const day of [...this.byDay.keys()].sort()) {
      const statuses = this.byDay.get(day)!
      const dayTotals = emptyTotals()
      for (const status of [...statuses.keys()].sort(compareStatus)) {
        const totals = statuses.get(status)!
        rows.push({day, status, ...plain(totals)})
        sumInto(dayTotals, totals)
      }
      days.push({day, ...dayTotals})
    }
    return {timeZone: this.timeZone, rows, days, total: plain(this.grand)}
  }
}

/** The summary as one list: each day's status rows, then that day's total; the grand total last. */
export function summaryLines(summary: Summary): SummaryLine[] {
  const lines: SummaryLine[] = []
  let next = 0
  for (const day of summary.days) {
    while (next < summary.rows.length && summary.rows[next].day === day.day) {
      lines.push({kind: 'status', ...summary.rows[next]})
      next += 1
    }
    lines.push({kind: 'day', ...day, status: null})
  }
  lines.push({kind: 'total', day: null, status: null, ...summary.total})
  return lines
}
