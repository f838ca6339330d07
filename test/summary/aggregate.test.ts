import fc from 'fast-check'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {UsageError} from '../../src/cli/errors.js'
import {checkBaseUrl, GatewayClient, memoryTokenStore} from '../../src/api/index.js'
import {GatewayApi} from '../../src/api/gateway.js'
import type {Deposit} from '../../src/api/types.js'
import {DEPOSIT_STATUSES} from '../../src/schemas/enums.js'
import {
  compareStatus,
  DayCutter,
  DepositAggregator,
  summaryLines,
  type SummaryInput,
  type Totals,
} from '../../src/summary/aggregate.js'
import {startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

const record = (createdAt: string, status: string, amount: number, extra: Partial<SummaryInput> = {}): SummaryInput => ({createdAt, status, amount, ...extra})

/** The calendar day of an instant, straight from Intl, with no cache: the reference the cutter must match. */
function exactDay(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {timeZone, year: 'numeric', month: '2-digit', day: '2-digit'}).formatToParts(ms)
  const part = (type: string) => parts.find((each) => each.type === type)!.value
  return `${part('year')}-${part('month')}-${part('day')}`
}

describe('DayCutter', () => {
  it('cuts days in the given zone', () => {
    const at = Date.parse('2026-11-20T02:30:00Z')
    expect(new DayCutter('America/Sao_Paulo').dayOf(at)).toBe('2026-11-19')
    expect(new DayCutter('UTC').dayOf(at)).toBe('2026-11-20')
    expect(new DayCutter('Asia/Tokyo').dayOf(Date.parse('2026-11-19T15:00:00Z'))).toBe('2026-11-20')
    expect(new DayCutter('Asia/Tokyo').dayOf(Date.parse('2026-11-19T14:59:59.999Z'))).toBe('2026-11-19')
  })

  it('follows a daylight-saving change at midnight (São Paulo, February 2018: 00:00 went back to 23:00)', () => {
    const cutter = new DayCutter('America/Sao_Paulo')
    expect(cutter.dayOf(Date.parse('2018-02-18T01:30:00Z'))).toBe('2018-02-17') // 23:30 -02
    expect(cutter.dayOf(Date.parse('2018-02-18T02:30:00Z'))).toBe('2018-02-17') // 23:30 -03, the hour again
    expect(cutter.dayOf(Date.parse('2018-02-18T03:00:00Z'))).toBe('2018-02-18') // 00:00 -03
    expect(cutter.dayOf(Date.parse('2017-10-15T02:59:59Z'))).toBe('2017-10-14') // 23:59:59 -03
    expect(cutter.dayOf(Date.parse('2017-10-15T03:00:00Z'))).toBe('2017-10-15') // 01:00 -02: midnight skipped
  })

  it('matches Intl for any instant in zones with odd offsets and daylight saving', () => {
    const zones = ['America/Sao_Paulo', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Chatham', 'Australia/Lord_Howe', 'America/St_Johns', 'Africa/Monrovia', 'UTC']
    const cutters = new Map(zones.map((zone) => [zone, new DayCutter(zone)]))
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({min: Date.parse('1970-01-01T00:00:00Z'), max: Date.parse('2040-01-01T00:00:00Z')}),
        fc.integer({min: -3, max: 3}),
        (zone, ms, nudge) => {
          // Near a quarter hour, where days begin, half the time.
          const at = nudge === 0 ? ms : Math.round(ms / 900_000) * 900_000 + nudge
          expect(cutters.get(zone)!.dayOf(at)).toBe(exactDay(at, zone))
        },
      ),
      {numRuns: 5000},
    )
  })
})

describe('DepositAggregator', () => {
  const savedTz = process.env.TZ
  afterEach(() => {
    if (savedTz === undefined) delete process.env.TZ
    else process.env.TZ = savedTz
  })

  it('sums count and amounts by day and status, then by day, then in all', () => {
    const aggregator = new DepositAggregator({timeZone: 'America/Sao_Paulo'})
    aggregator.add(record('2026-11-20T12:00:00-03:00', 'PAID', 1000, {amountPaid: 1000, feeAmount: 10}))
    aggregator.add(record('2026-11-20T13:00:00-03:00', 'PAID', 2000, {amountPaid: 1500, feeAmount: 20}))
    aggregator.add(record('2026-11-20T23:59:59-03:00', 'REFUNDED', 500, {amountPaid: 500, refundAmount: 500, feeAmount: 5}))
    aggregator.add(record('2026-11-21T02:00:00Z', 'PENDING', 700)) // still the 20th in São Paulo
    aggregator.add(record('2026-11-21T03:00:00Z', 'PAID', 300, {amountPaid: 300, refundAmount: null, feeAmount: null}))
    const summary = aggregator.result()
    expect(summary.timeZone).toBe('America/Sao_Paulo')
    expect(summary.rows).toEqual([
      {day: '2026-11-20', status: 'PENDING', count: 1, amount: 700, amountPaid: 0, refundAmount: 0, feeAmount: 0},
      {day: '2026-11-20', status: 'PAID', count: 2, amount: 3000, amountPaid: 2500, refundAmount: 0, feeAmount: 30},
      {day: '2026-11-20', status: 'REFUNDED', count: 1, amount: 500, amountPaid: 500, refundAmount: 500, feeAmount: 5},
      {day: '2026-11-21', status: 'PAID', count: 1, amount: 300, amountPaid: 300, refundAmount: 0, feeAmount: 0},
    ])
    expect(summary.days).toEqual([
      {day: '2026-11-20', count: 4, amount: 4200, amountPaid: 3000, refundAmount: 500, feeAmount: 35},
      {day: '2026-11-21', count: 1, amount: 300, amountPaid: 300, refundAmount: 0, feeAmount: 0},
    ])
    expect(summary.total).toEqual({count: 5, amount: 4500, amountPaid: 3300, refundAmount: 500, feeAmount: 35})
    expect(aggregator.count).toBe(5)
  })

  it('cuts the same records into other days in another zone', () => {
    const aggregator = new DepositAggregator({timeZone: 'UTC'})
    aggregator.addAll([record('2026-11-21T02:00:00Z', 'PENDING', 700), record('2026-11-20T23:59:59-03:00', 'PAID', 500)])
    expect(aggregator.result().days.map((day) => [day.day, day.count])).toEqual([['2026-11-21', 2]])
  })

  it("takes the process's zone by default, TZ honoured", () => {
    process.env.TZ = 'Asia/Tokyo'
    const aggregator = new DepositAggregator()
    expect(aggregator.timeZone).toBe('Asia/Tokyo')
    aggregator.add(record('2026-11-19T15:00:00Z', 'PAID', 1))
    expect(aggregator.result().days[0].day).toBe('2026-11-20')
  })

  it('refuses an unknown zone as a usage error', () => {
    expect(() => new DepositAggregator({timeZone: 'Mars/Olympus_Mons'})).toThrow(UsageError)
    expect(() => new DepositAggregator({timeZone: 'Mars/Olympus_Mons'})).toThrow('time zone "Mars/Olympus_Mons" is not an IANA time zone')
  })

  it('refuses a record it cannot sum', () => {
    const aggregator = new DepositAggregator({timeZone: 'UTC'})
    expect(() => aggregator.add(record('yesterday', 'PAID', 1))).toThrow(TypeError)
    expect(() => aggregator.add(record('2026-11-20T00:00:00Z', 'PAID', 10.5))).toThrow('amount must be integer cents')
    expect(() => aggregator.add(record('2026-11-20T00:00:00Z', 'PAID', 1, {feeAmount: '1' as unknown as number}))).toThrow('feeAmount')
    expect(() => aggregator.add({createdAt: '2026-11-20T00:00:00Z', status: 'PAID'} as SummaryInput)).toThrow('amount is missing')
    expect(aggregator.count).toBe(0)
  })

  it('orders statuses by their life cycle, unknown ones last by name', () => {
    expect(['REFUNDED', 'ZETA', 'PAID', 'ALPHA', 'PENDING'].sort(compareStatus)).toEqual(['PENDING', 'PAID', 'REFUNDED', 'ALPHA', 'ZETA'])
  })

  it('gives an empty summary before any record', () => {
    const summary = new DepositAggregator({timeZone: 'UTC'}).result()
    expect(summary).toEqual({timeZone: 'UTC', rows: [], days: [], total: {count: 0, amount: 0, amountPaid: 0, refundAmount: 0, feeAmount: 0}})
    expect(summaryLines(summary)).toEqual([{kind: 'total', day: null, status: null, count: 0, amount: 0, amountPaid: 0, refundAmount: 0, feeAmount: 0}])
  })

  it('lists each day’s rows, then its total, and the grand total last', () => {
    const aggregator = new DepositAggregator({timeZone: 'UTC'})
    aggregator.addAll([
      record('2026-11-21T10:00:00Z', 'PAID', 2, {amountPaid: 2}),
      record('2026-11-20T10:00:00Z', 'FAILED', 1),
      record('2026-11-20T11:00:00Z', 'PAID', 4, {amountPaid: 4}),
    ])
    expect(summaryLines(aggregator.result()).map((line) => [line.kind, line.day, line.status, line.amount])).toEqual([
      ['status', '2026-11-20', 'PAID', 4],
      ['status', '2026-11-20', 'FAILED', 1],
      ['day', '2026-11-20', null, 5],
      ['status', '2026-11-21', 'PAID', 2],
      ['day', '2026-11-21', null, 2],
      ['total', null, null, 7],
    ])
  })

  describe('property: the totals are the sums computed naively', () => {
    const money = fc.option(fc.integer({min: 0, max: 10_000_000}), {nil: undefined})
    const deposit = fc.record({
      createdAt: fc.integer({min: Date.parse('2025-01-01T00:00:00Z'), max: Date.parse('2027-01-01T00:00:00Z')}).map((ms) => new Date(ms).toISOString()),
      status: fc.constantFrom(...DEPOSIT_STATUSES, 'SOMETHING_NEW'),
      amount: fc.integer({min: 1, max: 10_000_000}),
      amountPaid: money,
      refundAmount: money,
      feeAmount: money,
    })
    const zone = fc.constantFrom('America/Sao_Paulo', 'UTC', 'Asia/Kathmandu', 'America/Manaus', 'Europe/Lisbon')

    it('for any records in any order', () => {
      fc.assert(
        fc.property(fc.array(deposit, {maxLength: 300}), zone, (records, timeZone) => {
          const aggregator = new DepositAggregator({timeZone})
          for (const each of records) aggregator.add(each)
          const summary = aggregator.result()

          const sum = (list: SummaryInput[]): Totals => ({
            count: list.length,
            amount: list.reduce((total, each) => total + each.amount, 0),
            amountPaid: list.reduce((total, each) => total + (each.amountPaid ?? 0), 0),
            refundAmount: list.reduce((total, each) => total + (each.refundAmount ?? 0), 0),
            feeAmount: list.reduce((total, each) => total + (each.feeAmount ?? 0), 0),
          })
          const dayOf = (each: SummaryInput) => exactDay(Date.parse(each.createdAt), timeZone)
          const days = [...new Set(records.map(dayOf))].sort()
          expect(summary.total).toEqual(sum(records))
          expect(summary.days).toEqual(days.map((day) => ({day, ...sum(records.filter((each) => dayOf(each) === day))})))
          const rows = days.flatMap((day) =>
            [...new Set(records.filter((each) => dayOf(each) === day).map((each) => each.status))]
              .sort(compareStatus)
              .map((status) => ({day, status, ...sum(records.filter((each) => dayOf(each) === day && each.status === status))})),
          )
          expect(summary.rows).toEqual(rows)

          // The lines hold the same rows, and the day lines add up to the total.
          const lines = summaryLines(summary)
          expect(lines.filter((line) => line.kind === 'status')).toEqual(rows.map((row) => ({kind: 'status', ...row})))
          expect(lines.filter((line) => line.kind === 'day').reduce((total, line) => total + line.amount, 0)).toBe(summary.total.amount)

          // Order does not matter.
          const reversed = new DepositAggregator({timeZone})
          reversed.addAll([...records].reverse())
          expect(reversed.result()).toEqual(summary)
        }),
        {numRuns: 200},
      )
    })
  })
})

describe('DepositAggregator on the sandbox’s seeded deposits', () => {
  let sandbox: Sandbox
  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 700})
  })
  afterAll(() => sandbox.close())

  it('gives the sums of every record of every page of one snapshot', async () => {
    const client = new GatewayClient({baseUrl: checkBaseUrl(sandbox.baseUrl), tokens: memoryTokenStore({clientId: 'sandbox', clientSecret: 'sandbox-secret'})})
    try {
      const api = new GatewayApi(client)
      const aggregator = new DepositAggregator({timeZone: 'America/Sao_Paulo'})
      const all: Deposit[] = []
      let page = await api.listDeposits({perPage: 100, page: 1})
      for (let number = 2; ; number += 1) {
        aggregator.addAll(page.data)
        all.push(...page.data)
        if (number > page.totalPages) break
        page = await api.listDeposits({perPage: 100, page: number, snapshot: page.snapshot})
      }
      expect(all.length).toBe(700)
      const summary = aggregator.result()
      expect(summary.total.count).toBe(700)
      expect(summary.total.amount).toBe(all.reduce((total, each) => total + each.amount, 0))
      expect(summary.total.amountPaid).toBe(all.reduce((total, each) => total + (each.amountPaid ?? 0), 0))
      expect(summary.total.refundAmount).toBe(all.reduce((total, each) => total + (each.refundAmount ?? 0), 0))
      expect(summary.total.feeAmount).toBe(all.reduce((total, each) => total + (each.feeAmount ?? 0), 0))
      expect(summary.total.refundAmount).toBeGreaterThan(0) // the seed has refunds: the sums are not vacuous
      const paidPerDay = new Map<string, number>()
      for (const each of all) {
        const day = exactDay(Date.parse(each.createdAt), 'America/Sao_Paulo')
        paidPerDay.set(day, (paidPerDay.get(day) ?? 0) + (each.amountPaid ?? 0))
      }
      expect(summary.days.map((day) => [day.day, day.amountPaid])).toEqual([...paidPerDay.entries()].sort(([a], [b]) => (a < b ? -1 : 1)))
      expect(new Set(summary.rows.map((row) => row.status)).size).toBe(11)
    } finally {
      await client.close()
    }
  })
})
