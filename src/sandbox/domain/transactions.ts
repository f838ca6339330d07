import {randomUUID} from 'node:crypto'

import type {Transaction} from '../../api/types.js'
import {LIMITS} from '../../schemas/enums.js'
import type {CreateTransactionBody} from '../../schemas/transaction.js'
import {newRecord} from './build.js'
import {Conflict, NotFound} from './errors.js'
import {brCode, qrPngDataUri, txidFor} from './fixtures.js'
import {digestOf, IdempotencyIndex} from './idempotency.js'
import {transition, withStatuses, type Action, type TransitionOptions} from './lifecycle.js'
import type {RecordStore} from './records.js'
import type {Scheduler} from './scheduler.js'

export interface TransactionsOptions {
  records: RecordStore
  now: () => number
  scheduler: Scheduler
  /** Pay every new QR code after this many milliseconds. */
  autoPayMs?: number
  /** Called after each step of a record's life. */
  changed: (data: Readonly<Transaction>) => void
}

/** PIX transactions: creation with idempotent replays, lookup, and the steps of their life. */
export class Transactions {
  private readonly records: RecordStore
  private readonly now: () => number
  private readonly byKey = new IdempotencyIndex<Readonly<Transaction>>('transaction', (data) => data.id)

  constructor(private readonly options: TransactionsOptions) {
    this.records = options.records
    this.now = options.now
  }

  /**
   * Creates the transaction of a checked request, or answers the one its idempotency key made
   * (Invalid when the key came with another body). A replay that arrives while the first request
   * is still drawing its QR code waits for it instead of making a second record.
   */
  async create(request: CreateTransactionBody): Promise<{data: Readonly<Transaction>; replayed: boolean}> {
    const {value, replayed} = await this.byKey.run(request.idempotencyKey, digestOf(request), () => this.make(request))
    if (!replayed && this.options.autoPayMs !== undefined) this.scheduleAutoPay(value.id, this.options.autoPayMs)
    return {data: value, replayed}
  }

  /**
   * Makes the record. It starts PENDING when the request arrives and moves to PIX_QRCODE_GENERATED
   * once the QR image is drawn, so PENDING lasts as long as that took.
   */
  private async make(request: CreateTransactionBody): Promise<Readonly<Transaction>> {
    const createdAtMs = this.now()
    const id = randomUUID()
    const pending = newRecord({id, amount: request.amount, createdAtMs, statuses: ['PENDING'], request})
    const uri = brCode(request.amount, txidFor(id))
    const qrCodeBase64 = await qrPngDataUri(uri)
    const expirationSeconds = request.pix?.expirationSeconds ?? LIMITS.expirationSeconds.default
    const data: Transaction = {
      ...withStatuses(pending, ['PIX_QRCODE_GENERATED'], this.now()),
      pixResponse: {uri, qrCodeBase64, expirationDate: new Date(createdAtMs + expirationSeconds * 1000).toISOString()},
    }
    return this.records.insert({id, origin: 'QRCODE', createdAtMs, data: Object.freeze(data)}).data
  }

  /** The record as stored now (NotFound for an unknown id). */
  stored(id: string): Readonly<Transaction> {
    const entry = this.records.get(id)
    if (!entry) throw new NotFound(`no transaction with id ${id}`)
    return entry.data
  }

  /** The record for a lookup. Seeded records carry the BR Code only: its image is drawn the first time. */
  async get(id: string): Promise<Readonly<Transaction>> {
    const stored = this.stored(id)
    const pix = stored.pixResponse
    if (!pix || pix.qrCodeBase64) return stored
    const qrCodeBase64 = await qrPngDataUri(pix.uri)
    return this.records.update(id, (data) => ({...data, pixResponse: {uri: pix.uri, expirationDate: pix.expirationDate, qrCodeBase64}}))!.data
  }

  /** Moves a record one step of its life (Conflict when its status does not allow the step). */
  act(id: string, action: Action, options: TransitionOptions = {}): Readonly<Transaction> {
    const entry = this.records.update(id, (data) => transition(data, action, this.now(), options))
    if (!entry) throw new NotFound(`no transaction with id ${id}`)
    this.options.changed(entry.data)
    return entry.data
  }

  /** Pays the record later, unless it was moved meanwhile (a failed QR code stays failed). */
  private scheduleAutoPay(id: string, ms: number): void {
    this.options.scheduler.later(ms, () => {
      try {
        this.act(id, 'pay')
      } catch (error) {
        if (!(error instanceof Conflict)) throw error
      }
    })
  }
}
