import {describe, expect, it} from 'vitest'

import {buildDepositQuery, pageCommand, resolveDate, shellQuote} from '../../src/input/deposits.js'

const now = Date.UTC(2026, 10, 21, 12, 0, 0)

describe('deposit flags', () => {
  it('turns relative dates into ISO date-times before now', () => {
    expect(resolveDate('24h', {now})).toBe('2026-11-20T12:00:00.000Z')
    expect(resolveDate('7d', {now})).toBe('2026-11-14T12:00:00.000Z')
    expect(resolveDate('2026-11-01T00:00:00-03:00', {now})).toBe('2026-11-01T00:00:00-03:00')
  })

  it('reads a bare date as that whole day in the operator\'s time zone', () => {
    expect(resolveDate('2026-11-20', {now, zone: 'America/Sao_Paulo'})).toBe('2026-11-20T03:00:00.000Z')
    expect(resolveDate('2026-11-20', {now, zone: 'America/Sao_Paulo'}, true)).toBe('2026-11-21T02:59:59.999Z')
    expect(resolveDate('2026-11-20', {now, zone: 'UTC'})).toBe('2026-11-20T00:00:00.000Z')
    expect(resolveDate('2026-11-20', {now, zone: 'Asia/Kolkata'})).toBe('2026-11-19T18:30:00.000Z')
    expect(() => resolveDate('2026-02-31', {now, zone: 'UTC'})).toThrow('--from is not a day of the calendar (AAAA-MM-DD); got "2026-02-31"')
  })

  it('builds the query with the documented defaults', () => {
    expect(buildDepositQuery({status: ['paid'], 'min-amount': '100'}, {now}).query).toEqual({
      status: ['PAID'],
      minAmount: 100,
      page: 1,
      perPage: 20,
    })
  })

  it('prints the next page as a command with the resolved filters, quoted for a shell', () => {
    const {query} = buildDepositQuery({status: ['PAID', 'REFUNDED'], from: '24h', 'per-page': '50', snapshot: 'snap-1'}, {now})
    expect(pageCommand(query, 2, {bin: 'gateway', profile: 'prod'})).toBe(
      'gateway deposits list --profile prod --status PAID --status REFUNDED --from 2026-11-20T12:00:00.000Z --per-page 50 --snapshot snap-1 --page 2',
    )
    expect(shellQuote("it's")).toBe(`'it'\\''s'`)
  })
})
