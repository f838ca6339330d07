import {IdSet} from '../api/paging.js'
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
  /** Open, with a QR code past its expiration date (the only deposits whose expiry is shown). */
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
  /** Its code, until it is matched: then the row has it, and the deposit lets it go. */
  externalCode: string | null
}

/** The ids taken, as 64-bit hashes (see IdSet), and where one is hashed. */
const scratch = new Uint32Array(2)

/** Counts the lines of a result into its summary, one at a time (see Reconciler.tally). */
export class Tally {
  private readonly classes = Object.fromEntries(CLASSES.map((name) => [name, {count: 0, expected: 0, paid: 0}])) as Record<ReconcileClass, ClassTotal>
  private overdue = 0

  constructor(
    private readonly rows: number,
    private readonly deposits: number,
  ) {}

  add(line: ReconcileRow): void {
    const total = this.classes[line.class]
    total.count += 1
    total.expected += line.expectedAmount ?? 0
    total.paid += line.paidAmount ?? 0
    if (line.overdue) this.overdue += 1
  }

  summary(): ReconcileSummary {
    const {classes} = this
    const reconciled = classes.paid.count === this.rows && classes.unknown.count === 0
    return {rows: this.rows, deposits: this.deposits, reconciled, overdue: this.overdue, classes}
  }
}

/** Collects deposits against the expected rows, one page at a time; then answers the rows. */
export class Reconciler {
  /**
   * The deposits of each row's code, by the row's line (a row's own: rows start on different
   * lines): the one, or every one in the listing's order when more.
   */
  private readonly matches: Array<KeptDeposit | KeptDeposit[] | undefined>
  private readonly unknownDeposits: KeptDeposit[] = []
  /** The ids taken, as hashes: no string is held for them (the deposits kept hold theirs). */
  private readonly seen: IdSet
  /** Deposits taken (each once). */
  deposits = 0
  /** Deposits listed more than once, counted once. */
  repeated = 0

  constructor(
    private readonly rows: readonly ExpectedRow[],
    private readonly byCode: ReadonlyMap<string, ExpectedRow>,
    private readonly nowMs: number,
  ) {
    // About as many deposits as rows, in a day that reconciles.
    this.seen = new IdSet(rows.length)
    let last = 0
    for (const row of rows) last = Math.max(last, row.line)
    this.matches = Array.from({length: last + 1}, () => undefined)
  }

  /**
   * What matching keeps of a page's deposits, made as soon as the page arrives, so that the
   * records themselves are dropped young and a page waiting its turn holds little.
   */
  prepare(deposits: readonly Deposit[]): KeptDeposit[] {
    const kept: KeptDeposit[] = new Array<KeptDeposit>(deposits.length)
    for (let index = 0; index < deposits.length; index += 1) {
      const deposit = deposits[index]
      // Only an open deposit's expiry is ever shown.
      const expiration = OPEN_STATUSES.has(deposit.status) ? deposit.pixResponse?.expirationDate : undefined
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
      IdSet.hash(kept.id, scratch, 0)
      if (!this.seen.addHash(scratch[0], scratch[1])) {
        this.repeated += 1
        continue
      }
      this.deposits += 1
      const row = kept.externalCode === null ? undefined : this.byCode.get(kept.externalCode)
      if (!row) {
        this.unknownDeposits.push(kept)
        continue
      }
      kept.externalCode = null
      const earlier = this.matches[row.line]
      if (earlier === undefined) this.matches[row.line] = kept
      else if (Array.isArray(earlier)) earlier.push(kept)
      else this.matches[row.line] = [earlier, kept]
    }
  }

  add(deposits: readonly Deposit[]): void {
    this.take(this.prepare(deposits))
  }

  /** The class of one expected row, from the deposits of its code. */
  rowOf(row: ExpectedRow): ReconcileRow {
    const matched = this.matches[row.line]
    if (matched === undefined) return lineOf(row, 'missing', null, null, null, [], [], false, false)
    if (!Array.isArray(matched)) {
      // One deposit: the common case, decided without lists.
      if (matched.status === 'PAID') return lineOf(row, matched.amount === row.amount ? 'paid' : 'amount-differs', matched.amount, matched.amount - row.amount, 'PAID', [matched.id], [], false, false)
      if (OPEN_STATUSES.has(matched.status)) return lineOf(row, 'open', null, null, matched.status, [matched.id], [], this.overdue(row), matched.expired)
      return lineOf(row, 'not-paid', null, null, matched.status, [matched.id], [], false, false)
    }
    const found = newestFirst(matched)
    const paid = found.filter((deposit) => deposit.status === 'PAID')
    const others = (deciding: SeenDeposit[]) => found.filter((deposit) => !deciding.includes(deposit)).map((deposit) => deposit.id)
    if (paid.length > 0) {
      const total = paid.reduce((sum, deposit) => sum + deposit.amount, 0)
      const cls: ReconcileClass = paid.length > 1 ? 'paid-more-than-once' : total === row.amount ? 'paid' : 'amount-differs'
      return lineOf(row, cls, total, total - row.amount, 'PAID', paid.map((deposit) => deposit.id), others(paid), false, false)
    }
    const open = found.filter((deposit) => OPEN_STATUSES.has(deposit.status))
    if (open.length > 0) return lineOf(row, 'open', null, null, open[0].status, open.map((deposit) => deposit.id), others(open), this.overdue(row), open[0].expired)
    return lineOf(row, 'not-paid', null, null, found[0].status, found.map((deposit) => deposit.id), [], false, false)
  }

  /** Open and past its due date. */
  private overdue(row: ExpectedRow): boolean {
    return row.dueMs !== undefined && this.nowMs > row.dueMs
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

  /** A tally for this result's lines: count them into it as they are written, for the summary. */
  tally(): Tally {
    return new Tally(this.rows.length, this.deposits)
  }

  summary(): ReconcileSummary {
    const tally = this.tally()
    for (const line of this.all()) tally.add(line)
    return tally.summary()
  }
}

/** The line of an expected row, its fields always in the same order (the order of the output). */
function lineOf(
  row: ExpectedRow,
  cls: ReconcileClass,
  paidAmount: number | null,
  difference: number | null,
  status: string | null,
  depositIds: string[],
  otherDepositIds: string[],
  overdue: boolean,
  expired: boolean,
): ReconcileRow {
  return {
    class: cls,
    line: row.line,
    externalCode: row.externalCode,
    expectedAmount: row.amount,
    paidAmount,
    difference,
    status,
    depositIds,
    otherDepositIds,
    dueDate: row.dueDate ?? null,
    overdue,
    expired,
    document: row.document ?? null,
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
