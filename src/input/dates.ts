import {UsageError} from '../cli/errors.js'
import {zoneOffsetMinutes} from '../output/time.js'

/**
 * The dates an operator types, read one way for every flag and file field that takes one: ISO
 * dates and date-times (a space for the T too), Brazil's DD/MM/AAAA (day first, always), `today`,
 * `yesterday`, `now`, and a time ago (`30m`, `24h`, `7d`, `2w`). A date or date-time without an
 * offset is read in the operator's time zone (TZ); what is sent is always an ISO date-time.
 */

export interface DateContext {
  now: number
  /** The operator's IANA time zone (TZ), for a date or a time of day without an offset. */
  zone?: string
}

/** What the refusal lists: every form a date flag takes. */
export const DATE_FORMS =
  'DD/MM/AAAA (27/11/2026), DD/MM/AAAA HH:MM[:SS], AAAA-MM-DD, AAAA-MM-DD HH:MM[:SS], an ISO date-time (2026-11-27T10:00:00-03:00), today, yesterday, now, or a time ago (30m, 24h, 7d, 2w)'

/** The forms of a date written in a file (a due date): no word and no time ago, which would change with the day the file is read. */
export const ABSOLUTE_DATE_FORMS = 'DD/MM/AAAA (27/11/2026), DD/MM/AAAA HH:MM[:SS], AAAA-MM-DD, AAAA-MM-DD HH:MM[:SS], or an ISO date-time (2026-11-27T10:00:00-03:00)'

const RELATIVE = /^(\d{1,9})\s*(m|h|d|w)$/i
const UNIT_MS: Record<string, number> = {m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000}
const TIME = '(\\d{1,2}):(\\d{2})(?::(\\d{2})(?:[.,](\\d{1,9}))?)?'
/** 27/11/2026, 27/11/2026 10:00, 27/11/2026 10:00:30 (one or two digits for the day and month). */
const BRAZILIAN = new RegExp(`^(\\d{1,2})/(\\d{1,2})/(\\d{4})(?:[\\sT]+${TIME})?$`)
/** 2026-11-27, 2026-11-27 10:00, 2026-11-27T10:00:00.000, with an optional offset when a time is given. */
const ISO = new RegExp(`^(\\d{4})-(\\d{2})-(\\d{2})(?:(?:T|\\s+)${TIME}\\s*(Z|[+-]\\d{2}(?::?\\d{2})?)?)?$`, 'i')

interface Civil {
  year: number
  month: number
  day: number
  time?: {hour: number; minute: number; second: number; ms: number}
  offset?: string
}

/** The instant a wall-clock time of a zone names, as epoch milliseconds (right across a change of offset too). */
export function zonedInstant(civil: Required<Pick<Civil, 'year' | 'month' | 'day'>> & Partial<NonNullable<Civil['time']>>, zone?: string): number {
  const guess = Date.UTC(civil.year, civil.month - 1, civil.day, civil.hour ?? 0, civil.minute ?? 0, civil.second ?? 0, civil.ms ?? 0)
  const first = guess - zoneOffsetMinutes(guess, zone) * 60_000
  return guess - zoneOffsetMinutes(first, zone) * 60_000
}

/** The calendar day of an instant in a zone. */
function dayIn(instant: number, zone?: string): {year: number; month: number; day: number} {
  const local = new Date(instant + zoneOffsetMinutes(instant, zone) * 60_000)
  return {year: local.getUTCFullYear(), month: local.getUTCMonth() + 1, day: local.getUTCDate()}
}

const isCalendarDay = ({year, month, day}: Civil) => {
  const check = new Date(Date.UTC(year, month - 1, day))
  return year >= 1 && check.getUTCFullYear() === year && check.getUTCMonth() === month - 1 && check.getUTCDate() === day
}

function civilOf(match: RegExpExecArray, order: 'dmy' | 'ymd'): Civil {
  const [a, b, c] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const civil: Civil = order === 'dmy' ? {day: a, month: b, year: c} : {year: a, month: b, day: c}
  if (match[4] !== undefined) {
    civil.time = {hour: Number(match[4]), minute: Number(match[5]), second: Number(match[6] ?? 0), ms: Number((match[7] ?? '0').slice(0, 3).padEnd(3, '0'))}
  }
  if (order === 'ymd' && match[8]) civil.offset = match[8]
  return civil
}

export interface ReadDateOptions {
  /** The flag (or file field) named in a refusal. */
  flag: string
  /** A day without a time of day is its last millisecond (`--to`), not its first. */
  end?: boolean
  /** Whether the words (`today`, `yesterday`, `now`) and a time ago (`24h`) are taken: not in a file. */
  relative?: boolean
}

/**
 * Reads a date as the operator typed it into an ISO date-time; see the module's comment. An ISO
 * date-time with its offset is kept as written. A refusal (exit 2) names the flag and the forms.
 */
export function readDate(input: string, context: DateContext, options: ReadDateOptions): string {
  const {flag, end = false, relative = true} = options
  const text = input.trim()
  const forms = relative ? DATE_FORMS : ABSOLUTE_DATE_FORMS
  const refuse = (why: string): never => {
    throw new UsageError(`${flag} ${why}; got "${input}"`)
  }
  const word = text.toLowerCase()
  if (word === 'now' && relative) return new Date(context.now).toISOString()
  if ((word === 'today' || word === 'yesterday') && relative) {
    const today = dayIn(context.now, context.zone)
    const day = {...today, day: today.day - (word === 'yesterday' ? 1 : 0)}
    return new Date(end ? zonedInstant({...day, day: day.day + 1}, context.zone) - 1 : zonedInstant(day, context.zone)).toISOString()
  }
  const ago = relative ? RELATIVE.exec(text) : null
  if (ago) return new Date(context.now - Number(ago[1]) * UNIT_MS[ago[2].toLowerCase()]).toISOString()

  const brazilian = BRAZILIAN.exec(text)
  const iso = brazilian ? null : ISO.exec(text)
  const match = brazilian ?? iso
  if (!match) refuse(`must be a date: ${forms}`)
  const civil = civilOf(match!, brazilian ? 'dmy' : 'ymd')
  if (!isCalendarDay(civil)) {
    // 11/27/2026: a month first is never read, and the refusal says so.
    if (brazilian && civil.month > 12 && civil.day <= 12) {
      refuse(`is read day first (DD/MM/AAAA), and ${civil.month} is no month: did you mean ${civil.month}/${civil.day}/${civil.year}?`)
    }
    refuse(`is not a day of the calendar (${brazilian ? 'DD/MM/AAAA, day first' : 'AAAA-MM-DD'})`)
  }
  const {time} = civil
  if (time && (time.hour > 23 || time.minute > 59 || time.second > 59)) refuse('has no such time of day (HH from 00 to 23, MM and SS from 00 to 59)')
  if (!time) {
    const start = zonedInstant(civil, context.zone)
    return new Date(end ? zonedInstant({...civil, day: civil.day + 1}, context.zone) - 1 : start).toISOString()
  }
  // An ISO date-time with its offset is sent as written (other spellings of an offset, in UTC);
  // a time of day without one is read in the operator's zone.
  if (civil.offset) {
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/i.test(text)) return text
    const offset = /^([+-])(\d{2}):?(\d{2})?$/.exec(civil.offset)
    const minutes = offset ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3] ?? 0)) : 0
    const {year, month, day} = civil
    return new Date(Date.UTC(year, month - 1, day, time.hour, time.minute, time.second, time.ms) - minutes * 60_000).toISOString()
  }
  return new Date(zonedInstant({...civil, ...time}, context.zone)).toISOString()
}

/**
 * Reads --from / --to: the start of a day for `--from`, its end for `--to` (`end`), a time of day
 * or an ISO date-time as given, a time ago before now.
 */
export function resolveDate(input: string, context: DateContext, end = false, flag = end ? '--to' : '--from'): string {
  return readDate(input, context, {flag, end})
}

/** A calendar date (a birthdate): AAAA-MM-DD kept, DD/MM/AAAA turned into it; anything else as typed, for the contract to refuse. */
export function calendarDate(input: string): string {
  const text = input.trim()
  const brazilian = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text)
  if (!brazilian) return text
  return `${brazilian[3]}-${brazilian[2].padStart(2, '0')}-${brazilian[1].padStart(2, '0')}`
}
