import {LIMITS, NOTIFICATION_STATUSES, UUID_PATTERN} from '../schemas/enums.js'
import type {ResendBody} from '../schemas/resend.js'
import type {Issue} from '../schemas/rules.js'
import {DATE_FORMS, resolveDate, type DateContext} from './dates.js'
import {upper} from './deposits.js'
import {buildFromFlags, type Built, type FlagTable} from './fields.js'
import {anyCaseOptions} from './options.js'


/** `webhooks resend`: each flag and the body field it sets. */
export function resendFields(dates: DateContext): FlagTable {
  return [
    {
      flag: 'from',
      path: 'startDate',
      description: `Notifications created at or after: ${DATE_FORMS}. A day without a time of day is its start, in your time zone (TZ).`,
      helpValue: '<date>',
      parse: (value, flag) => resolveDate(value, dates, false, flag),
    },
    {
      flag: 'to',
      path: 'endDate',
      description: `Notifications created at or before: ${DATE_FORMS}. A day without a time of day is its end, in your time zone (TZ). Default: now, with --from.`,
      helpValue: '<date>',
      parse: (value, flag) => resolveDate(value, dates, true, flag),
    },
    {
      flag: 'reference-id',
      path: 'referenceId',
      description: 'One notification\'s id, or the id of the transaction or withdrawal whose notifications to resend.',
      // Ids are case-insensitive: a UUID is sent in lower case.
      parse: (value) => (UUID_PATTERN.test(value) ? value.toLowerCase() : value),
    },
    {
      flag: 'status',
      path: 'status',
      description: `Only notifications in this status, any case. Repeatable. One of ${NOTIFICATION_STATUSES.join(', ')}.`,
      multiple: true,
      options: anyCaseOptions(NOTIFICATION_STATUSES),
      parseAll: upper,
    },
    {flag: 'tag', path: 'tags', description: `Only notifications with this tag (any of those given). Repeatable, at most ${LIMITS.resendTags.max}.`, multiple: true},
    {
      flag: 'override-url',
      path: 'overrideURL',
      description: 'Deliver this resend to this URL instead of each notification\'s own: https, or http on loopback.',
      helpValue: '<url>',
    },
  ]
}

/** A day without a time of day, as --to takes it (its end is the day's last millisecond). */
const isWholeDay = (text: string) => /^(?:\d{1,2}\/\d{1,2}\/\d{4}|\d{4}-\d{2}-\d{2}|today)$/i.test(text)

export interface PreparedResend extends Built {
  value?: ResendBody
  /** Each with the path of its field; an empty path is a sentence about the selection as a whole. */
  issues: Issue[]
  /** Said to the operator: a choice the CLI made (--to defaulting to now). */
  notes: string[]
}

/**
 * Builds the resend body from the flags and checks it offline against the contract: exactly one
 * of the two selections (a date range, or a reference id), no date in the future, --from not
 * after --to, the statuses, at most ten tags, the override URL. `--from` alone ends the range now.
 * The CLI says the selection and the dates in its own words, with the values it compared.
 */
export async function prepareResend(flags: Record<string, unknown>, dates: DateContext): Promise<PreparedResend> {
  const built = buildFromFlags(resendFields(dates), flags)
  const {body} = built
  const notes: string[] = []
  const byDate = body.startDate !== undefined || body.endDate !== undefined
  const selection = (message: string): PreparedResend => ({...built, notes, issues: [{path: '', message}]})
  // A mistyped value is the first thing to fix: said before which selection the flags make.
  const {checkWith} = await import('../schemas/rules.js')
  const {resendStrictSchema} = await import('../schemas/resend.js')
  const fields = checkWith(resendStrictSchema, body)
  if (!fields.ok) return {...built, notes, issues: fields.issues}
  if (byDate && body.referenceId !== undefined) {
    return selection('choose one selection: --reference-id, or a date range with --from/--to, not both')
  }
  if (!byDate && body.referenceId === undefined) {
    return selection('say which notifications to resend: --reference-id ID, or a date range with --from (and --to, default now)')
  }
  if (byDate && body.startDate === undefined) return {...built, notes, issues: [{path: 'startDate', message: 'is required with --to: the range needs its start'}]}
  if (byDate && body.endDate === undefined) {
    body.endDate = new Date(dates.now).toISOString()
    notes.push(`--to defaults to now: ${String(body.endDate)}`)
  }
  // `--to today` (or today's date) means up to now: the rest of the day has no notification yet, and the gateway takes no date in the future.
  const typedTo = typeof flags.to === 'string' ? flags.to.trim() : undefined
  if (typedTo !== undefined && isWholeDay(typedTo) && typeof body.endDate === 'string' && Date.parse(body.endDate) > dates.now) {
    body.endDate = new Date(dates.now).toISOString()
    notes.push(`--to ${typedTo} ends now: ${String(body.endDate)}`)
  }

  const {checkResend} = await import('../schemas/resend.js')
  const {parseDateTime} = await import('../schemas/rules.js')
  const checked = checkResend(body, {nowMs: dates.now, strict: true})
  if (checked.ok) return {...built, notes, issues: [], value: checked.value}
  // The contract's date rules, said with the values compared.
  const issues = checked.issues.map((issue) => {
    const value = body[issue.path]
    if ((issue.path === 'startDate' || issue.path === 'endDate') && typeof value === 'string') {
      const at = parseDateTime(value)
      if (at > dates.now) return {...issue, message: `must not be in the future: ${value} is after now (${new Date(dates.now).toISOString()})`}
      if (issue.path === 'startDate' && typeof body.endDate === 'string' && at > parseDateTime(body.endDate)) {
        return {...issue, message: `must not be after --to: ${value} is after ${body.endDate}`}
      }
    }
    return issue
  })
  return {...built, notes, issues}
}
