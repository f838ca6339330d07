import {Deposits} from './deposits.js'
import {RecordStore} from './records.js'
import {Scheduler} from './scheduler.js'
import {seedDeposits} from './seed.js'
import {Transactions} from './transactions.js'

export interface DomainOptions {
  now?: () => number
  /** Pay every new QR code after this many milliseconds. */
  autoPayMs?: number
  /** Fill this many varied deposits at once. */
  seedDeposits?: number
}

/**
 * The gateway the sandbox emulates, without HTTP: its records and what can happen to them. Each
 * part raises the errors of ./errors.ts; the routes turn them into status codes.
 */
export class SandboxDomain {
  readonly now: () => number
  readonly scheduler = new Scheduler()
  /** Transactions and deposits, one store: every transaction is also a deposit of origin QRCODE. */
  readonly records = new RecordStore()
  readonly transactions: Transactions
  readonly deposits: Deposits

  constructor(options: DomainOptions = {}) {
    this.now = options.now ?? Date.now
    this.transactions = new Transactions({records: this.records, now: this.now, scheduler: this.scheduler, autoPayMs: options.autoPayMs})
    this.deposits = new Deposits(this.records, this.now)
    if (options.seedDeposits) seedDeposits(this.records, options.seedDeposits, this.now())
  }

  /** Stops every timer (auto-pay, deliveries in wait). */
  dispose(): void {
    this.scheduler.dispose()
  }
}
