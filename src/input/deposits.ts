import type {DepositListQuery} from '../api/gateway.js'
import {UsageError} from '../cli/errors.js'
import {startOfDay} from '../output/time.js'
import {DEPOSIT_ORIGINS, DEPOSIT_STATUSES} from '../schemas/enums.js'
import {buildFromFlags, type FlagTable} from './fields.js'
import {requireCents} from './money.js'

const RELATIVE = /^(\d+)\s*(m|h|d|w)$/i
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/
const UNIT_MS: Record<string, number> = {m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000}

export interface DateContext {
  now: number
  /** The operator's IANA time zone (TZ), for a bare date. */
  zone?: string
}

/**
 * Reads --from / --to: an ISO date-time is kept as written; a relative `24h`, `7d`, `30m` or `2w`
 * means that long before now; a bare date (2026-11-20) is the start of that day in the operator's
 * time zone, or with `end` its last millisecond. What is sent is always an ISO date-time.
 */
export function resolveDate(input: string, context: DateContext, end = false): string {
  const text = input.trim()
  const relative = RELATIVE.exec(text)
  if (relative) return new Date(context.now - Number(relative[1]) * UNIT_MS[relative[2].toLowerCase()]).toISOString()
  const day = DAY.exec(text)
  if (day) {
    const [year, month, date] = [Number(day[1]), Number(day[2]), Number(day[3])]
    const start = startOfDay(year, month, date, context.zone)
    const check = new Date(Date.UTC(year, month - 1, date))
    if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== date) return text
    return new Date(end ? startOfDay(year, month, date + 1, context.zone) - 1 : start).toISOString()
  }
  return text
}

function positiveInteger(text: string, flag: string): number {
  if (!/^\s*\d+\s*$/.test(text) || Number(text) < 1) throw new UsageError(`${flag} must be a positive integer, got "${text}"`)
  return Number(text)
}

/** Upper case for enum flags, so `--status paid` is PAID; a value given twice (in any case) counts once. */
export const upper = (texts: string[]) => [...new Set(texts.map((text) => text.trim().toUpperCase()))]

/** `deposits list` (and `deposits summary`): each filter flag and the query field it sets. */
export function depositFilterFields(dates: DateContext): FlagTable {
  return [
    {
      flag: 'status',
      path: 'status',
      description: `Deposit status, any case. Repeatable. One of ${DEPOSIT_STATUSES.join(', ')}.`,
      multiple: true,
      parseAll: upper,
    },
    {flag: 'origin', path: 'depositOrigin', description: `Deposit origin, any case. Repeatable. One of ${DEPOSIT_ORIGINS.join(', ')}.`, multiple: true, parseAll: upper},
    {
      flag: 'from',
      path: 'startDate',
      description: 'Created at or after: an ISO date-time, a date (the start of that day in your time zone), or 30m/24h/7d/2w ago.',
      parse: (text) => resolveDate(text, dates),
    },
    {
      flag: 'to',
      path: 'endDate',
      description: 'Created at or before: an ISO date-time, a date (the end of that day in your time zone), or 30m/24h/7d/2w ago.',
      parse: (text) => resolveDate(text, dates, true),
    },
    {flag: 'min-amount', path: 'minAmount', description: 'Smallest amount, integer cents.', helpValue: '<cents>', parse: requireCents},
    {flag: 'max-amount', path: 'maxAmount', description: 'Largest amount, integer cents.', helpValue: '<cents>', parse: requireCents},
  ]
}

/** The paging flags of `deposits list`. */
export const DEPOSIT_PAGE_FIELDS: FlagTable = [
  {flag: 'page', path: 'page', description: 'Page to show (default 1).', helpValue: '<n>', parse: positiveInteger},
  {flag: 'per-page', path: 'perPage', description: 'Deposits per page, 1 to 100 (default 20; 100 with --all).', helpValue: '<n>', parse: positiveInteger},
  {flag: 'snapshot', path: 'snapshot', description: 'Snapshot of an earlier first page, to page through the same set.'},
]

export function depositFields(dates: DateContext): FlagTable {
  return [...depositFilterFields(dates), ...DEPOSIT_PAGE_FIELDS]
}

/** One page's size when none is given; every page of an export's, fewer and larger round trips. */
export const PER_PAGE = 20
export const PER_PAGE_ALL = 100

/** Builds the deposit query from the flags; page defaults to 1, perPage to 20 (100 for `all`). */
export function buildDepositQuery(
  flags: Record<string, unknown>,
  dates: DateContext,
  options: {all?: boolean} = {},
): {query: DepositListQuery; table: FlagTable; fromFlags: Set<string>} {
  const table = depositFields(dates)
  const {body, fromFlags} = buildFromFlags(table, flags)
  const query = {page: 1, perPage: options.all ? PER_PAGE_ALL : PER_PAGE, ...body} as DepositListQuery
  return {query, table, fromFlags}
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
  context: {bin: string; profile?: string; baseUrl?: string; output?: string},
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
  words.push('--per-page', String(query.perPage ?? PER_PAGE))
  if (query.snapshot) words.push('--snapshot', query.snapshot)
  words.push('--page', String(page))
  // What shaped this page's output shapes the next one's.
  if (context.output) words.push('--output', context.output)
  return words.map(shellQuote).join(' ')
}
