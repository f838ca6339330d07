import {describe, expect, it} from 'vitest'

import {buildDepositQuery, pageCommand, resolveDate, shellQuote} from '../../src/input/deposits.js'

const now = Date.UTC(2026, 10, 21, 12, 0, 0)

describe('deposit flags', () => {
  it('turns relative dates into ISO date-times before now', () => {
    expect(resolveDate('24h', now)).toBe('2026-11-20T12:00:00.000Z')
    expect(resolveDate('7d', now)).toBe('2026-11-14T12:00:00.000Z')
    expect(resolveDate('2026-11-01T00:00:00-03:00', now)).toBe('2026-11-01T00:00:00-03:00')
  })

  it('builds the query with the documented defaults', () => {
    expect(buildDepositQuery({status: ['PAID'], 'min-amount': '100'}, now)).toEqual({
      status: ['PAID'],
      depositOrigin: undefined,
      startDate: undefined,
      endDate: undefined,
      minAmount: 100,
      maxAmount: undefined,
      page: 1,
      perPage: 20,
      snapshot: undefined,
    })
  })

  it('prints the next page as a command with the resolved filters, quoted for a shell', () => {
    const query = buildDepositQuery({status: ['PAID', 'REFUNDED'], from: '24h', 'per-page': 50, snapshot: 'snap-1'}, now)
    expect(pageCommand(query, 2, {bin: 'gateway', profile: 'prod'})).toBe(
      'gateway deposits list --profile prod --status PAID --status REFUNDED --from 2026-11-20T12:00:00.000Z --per-page 50 --snapshot snap-1 --page 2',
    )
    expect(shellQuote("it's")).toBe(`'it'\\''s'`)
  })
})
