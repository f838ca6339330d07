import {z} from 'zod'

import {DEPOSIT_ORIGINS, DEPOSIT_STATUSES, LIMITS} from './enums.js'
import {cents, checkWith, dateTime, enumList, parseDateTime, type Issue} from './rules.js'
import type {Checked} from './transaction.js'

const positiveInt = () =>
  z.number({error: 'must be a positive integer'}).refine((value) => Number.isInteger(value) && value >= 1, {error: 'must be a positive integer'})

const filterFields = {
  status: enumList(DEPOSIT_STATUSES).optional(),
  depositOrigin: enumList(DEPOSIT_ORIGINS).optional(),
  startDate: dateTime().optional(),
  endDate: dateTime().optional(),
  minAmount: cents().optional(),
  maxAmount: cents().optional(),
}

export const depositQuerySchema = z.object({
  ...filterFields,
  snapshot: z.string().min(1, {error: 'must not be empty'}).optional(),
  page: positiveInt().optional(),
  perPage: positiveInt().optional(),
})

export type DepositQuery = z.infer<typeof depositQuerySchema>
export type DepositFilters = Pick<DepositQuery, keyof typeof filterFields>
export const DEPOSIT_FILTER_KEYS = Object.keys(filterFields) as Array<keyof DepositFilters>

/**
 * Checks a deposit-list query, the client's side and the gateway's alike: perPage 1..100 is
 * checked offline too, so that a page size the gateway would refuse is never sent.
 */
export function checkDepositQuery(query: unknown, _options: {side: 'client' | 'gateway'}): Checked<DepositQuery> {
  const result = checkWith(depositQuerySchema, query)
  const issues: Issue[] = result.ok ? [] : [...result.issues]
  // Rules across fields, checked whenever the fields they compare are themselves valid, so a 422
  // lists them beside any other broken rule.
  const raw = (query ?? {}) as Record<string, unknown>
  const valid = (key: keyof DepositQuery) => raw[key] !== undefined && !issues.some((issue) => issue.path === key)
  const {minAmount, maxAmount, startDate, endDate, perPage} = raw as {[K in keyof DepositQuery]?: DepositQuery[K]}
  if (valid('minAmount') && valid('maxAmount') && minAmount! > maxAmount!) {
    issues.push({path: 'minAmount', message: `must not exceed maxAmount (${minAmount} > ${maxAmount})`})
  }
  if (valid('startDate') && valid('endDate') && parseDateTime(startDate!) > parseDateTime(endDate!)) {
    issues.push({path: 'startDate', message: 'must not be after endDate'})
  }
  if (valid('perPage') && perPage! > LIMITS.perPage.max) {
    issues.push({path: 'perPage', message: `must be from ${LIMITS.perPage.min} to ${LIMITS.perPage.max}`})
  }
  return result.ok && issues.length === 0 ? {ok: true, value: result.value} : {ok: false, issues}
}
