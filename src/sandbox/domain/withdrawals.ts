import {randomUUID} from 'node:crypto'

import type {StatusHistoryEntry} from '../../api/types.js'
import type {PixKeyType, WithdrawalStatus} from '../../schemas/enums.js'
import type {WithdrawBody, WithdrawResponse} from '../../schemas/withdraw.js'
import {Conflict, NotFound} from './errors.js'
import {endToEndId, MERCHANT} from './fixtures.js'
import {digestOf, IdempotencyIndex} from './idempotency.js'
import {withStatuses} from './lifecycle.js'
import {liveHistory, maskDocument} from './views.js'

/** A withdrawal as the sandbox keeps it. The reference shows only its answer; the rest is the sandbox's own. */
export interface Withdrawal {
  id: string
  amount: number
  pixKey: string
  pixKeyType: PixKeyType
  externalCode?: string
  idempotencyKey?: string
  webhookUrl?: string
  status: WithdrawalStatus
  statusHistory: StatusHistoryEntry[]
  createdAt: string
  updatedAt: string
  /** PAID: the end-to-end id of the PIX sent. */
  endToEnd?: string
  /** FAILED: why. */
  errorMessage?: string
}

export interface WithdrawalsOptions {
  now: () => number
  /** Called after each status change. */
  changed: (withdrawal: Readonly<Withdrawal>) => void
}

/** The outcome of settling a withdrawal. */
export type Settlement = {status: 'PAID'} | {status: 'FAILED'; message?: string}

/** Withdrawals (PIX out): created PENDING, replayed by idempotency key, settled PAID or FAILED. */
export class Withdrawals {
  private readonly kept: Array<Readonly<Withdrawal>> = []
  private readonly byId = new Map<string, number>()
  private readonly byKey = new IdempotencyIndex<string>('withdrawal', (id) => id)

  constructor(private readonly options: WithdrawalsOptions) {}

  /** Creates the withdrawal of a checked request, or answers the one its key made (Invalid with another body). */
  async create(request: WithdrawBody): Promise<{data: Readonly<Withdrawal>; replayed: boolean}> {
    const {value: id, replayed} = await this.byKey.run(request.idempotencyKey, digestOf(request), () => this.make(request))
    return {data: this.get(id), replayed}
  }

  private make(request: WithdrawBody): string {
    const at = new Date(this.options.now()).toISOString()
    const withdrawal = {id: randomUUID(), amount: request.amount, pixKey: request.pixKey, pixKeyType: request.pixKeyType} as Withdrawal
    if (request.externalCode !== undefined) withdrawal.externalCode = request.externalCode
    if (request.idempotencyKey !== undefined) withdrawal.idempotencyKey = request.idempotencyKey
    if (request.webhookUrl !== undefined) withdrawal.webhookUrl = request.webhookUrl
    withdrawal.status = 'PENDING'
    withdrawal.statusHistory = [{status: 'PENDING', date: at, durationInMilliseconds: 0}]
    withdrawal.createdAt = at
    withdrawal.updatedAt = at
    this.byId.set(withdrawal.id, this.kept.length)
    this.kept.push(Object.freeze(withdrawal))
    return withdrawal.id
  }

  get(id: string): Readonly<Withdrawal> {
    const index = this.byId.get(id)
    if (index === undefined) throw new NotFound(`no withdrawal with id ${id}`)
    return this.kept[index]
  }

  /** Every withdrawal, oldest first. */
  all(): ReadonlyArray<Readonly<Withdrawal>> {
    return this.kept
  }

  /** Moves a PENDING withdrawal to PAID or FAILED (Conflict from any other status). */
  settle(id: string, settlement: Settlement): Readonly<Withdrawal> {
    const current = this.get(id)
    if (current.status !== 'PENDING') {
      throw new Conflict(`cannot settle a withdrawal in status ${current.status}: settle applies to PENDING`)
    }
    const atMs = this.options.now()
    const next = withStatuses(current, [settlement.status], atMs)
    if (settlement.status === 'PAID') next.endToEnd = endToEndId(MERCHANT.ispb, atMs)
    else next.errorMessage = settlement.message ?? 'the destination bank refused the transfer (sandbox)'
    this.kept[this.byId.get(id)!] = Object.freeze(next)
    this.options.changed(next)
    return next
  }
}

/** The answer to a withdrawal request, first or replayed: the record's id and its status now. */
export function withdrawResponse(withdrawal: Readonly<Withdrawal>): WithdrawResponse {
  const {id, externalCode, amount, status} = withdrawal
  return {id, externalCode, amount, status}
}

/**
 * The withdrawal as the sandbox shows it (its list, its notifications): a PIX key that is a
 * document masked as documents are, the current status's duration counted up to now.
 */
export function withdrawalView(withdrawal: Readonly<Withdrawal>, now: number): Withdrawal {
  const isDocument = withdrawal.pixKeyType === 'CPF' || withdrawal.pixKeyType === 'CNPJ'
  return {
    ...withdrawal,
    pixKey: isDocument ? maskDocument(withdrawal.pixKey) : withdrawal.pixKey,
    statusHistory: liveHistory(withdrawal, now),
  }
}
