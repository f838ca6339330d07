import type {StatusHistoryEntry, Transaction} from '../../api/types.js'
import {LIMITS} from '../../schemas/enums.js'
import {endToEndId, payerFor, receipt, receiver, type Random} from './fixtures.js'
import {Conflict, Invalid} from './errors.js'

export type Action = 'pay' | 'refund' | 'infraction' | 'block' | 'fail'

/** Which statuses each action applies to, and the statuses it passes through. */
export const TRANSITIONS: Record<Action, {from: readonly string[]; to: readonly string[]}> = {
  pay: {from: ['PENDING', 'PIX_QRCODE_GENERATED', 'DEPOSIT_PIXKEY_GENERATED', 'PENDING_COMPLIANCE'], to: ['PAID']},
  refund: {from: ['PAID'], to: ['PROCESSING_REFUND', 'REFUNDED']},
  infraction: {from: ['PAID'], to: ['PROCESSING_INFRACTION', 'INFRACTION']},
  block: {from: ['PAID'], to: ['BLOCKED']},
  fail: {from: ['PENDING', 'PIX_QRCODE_GENERATED', 'DEPOSIT_PIXKEY_GENERATED', 'PENDING_COMPLIANCE'], to: ['FAILED']},
}

export const ACTIONS = Object.keys(TRANSITIONS) as Action[]

export interface TransitionOptions {
  /** pay: the amount paid (default the amount); refund and infraction: the amount (default all that was paid). */
  amount?: number
  /** fail: the error message. */
  message?: string
  random?: Random
}

/** What every record with a life has: transactions, deposits, withdrawals. */
export interface WithHistory {
  status: string
  statusHistory: StatusHistoryEntry[]
  updatedAt: string
}

/**
 * Enters statuses, in place: closes the current status's duration and appends the new ones. The
 * record must be a draft whose history array is its own; the entries it shares with an earlier
 * version are replaced, never changed.
 */
export function enterStatuses(draft: WithHistory, statuses: readonly string[], atMs: number): void {
  const history = draft.statusHistory
  const at = new Date(atMs).toISOString()
  const index = history.length - 1
  if (index >= 0) {
    const last = history[index]
    history[index] = {status: last.status, date: last.date, durationInMilliseconds: Math.max(0, atMs - Date.parse(last.date))}
  }
  // A passing status (PROCESSING_*) is left at once: its duration stays 0.
  for (const status of statuses) history.push({status, date: at, durationInMilliseconds: 0})
  draft.status = statuses.at(-1)!
  draft.updatedAt = at
}

/** A new version of a record with statuses appended; the old one is left as it was. */
export function withStatuses<T extends WithHistory>(data: Readonly<T>, statuses: readonly string[], atMs: number): T {
  const next = {...data, statusHistory: data.statusHistory.slice()} as T
  enterStatuses(next, statuses, atMs)
  return next
}

/** The part of what was paid that a refund or an infraction takes: all of it unless told otherwise. */
function partOfPaid(data: Readonly<Transaction>, amount: number | undefined): number {
  const paid = data.amountPaid ?? data.amount
  if (amount !== undefined && amount > paid) throw new Invalid(`amount must not exceed the amount paid (${paid})`)
  return amount ?? paid
}

/**
 * Moves a draft one step through its life, in place, filling what the step implies. Raises
 * Conflict for a step its status does not allow, and Invalid for an amount out of bounds, before
 * changing anything. Seeding builds records with it directly: no copy per step.
 */
export function applyAction(draft: Transaction, action: Action, atMs: number, options: TransitionOptions = {}): void {
  const rule = TRANSITIONS[action]
  if (!rule.from.includes(draft.status)) {
    throw new Conflict(`cannot ${action} a record in status ${draft.status}: ${action} applies to ${rule.from.join(', ')}`)
  }
  const {amount} = options
  if (amount !== undefined && (!Number.isInteger(amount) || amount < LIMITS.amount.min || amount > LIMITS.amount.max)) {
    throw new Invalid(`amount must be an integer number of cents from ${LIMITS.amount.min} to ${LIMITS.amount.max}`)
  }
  const expiry = action === 'pay' ? draft.pixResponse?.expirationDate : undefined
  if (expiry && Date.parse(expiry) < atMs) throw new Conflict(`cannot pay: the QR code expired at ${expiry}`)
  const taken = action === 'refund' || action === 'infraction' ? partOfPaid(draft, amount) : 0
  enterStatuses(draft, rule.to, atMs)
  const at = draft.updatedAt
  switch (action) {
    case 'pay': {
      const customer = draft.customer
      const document = customer && (typeof customer.document === 'string' ? customer.document : customer.document.value)
      const payer = payerFor(customer ? {name: customer.name, document} : undefined, options.random)
      const paid = amount ?? draft.amount
      draft.amountPaid = paid
      draft.paymentDate = at
      draft.endToEnd = endToEndId(payer.bankAccount.ispb, atMs)
      draft.payer = payer
      draft.receiver = receiver
      draft.feeAmount = Math.max(1, Math.round(paid * 0.0099))
      draft.paymentReceipt = receipt(draft.id, 'payment', atMs)
      draft.errorMessage = null
      return
    }
    case 'refund':
      draft.refundAmount = taken
      draft.refundDate = at
      draft.endToEndRefund = endToEndId(draft.receiver?.bankAccount.ispb ?? receiver.bankAccount.ispb, atMs, 'D')
      draft.refundReceipt = receipt(draft.id, 'refund', atMs)
      draft.errorMessageRefund = null
      return
    case 'infraction':
      draft.infractionAmount = taken
      draft.infractionDate = at
      return
    case 'block':
      return
    case 'fail':
      draft.errorMessage = options.message ?? 'the acquirer refused the payment (sandbox)'
  }
}

/** A new version of a record moved one step through its life (see applyAction); the old one is left as it was. */
export function transition(data: Readonly<Transaction>, action: Action, atMs: number, options: TransitionOptions = {}): Transaction {
  const next: Transaction = {...data, statusHistory: data.statusHistory.slice()}
  applyAction(next, action, atMs, options)
  return next
}
