import type {Deposit} from '../api/types.js'
import type {ExpectedRow} from './expected.js'

/**
 * Matching expected charges with deposits, by external code. Each expected row ends in exactly one
 * class; each deposit is used once (a deposit listed again is not counted again); a deposit whose
 * code is in no row is `unknown`. Pure: no I/O, so it is checked on its own.
 */

export const CLASSES = ['paid', 'amount-differs', 'paid-more-than-once', 'open', 'not-paid', 'missing', 'unknown'] as const
export type ReconcileClass = (typeof CLASSES)[number]

/** The classes a person is shown a table of: all but `paid`. */
export const ATTENTION: readonly ReconcileClass[] = ['amount-differs', 'paid-more-than-once', 'open', 'not-paid', 'missing', 'unknown']

/** Statuses in which a charge can still be paid, or is waiting (an expired QR code among them). */
const OPEN_STATUSES = new Set(['PENDING', 'PIX_QRCODE_GENERATED', 'DEPOSIT_PIXKEY_GENERATED', 'PENDING_COMPLIANCE'])

/** What is kept of a deposit: enough to name it and its money. */
export interface SeenDeposit {
  id: string
  status: string
  /** What it was paid (amountPaid, else amount), in cents, when PAID; its amount otherwise. */
  amount: number
  createdAt: string
  /** A QR code past its expiration date. */
  expired: boolean
}

/** One line of the result: an expected row, or a deposit that matches no row. */
export interface ReconcileRow {
  class: ReconcileClass
  /** The line of the expected file; null for an unknown deposit. */
  line: number | null
  externalCode: string | null
  /** Cents expected; null for an unknown deposit. */
  expectedAmount: number | null
  /** Cents paid, over every PAID deposit of the code; null when none was paid. */
  paidAmount: number | null
  /** paidAmount - expectedAmount, when both are known. */
  difference: number | null
  /** The status of the deposit that decides the class (the newest one when several do); null when missing. */
  status: string | null
  /** The deposits that decide the class: the PAID one(s), else the open or other ones, newest first. */
  depositIds: string[]
  /** Other deposits of the same code, listed under it (a code paid once and also left open). */
  otherDepositIds: string[]
  dueDate: string | null
  /** Open and past its due date. */
  overdue: boolean
  /** Open, and its newest QR code past its expiration. */
  expired: boolean
  document: string | null
}

export interface ClassTotal {
  count: number
  /** Cents expected over the class's rows. */
  expected: number
  /** Cents paid over the class's rows (or, for unknown, over the deposits PAID). */
  paid: number
}

export interface ReconcileSummary {
  rows: number
  deposits: number
  /** True when every row is paid and no deposit is unknown. */
  reconciled: boolean
  overdue: number
  classes: Record<ReconcileClass, ClassTotal>
}

const paidOf = (deposit: Deposit) => deposit.amountPaid ?? deposit.amount

/** What is kept of a deposit while the walk goes on: what names it and its money, and its code. */
export interface KeptDeposit extends SeenDeposit {
  externalCode: string | null
}

/** Collects deposits against the expected rows, one page at a time; then answers the rows. */
export class Reconciler {
  private readonly matches = new Map<ExpectedRow, KeptDeposit[]>()
  private readonly unknownDeposits: KeptDeposit[] = []
  private readonly seen = new Set<string>()
  /** Deposits taken (each once). */
  deposits = 0
  /** Deposits listed more than once, counted once. */
  repeated = 0

  constructor(
    private readonly rows: readonly ExpectedRow[],
    private readonly byCode: ReadonlyMap<string, ExpectedRow>,
    private readonly nowMs: number,
  ) {}

  /**
   * What matching keeps of a page's deposits, made as soon as the page arrives, so that the
   * records themselves are dropped young and a page waiting its turn holds little.
   */
  prepare(deposits: readonly Deposit[]): KeptDeposit[] {
    const kept: KeptDeposit[] = new Array(deposits.length)
    for (let index = 0; index < deposits.length; index += 1) {
      const deposit = deposits[index]
      const expiration = deposit.pixResponse?.expirationDate
      kept[index] = {
        id: deposit.id,
        status: deposit.status,
        amount: deposit.status === 'PAID' ? paidOf(deposit) : deposit.amount,
        createdAt: deposit.createdAt,
        expired: expiration !== undefined && Date.parse(expiration) < this.nowMs,
        externalCode: deposit.externalCode ?? null,
      }
    }
    return kept
  }

  /** Takes a page's deposits, as prepare made them, in the listing's order. */
  take(deposits: readonly KeptDeposit[]): void {
    for (const kept of deposits) {
      if (this.seen.has(kept.id)) {
        this.repeated += 1
        continue
      }
      this.seen.add(kept.id)
      this.deposits += 1
      const row = kept.externalCode === null ? undefined : this.byCode.get(kept.externalCode)
      if (!row) {
        this.unknownDeposits.push(kept)
        continue
      }
      const list = this.matches.get(row)
      if (list) list.push(kept)
      else this.matches.set(row, [kept])
    }
  }

  add(deposits: readonly Deposit[]): void {
    this.take(this.prepare(deposits))
  }

  /** The class of one expected row, from the deposits of its code. */
  rowOf(row: ExpectedRow): ReconcileRow {
    const found = newestFirst(this.matches.get(row) ?? [])
    const base: ReconcileRow = {
      class: 'missing',
      line: row.line,
      externalCode: row.externalCode,
      expectedAmount: row.amount,
      paidAmount: null,
      difference: null,
      status: null,
      depositIds: [],
      otherDepositIds: [],
      dueDate: row.dueDate ?? null,
      overdue: false,
      expired: false,
      document: row.document ?? null,
    }
    if (found.length === 0) return base
    const paid = found.filter((deposit) => deposit.status === 'PAID')
    const others = (deciding: SeenDeposit[]) => found.filter((deposit) => !deciding.includes(deposit)).map((deposit) => deposit.id)
    if (paid.length > 0) {
      const total = paid.reduce((sum, deposit) => sum + deposit.amount, 0)
      const cls: ReconcileClass = paid.length > 1 ? 'paid-more-than-once' : total === row.amount ? 'paid' : 'amount-differs'
      return {...base, class: cls, paidAmount: total, difference: total - row.amount, status: 'PAID', depositIds: paid.map((deposit) => deposit.id), otherDepositIds: others(paid)}
    }
    const open = found.filter((deposit) => OPEN_STATUSES.has(deposit.status))
    if (open.length > 0) {
      const overdue = row.dueMs !== undefined && this.nowMs > row.dueMs
      return {...base, class: 'open', status: open[0].status, depositIds: open.map((deposit) => deposit.id), otherDepositIds: others(open), overdue, expired: open[0].expired}
    }
    return {...base, class: 'not-paid', status: found[0].status, depositIds: found.map((deposit) => deposit.id)}
  }

  /** Every expected row's line, in file order. */
  *expectedRows(): Generator<ReconcileRow> {
    for (const row of this.rows) yield this.rowOf(row)
  }

  /** Every deposit that matches no row, newest first (as listed). */
  *unknownRows(): Generator<ReconcileRow> {
    for (const deposit of this.unknownDeposits) {
      yield {
        class: 'unknown',
        line: null,
        externalCode: deposit.externalCode,
        expectedAmount: null,
        paidAmount: deposit.status === 'PAID' ? deposit.amount : null,
        difference: null,
        status: deposit.status,
        depositIds: [deposit.id],
        otherDepositIds: [],
        dueDate: null,
        overdue: false,
        expired: false,
        document: null,
      }
    }
  }

  /** Every line of the result: the expected rows in file order, then the unknown deposits. */
  *all(): Generator<ReconcileRow> {
    yield* this.expectedRows()
    yield* this.unknownRows()
  }

  summary(): ReconcileSummary {
    const classes = Object.fromEntries(CLASSES.map((name) => [name, {count: 0, expected: 0, paid: 0}])) as Record<ReconcileClass, ClassTotal>
    let overdue = 0
    for (const line of this.all()) {
      const total = classes[line.class]
      total.count += 1
      total.expected += line.expectedAmount ?? 0
      total.paid += line.paidAmount ?? 0
      if (line.overdue) overdue += 1
    }
    const reconciled = classes.paid.count === this.rows.length && classes.unknown.count === 0
    return {rows: this.rows.length, deposits: this.deposits, reconciled, overdue, classes}
  }
}

/** Deposits newest first (the listing's order breaks ties). */
function newestFirst<T extends SeenDeposit>(deposits: T[]): T[] {
  if (deposits.length < 2) return deposits
  return deposits
    .map((deposit, index) => ({deposit, index, at: Date.parse(deposit.createdAt)}))
    .sort((a, b) => (a.at === b.at ? a.index - b.index : b.at - a.at))
    .map(({deposit}) => deposit)
}
