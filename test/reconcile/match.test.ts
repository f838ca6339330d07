import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import type {Deposit} from '../../src/api/types.js'
import {parseDueDate, readExpected, type ExpectedRow} from '../../src/reconcile/expected.js'
import {Reconciler} from '../../src/reconcile/match.js'
import {RECONCILE_CSV} from '../../src/reconcile/render.js'

const NOW = Date.parse('2026-11-21T12:00:00.000Z')

function deposit(id: string, fields: Partial<Deposit>): Deposit {
  return {
    id,
    acquirer: 'X',
    amount: 1000,
    paymentMethod: 'PIX',
    createdAt: '2026-11-20T10:00:00.000Z',
    status: 'PAID',
    statusHistory: [],
    updatedAt: '2026-11-20T10:00:00.000Z',
    depositOrigin: 'QRCODE',
    ...fields,
  }
}

function reconcilerOf(rows: Array<Omit<ExpectedRow, 'line'>>): Reconciler {
  const expected = rows.map((row, index) => ({...row, line: index + 2}))
  return new Reconciler(expected, new Map(expected.map((row) => [row.externalCode, row])), NOW)
}

describe('matching expected rows with deposits', () => {
  it('a deposit listed twice is used once: paid, not paid more than once', () => {
    const reconciler = reconcilerOf([{externalCode: 'CODE-0001', amount: 1000}])
    reconciler.add([deposit('a', {externalCode: 'CODE-0001'})])
    reconciler.add([deposit('a', {externalCode: 'CODE-0001'})])
    expect([...reconciler.all()].map((row) => row.class)).toEqual(['paid'])
    expect(reconciler.repeated).toBe(1)
    expect(reconciler.summary()).toMatchObject({deposits: 1, reconciled: true})
  })

  it('amountPaid decides the amount when given, else the amount', () => {
    const reconciler = reconcilerOf([
      {externalCode: 'CODE-0001', amount: 1000},
      {externalCode: 'CODE-0002', amount: 1000},
    ])
    reconciler.add([deposit('a', {externalCode: 'CODE-0001', amount: 1000, amountPaid: 900}), deposit('b', {externalCode: 'CODE-0002', amount: 900, amountPaid: 1000})])
    expect([...reconciler.all()].map((row) => [row.class, row.difference])).toEqual([
      ['amount-differs', -100],
      ['paid', 0],
    ])
  })

  it('open beats another final status; the newest open deposit gives the status', () => {
    const reconciler = reconcilerOf([{externalCode: 'CODE-0001', amount: 1000}])
    reconciler.add([
      deposit('new', {externalCode: 'CODE-0001', status: 'PENDING', createdAt: '2026-11-20T12:00:00.000Z'}),
      deposit('failed', {externalCode: 'CODE-0001', status: 'FAILED', createdAt: '2026-11-20T11:00:00.000Z'}),
      deposit('old', {externalCode: 'CODE-0001', status: 'PIX_QRCODE_GENERATED', createdAt: '2026-11-20T10:00:00.000Z'}),
    ])
    expect(reconciler.rowOf(reconciler['rows'][0])).toMatchObject({class: 'open', status: 'PENDING', depositIds: ['new', 'old'], otherDepositIds: ['failed']})
  })

  it('a code paid twice and left open once: paid more than once, the open one listed under it', () => {
    const reconciler = reconcilerOf([{externalCode: 'CODE-0001', amount: 1000}])
    reconciler.add([deposit('a', {externalCode: 'CODE-0001'}), deposit('b', {externalCode: 'CODE-0001'}), deposit('c', {externalCode: 'CODE-0001', status: 'PENDING'})])
    expect(reconciler.rowOf(reconciler['rows'][0])).toMatchObject({class: 'paid-more-than-once', paidAmount: 2000, depositIds: ['a', 'b'], otherDepositIds: ['c']})
  })

  it('a due date: a calendar day is due until its last millisecond in the time zone', () => {
    const end = parseDueDate('2026-11-21', 'due-date', 'America/Sao_Paulo')
    expect(new Date(end).toISOString()).toBe('2026-11-22T02:59:59.999Z')
    expect(parseDueDate('2026-11-21T09:00:00-03:00', 'due-date')).toBe(Date.parse('2026-11-21T12:00:00Z'))
    // Day first, as every date flag reads it.
    expect(new Date(parseDueDate('21/11/2026', 'due-date', 'America/Sao_Paulo')).toISOString()).toBe('2026-11-22T02:59:59.999Z')
    expect(() => parseDueDate('11/21/2026', 'due-date')).toThrow('due-date is read day first (DD/MM/AAAA), and 21 is no month: did you mean 21/11/2026?')
    // A file is read the same any day: no word, no time ago.
    expect(() => parseDueDate('yesterday', 'due-date')).toThrow(/^due-date must be a date: DD\/MM\/AAAA .*ISO date-time .*; got "yesterday"$/)
    expect(() => parseDueDate('7d', 'due-date')).toThrow(/must be a date/)
  })

  it('the expected file takes customer-document for document, and keeps the rows by code', async () => {
    const file = await readExpected('externalCode,amount,customerDocument\nCODE-0001,100,529.982.247-25\n', {maxRows: 10})
    expect(file.problems).toEqual([])
    expect(file.byCode.get('CODE-0001')).toMatchObject({line: 2, amount: 100, document: '529.982.247-25'})
    await expect(readExpected('external-code,amount\nCODE-0001,1\nCODE-0002,1\n', {maxRows: 1})).rejects.toThrow(/more than 1 rows/)
  })
})

describe('matching, against the rules written plainly', () => {
  const OPEN = ['PENDING', 'PIX_QRCODE_GENERATED', 'DEPOSIT_PIXKEY_GENERATED', 'PENDING_COMPLIANCE']
  const STATUSES = ['PAID', ...OPEN, 'FAILED', 'REFUNDED', 'BLOCKED', 'INFRACTION']

  /** The class of a row from its code's deposits, as decisions.md states it, one rule a line. */
  function expectedLine(row: ExpectedRow, found: Deposit[]) {
    const newest = [...found].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
    const ids = (list: Deposit[]) => list.map((item) => item.id)
    const others = (deciding: Deposit[]) => ids(newest.filter((item) => !deciding.includes(item)))
    const paid = newest.filter((item) => item.status === 'PAID')
    const open = newest.filter((item) => OPEN.includes(item.status))
    const base = {line: row.line, externalCode: row.externalCode, expectedAmount: row.amount, dueDate: row.dueDate ?? null, document: row.document ?? null}
    const none = {paidAmount: null, difference: null, overdue: false, expired: false}
    if (found.length === 0) return {...base, ...none, class: 'missing', status: null, depositIds: [], otherDepositIds: []}
    if (paid.length > 0) {
      const total = paid.reduce((sum, item) => sum + (item.amountPaid ?? item.amount), 0)
      const cls = paid.length > 1 ? 'paid-more-than-once' : total === row.amount ? 'paid' : 'amount-differs'
      return {...base, ...none, class: cls, paidAmount: total, difference: total - row.amount, status: 'PAID', depositIds: ids(paid), otherDepositIds: others(paid)}
    }
    if (open.length > 0) {
      const expiration = open[0].pixResponse?.expirationDate
      return {
        ...base,
        ...none,
        class: 'open',
        status: open[0].status,
        depositIds: ids(open),
        otherDepositIds: others(open),
        overdue: row.dueMs !== undefined && NOW > row.dueMs,
        expired: expiration !== undefined && Date.parse(expiration) < NOW,
      }
    }
    return {...base, ...none, class: 'not-paid', status: newest[0].status, depositIds: ids(newest), otherDepositIds: []}
  }

  it('property: every row as the rules say, one deposit of a code or several; each line with the output columns in order', () => {
    const codes = ['CODE-0001', 'CODE-0002', 'CODE-0003', 'CODE-0004', 'OTHER-0001']
    const depositArb = fc.record({
      code: fc.constantFrom(...codes, undefined),
      status: fc.constantFrom(...STATUSES),
      amount: fc.constantFrom(900, 1000, 1100),
      amountPaid: fc.constantFrom(undefined, 1000, 1200),
      minute: fc.integer({min: 0, max: 59}),
      expires: fc.constantFrom(undefined, '2026-11-21T11:00:00.000Z', '2026-11-21T13:00:00.000Z'),
    })
    fc.assert(
      fc.property(fc.array(depositArb, {maxLength: 12}), fc.integer({min: 1, max: 5}), fc.constantFrom(undefined, NOW - 1, NOW + 1), (drawn, pageSize, dueMs) => {
        const rows: ExpectedRow[] = codes.slice(0, 4).map((externalCode, index) => ({line: 2 + index * 2, externalCode, amount: 1000, ...(dueMs === undefined ? {} : {dueDate: 'd', dueMs})}))
        const deposits = drawn.map((item, index) =>
          deposit(`id-${index}`, {
            externalCode: item.code,
            status: item.status,
            amount: item.amount,
            amountPaid: item.amountPaid,
            createdAt: `2026-11-20T10:${String(item.minute).padStart(2, '0')}:00.000Z`,
            ...(item.expires ? {pixResponse: {uri: 'x', expirationDate: item.expires}} : {}),
          }),
        )
        // Deposits of equal times keep the listing's order: the rule's sort is stable too.
        const reconciler = new Reconciler(rows, new Map(rows.map((row) => [row.externalCode, row])), NOW)
        for (let at = 0; at < deposits.length; at += pageSize) reconciler.add(deposits.slice(at, at + pageSize))
        const lines = [...reconciler.all()]
        const columns = RECONCILE_CSV.map((column) => ('header' in column ? column.header : column[0]))
        for (const line of lines) expect(Object.keys(line)).toEqual(columns)
        expect(lines.slice(0, rows.length)).toEqual(rows.map((row) => expectedLine(row, deposits.filter((item) => item.externalCode === row.externalCode))))
        expect(lines.slice(rows.length).map((line) => [line.class, line.depositIds[0]])).toEqual(
          deposits.filter((item) => !codes.slice(0, 4).includes(item.externalCode ?? '')).map((item) => ['unknown', item.id]),
        )
        const tally = reconciler.tally()
        for (const line of lines) tally.add(line)
        expect(tally.summary()).toEqual(reconciler.summary())
        expect(reconciler.summary().classes.missing.count).toBe(rows.filter((row) => !deposits.some((item) => item.externalCode === row.externalCode)).length)
      }),
      {numRuns: 300},
    )
  })
})
