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

/** Appends statuses to the history, closing the current one's duration. */
export function withStatuses<T extends WithHistory>(data: Readonly<T>, statuses: readonly string[], atMs: number): T {
  const history = [...data.statusHistory]
  const at = new Date(atMs).toISOString()
  const last = history.at(-1)
  if (last) history[history.length - 1] = {...last, durationInMilliseconds: Math.max(0, atMs - Date.parse(last.date))}
  // A passing status (PROCESSING_*) is left at once: its duration stays 0.
  for (const status of statuses) history.push({status, date: at, durationInMilliseconds: 0})
  return {...data, status: statuses.at(-1)!, statusHistory: history, updatedAt: at} as T
}

/** The part of what was paid that a refund or an infraction takes: all of it unless told otherwise. */
function partOfPaid(data: Readonly<Transaction>, amount: number | undefined): number {
  const paid = data.amountPaid ?? data.amount
  if (amount !== undefined && amount > paid) throw new Invalid(`amount must not exceed the amount paid (${paid})`)
  return amount ?? paid
}

/**
 * Moves a record one step through its life, filling what the step implies. Raises Conflict for a
 * step its status does not allow, and Invalid for an amount out of bounds.
 */
export function transition(data: Readonly<Transaction>, action: Action, atMs: number, options: TransitionOptions = {}): Transaction {
  const rule = TRANSITIONS[action]
  if (!rule.from.includes(data.status)) {
    throw new Conflict(`cannot ${action} a record in status ${data.status}: ${action} applies to ${rule.from.join(', ')}`)
  }
  const next = withStatuses(data, rule.to, atMs)
  const at = next.updatedAt
  const {amount} = options
  if (amount !== undefined && (!Number.isInteger(amount) || amount < LIMITS.amount.min || amount > LIMITS.amount.max)) {
    throw new Invalid(`amount must be an integer number of cents from ${LIMITS.amount.min} to ${LIMITS.amount.max}`)
  }
  switch (action) {
    case 'pay': {
      const expiry = data.pixResponse?.expirationDate
      if (expiry && Date.parse(expiry) < atMs) throw new Conflict(`cannot pay: the QR code expired at ${expiry}`)
      const customer = data.customer
      const document = customer && (typeof customer.document === 'string' ? customer.document : customer.document.value)
      const payer = payerFor(customer ? {name: customer.name, document} : undefined, options.random)
      const paid = amount ?? data.amount
      return {
        ...next,
        amountPaid: paid,
        paymentDate: at,
        endToEnd: endToEndId(payer.bankAccount.ispb, atMs),
        payer,
        receiver,
        feeAmount: Math.max(1, Math.round(paid * 0.0099)),
        paymentReceipt: receipt(data.id, 'payment', atMs),
        errorMessage: null,
      }
    }
    case 'refund':
      return {
        ...next,
        refundAmount: partOfPaid(data, amount),
        refundDate: at,
        endToEndRefund: endToEndId(data.receiver?.bankAccount.ispb ?? receiver.bankAccount.ispb, atMs, 'D'),
        refundReceipt: receipt(data.id, 'refund', atMs),
        errorMessageRefund: null,
      }
    case 'infraction':
      return {...next, infractionAmount: partOfPaid(data, amount), infractionDate: at}
    case 'block':
      return next
    case 'fail':
      return {...next, errorMessage: options.message ?? 'the acquirer refused the payment (sandbox)'}
  }
}
