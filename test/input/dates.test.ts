import {describe, expect, it} from 'vitest'

import {calendarDate, DATE_FORMS, readDate, resolveDate} from '../../src/input/dates.js'

// Friday 27 November 2026, 15:30 in São Paulo (UTC-3, no daylight saving time since 2019).
const now = Date.parse('2026-11-27T18:30:00Z')
const sp = {now, zone: 'America/Sao_Paulo'}

describe('dates as an operator in Brazil types them', () => {
  it.each([
    ['27/11/2026', '2026-11-27T03:00:00.000Z', '2026-11-28T02:59:59.999Z'],
    ['1/2/2026', '2026-02-01T03:00:00.000Z', '2026-02-02T02:59:59.999Z'],
    ['2026-11-27', '2026-11-27T03:00:00.000Z', '2026-11-28T02:59:59.999Z'],
    ['today', '2026-11-27T03:00:00.000Z', '2026-11-28T02:59:59.999Z'],
    ['Yesterday', '2026-11-26T03:00:00.000Z', '2026-11-27T02:59:59.999Z'],
  ])('%s: --from is the start of the day, --to its end, in the time zone', (typed, from, to) => {
    expect(resolveDate(typed, sp)).toBe(from)
    expect(resolveDate(typed, sp, true)).toBe(to)
  })

  it.each([
    ['27/11/2026 10:00', '2026-11-27T13:00:00.000Z'],
    ['27/11/2026 10:00:30', '2026-11-27T13:00:30.000Z'],
    ['2026-11-27 10:00', '2026-11-27T13:00:00.000Z'],
    ['2026-11-27T10:00', '2026-11-27T13:00:00.000Z'],
    ['2026-11-27T10:00:00', '2026-11-27T13:00:00.000Z'],
    ['2026-11-27 10:00-03:00', '2026-11-27T13:00:00.000Z'],
    ['2026-11-27T10:00:00Z', '2026-11-27T10:00:00Z'],
    ['2026-11-27T10:00:00-03:00', '2026-11-27T10:00:00-03:00'],
    ['now', '2026-11-27T18:30:00.000Z'],
    ['24h', '2026-11-26T18:30:00.000Z'],
    ['7d', '2026-11-20T18:30:00.000Z'],
    ['30m', '2026-11-27T18:00:00.000Z'],
    ['2w', '2026-11-13T18:30:00.000Z'],
  ])('%s is the instant %s, --from and --to alike', (typed, instant) => {
    expect(resolveDate(typed, sp)).toBe(instant)
    expect(resolveDate(typed, sp, true)).toBe(instant)
  })

  it('today and yesterday are the days of the time zone, not of UTC', () => {
    // 23:30 in São Paulo is already the next day in UTC.
    const late = {now: Date.parse('2026-11-28T02:30:00Z'), zone: 'America/Sao_Paulo'}
    expect(resolveDate('today', late)).toBe('2026-11-27T03:00:00.000Z')
    expect(resolveDate('today', {...late, zone: 'UTC'})).toBe('2026-11-28T00:00:00.000Z')
    // The first of the month: yesterday is the last day of the month before.
    expect(resolveDate('yesterday', {now: Date.parse('2026-12-01T12:00:00Z'), zone: 'America/Sao_Paulo'})).toBe('2026-11-30T03:00:00.000Z')
  })

  it('never reads a month first', () => {
    expect(resolveDate('03/04/2026', sp)).toBe('2026-04-03T03:00:00.000Z')
    expect(() => resolveDate('11/27/2026', sp)).toThrow('--from is read day first (DD/MM/AAAA), and 27 is no month: did you mean 27/11/2026?; got "11/27/2026"')
  })

  it('refuses, naming the flag and listing the forms it takes', () => {
    for (const typed of ['27-11-2026', '27/11/26', 'last week', '2026/11/27', '']) {
      expect(() => resolveDate(typed, sp, true)).toThrow(`--to must be a date: ${DATE_FORMS}; got "${typed}"`)
    }
    expect(DATE_FORMS).toMatch(/DD\/MM\/AAAA.*AAAA-MM-DD.*today, yesterday, now.*24h/)
    expect(() => resolveDate('31/02/2026', sp)).toThrow('--from is not a day of the calendar (DD/MM/AAAA, day first); got "31/02/2026"')
    expect(() => resolveDate('27/11/2026 24:00', sp)).toThrow(/^--from has no such time of day/)
    expect(() => readDate('26h', sp, {flag: '--until-date', relative: false})).toThrow(/^--until-date must be a date/)
  })

  it('a birthdate typed day first is sent as an ISO date', () => {
    expect(calendarDate('17/05/1990')).toBe('1990-05-17')
    expect(calendarDate('7/5/1990')).toBe('1990-05-07')
    expect(calendarDate('1990-05-17')).toBe('1990-05-17')
  })
})
