import type {DepositListQuery} from '../api/gateway.js'
import {UsageError} from '../cli/errors.js'
import {DEPOSIT_ORIGINS, DEPOSIT_STATUSES} from '../schemas/enums.js'
import {DATE_FORMS, type DateContext, resolveDate} from './dates.js'
import {buildFromFlags, type FlagTable} from './fields.js'
import {anyCaseOptions} from './options.js'
import {requireCents} from './money.js'

export {resolveDate, type DateContext} from './dates.js'

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
      options: anyCaseOptions(DEPOSIT_STATUSES),
      parseAll: upper,
    },
    {
      flag: 'origin',
      path: 'depositOrigin',
      description: `Deposit origin, any case. Repeatable. One of ${DEPOSIT_ORIGINS.join(', ')}.`,
      multiple: true,
      options: anyCaseOptions(DEPOSIT_ORIGINS),
      parseAll: upper,
    },
    {
      flag: 'from',
      path: 'startDate',
      description: `Created at or after: ${DATE_FORMS}. A day without a time of day is its start, in your time zone (TZ).`,
      helpValue: '<date>',
      parse: (text, flag) => resolveDate(text, dates, false, flag),
    },
    {
      flag: 'to',
      path: 'endDate',
      description: `Created at or before: ${DATE_FORMS}. A day without a time of day is its end, in your time zone (TZ).`,
      helpValue: '<date>',
      parse: (text, flag) => resolveDate(text, dates, true, flag),
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
