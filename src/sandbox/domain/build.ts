import type {DocumentValue, PixResponse, Transaction} from '../../api/types.js'
import {LIMITS, type DepositStatus} from '../../schemas/enums.js'
import {documentKind} from '../../schemas/rules.js'
import type {CreateTransactionBody} from '../../schemas/transaction.js'
import {ACQUIRER, brCode, txidFor, type Random} from './fixtures.js'
import {applyAction, enterStatuses, type Action} from './lifecycle.js'
import type {RecordEntry} from './records.js'

/**
 * The one place where transaction and deposit records are made: by a create request, by a
 * deposit received through the PIX key, and by seeding.
 */

export type Origin = RecordEntry['origin']

/** The QR code's lifetime when the create request names none (the reference's default). */
export const QR_LIFETIME_MS = LIMITS.expirationSeconds.default * 1000

/** A document as the record keeps it: plain characters and its kind. */
function storedDocument(document: string): DocumentValue {
  return {value: document.replace(/[^0-9A-Za-z]/g, '').toUpperCase(), type: documentKind(document)}
}

export interface NewRecord {
  id: string
  amount: number
  createdAtMs: number
  /** The statuses it is created with, in order; the last is its status. */
  statuses: readonly DepositStatus[]
  /** The accepted create request it comes from, if any: its fields are kept as sent. */
  request?: CreateTransactionBody
}

/**
 * A new record, with the fields a request gave it. Fields that are absent are left out of the
 * object rather than set to undefined: records are many, and smaller objects are cheaper.
 */
export function newRecord(spec: NewRecord): Transaction {
  const at = new Date(spec.createdAtMs).toISOString()
  const request = spec.request
  const record: Partial<Transaction> = {id: spec.id, acquirerCode: ACQUIRER.code, acquirer: ACQUIRER.name, amount: spec.amount, paymentMethod: 'PIX'}
  if (request?.webhookUrl !== undefined) record.webhookUrl = request.webhookUrl
  if (request?.externalCode !== undefined) record.externalCode = request.externalCode
  if (request?.customer) record.customer = {...request.customer, document: storedDocument(request.customer.document)}
  if (request?.seller) record.seller = {...request.seller, document: storedDocument(request.seller.document)}
  record.isInfoProduct = request?.isInfoProduct ?? true
  if (request?.address) record.address = request.address
  if (request?.items) record.items = request.items.map((item) => ({...item, quantity: item.quantity ?? LIMITS.quantity.default}))
  if (request?.metadata) record.metadata = request.metadata
  record.createdAt = at
  record.status = spec.statuses.at(-1)!
  record.statusHistory = spec.statuses.map((status) => ({status, date: at, durationInMilliseconds: 0}))
  record.updatedAt = at
  return record as Transaction
}

/**
 * How a record comes to be in each status after its creation: the life-cycle actions it goes
 * through, then a status it waits in. Going through `transition` gives every status the fields
 * its history implies (payer, endToEnd, receipts, refund fields...).
 */
const PATHS: Record<DepositStatus, {actions: Action[]; waitIn?: DepositStatus}> = {
  PENDING: {actions: []},
  PIX_QRCODE_GENERATED: {actions: []},
  DEPOSIT_PIXKEY_GENERATED: {actions: []},
  PENDING_COMPLIANCE: {actions: [], waitIn: 'PENDING_COMPLIANCE'},
  PAID: {actions: ['pay']},
  PROCESSING_REFUND: {actions: ['pay'], waitIn: 'PROCESSING_REFUND'},
  PROCESSING_INFRACTION: {actions: ['pay'], waitIn: 'PROCESSING_INFRACTION'},
  REFUNDED: {actions: ['pay', 'refund']},
  INFRACTION: {actions: ['pay', 'infraction']},
  BLOCKED: {actions: ['pay', 'block']},
  FAILED: {actions: ['fail']},
}

/** The statuses a new record passes through at once, as POST /core/transaction makes them. */
export const CREATED: Record<Origin, readonly DepositStatus[]> = {QRCODE: ['PENDING', 'PIX_QRCODE_GENERATED'], PIX_KEY: ['DEPOSIT_PIXKEY_GENERATED']}

/**
 * The statuses a record wanted in `status` is created with: its origin's, cut at `status` when
 * that is one of them; just `status` when that is another status a record only starts in (a
 * PIX-key deposit asked for in PENDING).
 */
function createdWith(origin: Origin, status: DepositStatus): readonly DepositStatus[] {
  const created = CREATED[origin]
  const index = created.indexOf(status)
  if (index !== -1) return created.slice(0, index + 1)
  const path = PATHS[status]
  return path.actions.length === 0 && !path.waitIn ? [status] : created
}

/**
 * The PIX data of a record made in a given status. Its BR Code is made the first time it is read
 * (a page of deposits, a lookup) and then kept: making it for 100,000 seeds at start-up would be
 * a quarter of the seeding's time, for codes most of which nobody reads. One small object per
 * record, which JSON sees as {uri, expirationDate}.
 */
class SeededPixResponse implements PixResponse {
  #uri?: string

  constructor(
    private readonly amount: number,
    private readonly id: string,
    readonly expirationDate: string,
  ) {}

  get uri(): string {
    this.#uri ??= brCode(this.amount, txidFor(this.id))
    return this.#uri
  }

  toJSON(): PixResponse {
    return {uri: this.uri, expirationDate: this.expirationDate}
  }
}

export interface RecordInStatus {
  id: string
  origin: Origin
  amount: number
  status: DepositStatus
  createdAtMs: number
  /** The time of each next step of its life, never before the previous one. */
  nextStepMs: () => number
  random?: Random
}

/**
 * A record already in the given status, with every field its history implies. A QRCODE one
 * carries a real BR Code but no PNG: the deposit list leaves the image out, and drawing it would
 * cost a thousand times more than the code itself (the lookup draws it when first asked).
 */
export function recordIn(spec: RecordInStatus): Transaction {
  const draft = newRecord({id: spec.id, amount: spec.amount, createdAtMs: spec.createdAtMs, statuses: createdWith(spec.origin, spec.status)})
  if (spec.origin === 'QRCODE') {
    draft.pixResponse = new SeededPixResponse(spec.amount, spec.id, new Date(spec.createdAtMs + QR_LIFETIME_MS).toISOString())
  }
  const path = PATHS[spec.status]
  for (const action of path.actions) applyAction(draft, action, spec.nextStepMs(), {random: spec.random})
  if (path.waitIn) enterStatuses(draft, [path.waitIn], spec.nextStepMs())
  return draft
}
