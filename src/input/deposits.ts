import type {DepositListQuery} from '../api/gateway.js'
import {requireCents} from '../render/money.js'

export interface DepositFlags {
  status?: string[]
  origin?: string[]
  from?: string
  to?: string
  'min-amount'?: string
  'max-amount'?: string
  page?: number
  'per-page'?: number
  snapshot?: string
}

/** Query field → the flag that sets it, to name flags in messages. */
export const DEPOSIT_FLAG_OF: Record<string, string> = {
  status: '--status',
  depositOrigin: '--origin',
  startDate: '--from',
  endDate: '--to',
  minAmount: '--min-amount',
  maxAmount: '--max-amount',
  page: '--page',
  perPage: '--per-page',
  snapshot: '--snapshot',
}

const RELATIVE = /^(\d+)\s*(m|h|d|w)$/i
const UNIT_MS: Record<string, number> = {m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000}

/**
 * Reads --from / --to: an ISO date-time is kept as written; a relative `24h`, `7d`, `30m` or `2w`
 * means that long before `now`, sent as an ISO date-time (the gateway takes only those).
 */
export function resolveDate(input: string, now: number = Date.now()): string {
  const relative = RELATIVE.exec(input.trim())
  if (!relative) return input.trim()
  return new Date(now - Number(relative[1]) * UNIT_MS[relative[2].toLowerCase()]).toISOString()
}

const amount = (value: string | undefined, flag: string) => (value === undefined ? undefined : requireCents(value, flag))

/** Builds the deposit query from the flags; page and perPage default to 1 and 20 (decisions.md). */
export function buildDepositQuery(flags: DepositFlags, now: number = Date.now()): DepositListQuery {
  return {
    status: flags.status?.length ? flags.status : undefined,
    depositOrigin: flags.origin?.length ? flags.origin : undefined,
    startDate: flags.from === undefined ? undefined : resolveDate(flags.from, now),
    endDate: flags.to === undefined ? undefined : resolveDate(flags.to, now),
    minAmount: amount(flags['min-amount'], '--min-amount'),
    maxAmount: amount(flags['max-amount'], '--max-amount'),
    page: flags.page ?? 1,
    perPage: flags['per-page'] ?? 20,
    snapshot: flags.snapshot,
  }
}

/** Quotes a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

/**
 * The exact command for another page of the same snapshot: the same filters (relative dates
 * already resolved, since the snapshot is bound to the values it was made with), perPage and snapshot.
 */
export function pageCommand(
  query: DepositListQuery,
  page: number,
  context: {bin: string; profile?: string; baseUrl?: string},
): string {
  const words = [context.bin, 'deposits', 'list']
  if (context.profile && context.profile !== 'default') words.push('--profile', context.profile)
  if (context.baseUrl) words.push('--base-url', context.baseUrl)
  for (const status of query.status ?? []) words.push('--status', status)
  for (const origin of query.depositOrigin ?? []) words.push('--origin', origin)
  if (query.startDate) words.push('--from', query.startDate)
  if (query.endDate) words.push('--to', query.endDate)
  if (query.minAmount !== undefined) words.push('--min-amount', String(query.minAmount))
  if (query.maxAmount !== undefined) words.push('--max-amount', String(query.maxAmount))
  words.push('--per-page', String(query.perPage ?? 20))
  if (query.snapshot) words.push('--snapshot', query.snapshot)
  words.push('--page', String(page))
  return words.map(shellQuote).join(' ')
}
