/**
 * The gateway's enums and limits, as the reference documents them. No runtime dependencies, so
 * the CLI can read them at start-up for free; the zod schemas beside this file build on them.
 */

export const TRANSACTION_STATUSES = [
  'PENDING',
  'PIX_QRCODE_GENERATED',
  'PAID',
  'PROCESSING_REFUND',
  'PROCESSING_INFRACTION',
  'REFUNDED',
  'INFRACTION',
  'FAILED',
  'BLOCKED',
] as const
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number]

export const DEPOSIT_STATUSES = [...TRANSACTION_STATUSES, 'DEPOSIT_PIXKEY_GENERATED', 'PENDING_COMPLIANCE'] as const
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number]

/** Statuses a record never leaves (for `tx get --watch`). PAID is not one: a payment can be refunded. */
export const FINAL_STATUSES = ['FAILED', 'REFUNDED', 'INFRACTION', 'BLOCKED'] as const

/**
 * Where a transaction can go next from each status: the life cycle the sandbox emulates (a QR code
 * is paid or fails; a payment is refunded, disputed or blocked). A watch uses it to stop as soon
 * as the awaited status can no longer be reached.
 */
export const NEXT_STATUSES: Record<TransactionStatus, readonly TransactionStatus[]> = {
  PENDING: ['PIX_QRCODE_GENERATED', 'PAID', 'FAILED'],
  PIX_QRCODE_GENERATED: ['PAID', 'FAILED'],
  PAID: ['PROCESSING_REFUND', 'PROCESSING_INFRACTION', 'BLOCKED'],
  PROCESSING_REFUND: ['REFUNDED'],
  PROCESSING_INFRACTION: ['INFRACTION'],
  REFUNDED: [],
  INFRACTION: [],
  FAILED: [],
  BLOCKED: [],
}

/** Whether a record in `from` can still come to be in `to` (itself included). */
export function canReach(from: string, to: string): boolean {
  const seen = new Set<string>()
  const queue = [from]
  while (queue.length > 0) {
    const status = queue.shift()!
    if (status === to) return true
    if (seen.has(status)) continue
    seen.add(status)
    queue.push(...(NEXT_STATUSES[status as TransactionStatus] ?? []))
  }
  return false
}

export const DEPOSIT_ORIGINS = ['QRCODE', 'PIX_KEY'] as const
export type DepositOrigin = (typeof DEPOSIT_ORIGINS)[number]

export const PAYMENT_METHODS = ['PIX'] as const

/** The DICT's key types: the values of a withdrawal's pixKeyType. */
export const PIX_KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP'] as const
export type PixKeyType = (typeof PIX_KEY_TYPES)[number]

/** A withdrawal starts PENDING (the only status the reference shows) and settles PAID or FAILED. */
export const WITHDRAWAL_STATUSES = ['PENDING', 'PAID', 'FAILED'] as const
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number]

/** A notification's delivery: stored (RECEIVED), then answered 2xx (SENT), answered otherwise (FAILED), or not reached (ERROR). */
export const NOTIFICATION_STATUSES = ['RECEIVED', 'SENT', 'FAILED', 'ERROR'] as const
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number]

/** What a notification reports on. */
export const NOTIFICATION_KINDS = ['transaction', 'withdrawal'] as const
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number]

export const LIMITS = {
  amount: {min: 1, max: 10_000_000},
  code: {min: 8, max: 255},
  quantity: {min: 1, max: 100, default: 1},
  expirationSeconds: {min: 60, max: 86_400, default: 1800},
  title: {min: 2, max: 150},
  description: {min: 2, max: 255},
  perPage: {min: 1, max: 100, default: 20},
  /** An EMAIL PIX key (the DICT's bound). */
  emailKey: {max: 77},
  /** Tags of one resend request. */
  resendTags: {max: 10},
  address: {
    complement: {min: 2, max: 150},
    number: {min: 1, max: 10},
    street: {min: 2, max: 200},
    neighborhood: {min: 2, max: 100},
    city: {min: 2, max: 100},
    state: {min: 2, max: 50},
    country: {min: 2, max: 60},
  },
} as const

/**
 * The header of an answer that replays an earlier request with the same idempotencyKey (create
 * transaction, withdraw): `Idempotent-Replayed: true`. The sandbox's own convention.
 */
export const REPLAY_HEADER = 'idempotent-replayed'

/**
 * Ids of transactions are UUIDs: anything else is refused before it is sent (and 422 by the gateway).
 * Either case, spelled out: V8 takes some 0.1 ms more to compile the same pattern with the `i` flag.
 */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/** The longest wait a timer can hold: 2^31-1 ms (Node fires a longer one at once). */
export const MAX_TIMER_MS = 2 ** 31 - 1
