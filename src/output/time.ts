/**
 * An ISO instant in the operator's time zone, with the zone: "2026-11-21 11:03:07 GMT-3". `zone` is
 * an IANA name (TZ); without one, the process's own zone.
 */
export function localTime(iso: string | undefined, zone?: string, options: {seconds?: boolean} = {}): string {
  if (!iso) return '-'
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) return iso
  const parts = formatter(zone, options.seconds ?? true).formatToParts(new Date(ms))
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? ''
  const time = `${get('hour') === '24' ? '00' : get('hour')}:${get('minute')}${options.seconds === false ? '' : `:${get('second')}`}`
  const name = get('timeZoneName').replace(/^GMT(?:[+-]0)?$/, 'UTC').replace(/^GMT/, 'UTC')
  return `${get('year')}-${get('month')}-${get('day')} ${time} ${name}`
}

const cache = new Map<string, Intl.DateTimeFormat>()

function formatter(zone: string | undefined, seconds: boolean): Intl.DateTimeFormat {
  const key = `${zone ?? ''}|${seconds}`
  let format = cache.get(key)
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone || undefined,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: seconds ? '2-digit' : undefined,
      hourCycle: 'h23',
      timeZoneName: 'shortOffset',
    })
    cache.set(key, format)
  }
  return format
}

/** Minutes east of UTC of a zone at an instant. */
/** One offset formatter per zone: building one costs far more than using it. */
const offsetFormats = new Map<string, Intl.DateTimeFormat>()

export function zoneOffsetMinutes(instant: number, zone?: string): number {
  let format = offsetFormats.get(zone ?? '')
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {timeZone: zone || undefined, timeZoneName: 'longOffset'})
    offsetFormats.set(zone ?? '', format)
  }
  const parts = format.formatToParts(new Date(instant))
  const name = parts.find((part) => part.type === 'timeZoneName')?.value ?? 'GMT'
  const match = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name)
  if (!match) return 0
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0)
  return match[1] === '-' ? -minutes : minutes
}

/** The instant a calendar day starts in a zone (midnight local), as epoch milliseconds. */
export function startOfDay(year: number, month: number, day: number, zone?: string): number {
  const guess = Date.UTC(year, month - 1, day)
  // The offset at the guess, then at the corrected instant: right across a change of offset too.
  const first = guess - zoneOffsetMinutes(guess, zone) * 60_000
  return guess - zoneOffsetMinutes(first, zone) * 60_000
}
