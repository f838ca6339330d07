import {z} from 'zod'

import {LIMITS, NOTIFICATION_STATUSES} from './enums.js'
import {checkWith, dateTime, destinationUrl, parseDateTime, type Issue} from './rules.js'

/**
 * POST /dispatcher/request/resend: redeliver stored notifications, chosen by reference id or by
 * a date range, narrowed by status and tags. One contract for the CLI and the sandbox.
 */

/** Ids and tags are printable text: a line break, an escape sequence or a bidi override is never part of one. */
const printable = (value: string) => !/[\p{Cc}\p{Cf}]/u.test(value)

const fields = {
  startDate: dateTime().optional(),
  endDate: dateTime().optional(),
  referenceId: z.string({error: 'must be a text'}).min(1, {error: 'must not be empty'}).refine(printable, {error: 'must not hold control characters'}).optional(),
  status: z
    .array(z.enum(NOTIFICATION_STATUSES, {error: `must be one of ${NOTIFICATION_STATUSES.join(', ')}`}), {
      error: `must be a list of ${NOTIFICATION_STATUSES.join(', ')}`,
    })
    .min(1, {error: 'must not be empty'})
    .optional(),
  tags: z
    .array(z.string({error: 'must be a text'}).min(1, {error: 'must not be empty'}).refine(printable, {error: 'must not hold control characters'}), {
      error: 'must be a list of texts',
    })
    .min(1, {error: 'must not be empty'})
    .max(LIMITS.resendTags.max, {error: `must hold at most ${LIMITS.resendTags.max} tags`})
    .optional(),
  overrideURL: destinationUrl().optional(),
}

/** The body as the gateway reads it: unknown fields are ignored. */
export const resendSchema = z.object(fields)

/** The same body as the CLI sends it: an unknown field is a typo, and refused. */
export const resendStrictSchema = z.strictObject(fields)

export type ResendBody = z.infer<typeof resendSchema>

/**
 * A refused resend: `combination` when the body is not exactly one of the two combinations
 * (referenceId alone, or startDate with endDate: the gateway answers 400), `fields` when a field
 * breaks a rule (422).
 */
export type ResendChecked = {ok: true; value: ResendBody} | {ok: false; problem: 'combination' | 'fields'; issues: Issue[]}

/** Which of the two combinations the body carries, or what is wrong with it. A null counts as given. */
function combinationIssue(body: Record<string, unknown>): Issue | undefined {
  const given = (key: string) => body[key] !== undefined
  const dates = [given('startDate'), given('endDate')]
  if (given('referenceId')) {
    return dates.some(Boolean) ? {path: '(body)', message: 'must carry referenceId, or startDate and endDate, not both'} : undefined
  }
  if (dates.every(Boolean)) return undefined
  if (dates.some(Boolean)) return {path: dates[0] ? 'endDate' : 'startDate', message: 'is required with ' + (dates[0] ? 'startDate' : 'endDate')}
  return {path: '(body)', message: 'must carry referenceId, or startDate and endDate'}
}

/**
 * Checks a resend body: first the combination, then every field rule, a date in the future
 * (after `nowMs`) and a startDate after endDate.
 */
export function checkResend(body: unknown, options: {nowMs: number; strict?: boolean}): ResendChecked {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    return {ok: false, problem: 'combination', issues: [{path: '(body)', message: 'must be a JSON object'}]}
  }
  const combination = combinationIssue(body as Record<string, unknown>)
  if (combination) return {ok: false, problem: 'combination', issues: [combination]}
  const result = checkWith(options.strict ? resendStrictSchema : resendSchema, body)
  const issues: Issue[] = result.ok ? [] : [...result.issues]
  const raw = body as Record<string, unknown>
  const valid = (key: 'startDate' | 'endDate') => typeof raw[key] === 'string' && !issues.some((issue) => issue.path === key)
  for (const key of ['startDate', 'endDate'] as const) {
    if (valid(key) && parseDateTime(raw[key] as string) > options.nowMs) issues.push({path: key, message: 'must not be in the future'})
  }
  if (valid('startDate') && valid('endDate') && parseDateTime(raw.startDate as string) > parseDateTime(raw.endDate as string)) {
    issues.push({path: 'startDate', message: 'must not be after endDate'})
  }
  return result.ok && issues.length === 0 ? {ok: true, value: result.value} : {ok: false, problem: 'fields', issues}
}
