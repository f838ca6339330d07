import {z} from 'zod'

import {checkWith, dateTime, enumList, parseDateTime, webhookUrl, type Issue} from '../schemas/rules.js'
import {resolveDate, type DateContext} from './deposits.js'
import {buildFromFlags, type Built, type FlagTable} from './fields.js'

export const NOTIFICATION_STATUSES = ['RECEIVED', 'SENT', 'FAILED', 'ERROR'] as const
export const MAX_RESEND_TAGS = 10

const upper = (texts: string[]) => texts.map((value) => value.trim().toUpperCase())

/** `webhooks resend`: each flag and the body field it sets. */
export function resendFields(dates: DateContext): FlagTable {
  return [
    {
      flag: 'from',
      path: 'startDate',
      description: 'Notifications created at or after: an ISO date-time, a date (its start in your time zone), or 30m/24h/7d/2w ago.',
      parse: (value) => resolveDate(value, dates),
    },
    {
      flag: 'to',
      path: 'endDate',
      description: 'Notifications created at or before: an ISO date-time, a date (its end in your time zone), or 30m/24h/7d/2w ago (default: now, with --from).',
      parse: (value) => resolveDate(value, dates, true),
    },
    {flag: 'reference-id', path: 'referenceId', description: 'One notification\'s id, or the id of the transaction or withdrawal whose notifications to resend.'},
    {
      flag: 'status',
      path: 'status',
      description: `Only notifications in this status, any case. Repeatable. One of ${NOTIFICATION_STATUSES.join(', ')}.`,
      multiple: true,
      parseAll: upper,
    },
    {flag: 'tag', path: 'tags', description: `Only notifications with this tag (any of those given). Repeatable, at most ${MAX_RESEND_TAGS}.`, multiple: true},
    {flag: 'override-url', path: 'overrideURL', description: 'Deliver this resend to this HTTPS URL instead of each notification\'s own.', helpValue: '<url>'},
  ]
}

const resendSchema = z.strictObject({
  startDate: dateTime().optional(),
  endDate: dateTime().optional(),
  referenceId: z.string({error: 'must be an id'}).refine((value) => value.trim().length > 0, {error: 'must not be empty'}).optional(),
  status: enumList(NOTIFICATION_STATUSES).optional(),
  tags: z
    .array(z.string({error: 'must be a text'}).refine((value) => value.trim().length > 0, {error: 'must not be empty'}), {error: 'must be a list of tags'})
    .refine((list) => list.length > 0, {error: 'must not be empty', abort: true})
    .refine((list) => list.length <= MAX_RESEND_TAGS, {error: `must hold at most ${MAX_RESEND_TAGS} tags`})
    .optional(),
  overrideURL: webhookUrl().optional(),
})

export type ResendBody = z.infer<typeof resendSchema>

export interface PreparedResend extends Built {
  value?: ResendBody
  issues: Issue[]
  /** Said to the operator: a choice the CLI made (--to defaulting to now). */
  notes: string[]
}

/**
 * Builds the resend body from the flags and checks it offline: exactly one of the two selections
 * (a date range, or a reference id), no date in the future, --from not after --to, the statuses,
 * at most ten tags, and an https override URL. `--from` alone ends the range now.
 */
export function prepareResend(flags: Record<string, unknown>, dates: DateContext): PreparedResend {
  const built = buildFromFlags(resendFields(dates), flags)
  const {body} = built
  const notes: string[] = []
  const issues: Issue[] = []
  const byDate = body.startDate !== undefined || body.endDate !== undefined
  if (byDate && body.referenceId !== undefined) {
    issues.push({path: '', message: 'choose one selection: --reference-id, or a date range with --from/--to, not both'})
  } else if (!byDate && body.referenceId === undefined) {
    issues.push({path: '', message: 'say which notifications to resend: --reference-id ID, or a date range with --from (and --to, default now)'})
  } else if (byDate && body.startDate === undefined) {
    issues.push({path: 'startDate', message: 'is required with --to: the range needs its start'})
  } else if (byDate && body.endDate === undefined) {
    body.endDate = new Date(Math.floor(dates.now / 1000) * 1000).toISOString()
    notes.push(`--to defaults to now: ${body.endDate}`)
  }
  const checked = checkWith(resendSchema, body)
  if (!checked.ok) issues.push(...checked.issues)
  const valid = (key: 'startDate' | 'endDate') => typeof body[key] === 'string' && !issues.some((issue) => issue.path === key)
  for (const key of ['startDate', 'endDate'] as const) {
    if (valid(key) && parseDateTime(body[key] as string) > dates.now) {
      issues.push({path: key, message: `must not be in the future: ${body[key]} is after now (${new Date(dates.now).toISOString()})`})
    }
  }
  if (valid('startDate') && valid('endDate') && parseDateTime(body.startDate as string) > parseDateTime(body.endDate as string)) {
    issues.push({path: 'startDate', message: `must not be after --to: ${body.startDate} is after ${body.endDate}`})
  }
  return {...built, notes, issues, value: issues.length === 0 && checked.ok ? checked.value : undefined}
}
