import {Deposits} from './deposits.js'
import {Notifications, type Courier} from './notifications.js'
import {RecordStore} from './records.js'
import {Scheduler} from './scheduler.js'
import {seedDeposits, seedReconcile, type ExpectedSeed} from './seed.js'
import {Transactions} from './transactions.js'
import {lookupView} from './views.js'
import {Withdrawals, withdrawalView} from './withdrawals.js'

export interface DomainOptions {
  now?: () => number
  /** Pay every new QR code after this many milliseconds. */
  autoPayMs?: number
  /** Fill this many varied deposits at once. */
  seedDeposits?: number
  /** Seed this many expected charges of the last 20 hours and their deposits, for reconciling (see seedReconcile). */
  seedReconcile?: number
  /** Carries notifications to their webhook URLs. Without one, every delivery ends in ERROR. */
  courier?: Courier
}

/** The courier of a domain that delivers nothing. */
const NO_COURIER: Courier = {
  deliver: async () => ({outcome: 'ERROR', error: 'no courier: this sandbox delivers no notifications'}),
  close: async () => {},
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
  readonly withdrawals: Withdrawals
  readonly notifications: Notifications
  /** The rows of the expected file that matches the deposits of seedReconcile (empty without it). */
  readonly expectedSeeds: ExpectedSeed[] = []

  constructor(options: DomainOptions = {}) {
    const now = options.now ?? Date.now
    this.now = now
    const notifications = new Notifications(options.courier ?? NO_COURIER, now)
    this.notifications = notifications
    this.transactions = new Transactions({
      records: this.records,
      now,
      scheduler: this.scheduler,
      autoPayMs: options.autoPayMs,
      changed(data) {
        if (data.webhookUrl) notifications.statusChanged('transaction', data.id, data.status, data.webhookUrl, {...lookupView(data, now())})
      },
    })
    this.deposits = new Deposits(this.records, now)
    this.withdrawals = new Withdrawals({
      now,
      changed(withdrawal) {
        if (withdrawal.webhookUrl) {
          notifications.statusChanged('withdrawal', withdrawal.id, withdrawal.status, withdrawal.webhookUrl, {...withdrawalView(withdrawal, now())})
        }
      },
    })
    if (options.seedDeposits) seedDeposits(this.records, options.seedDeposits, now())
    if (options.seedReconcile) this.expectedSeeds = seedReconcile(this.records, options.seedReconcile, now())
  }

  /** Stops every timer (auto-pay) and every delivery. */
  async dispose(): Promise<void> {
    this.scheduler.dispose()
    await this.notifications.dispose()
  }
}
