import {describe, expect, it} from 'vitest'

import type {Deposit} from '../../src/api/types.js'
import {parseDueDate, readExpected, type ExpectedRow} from '../../src/reconcile/expected.js'
import {Reconciler} from '../../src/reconcile/match.js'

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
    expect(() => parseDueDate('21/11/2026', 'due-date')).toThrow(/must be a date/)
  })

  it('the expected file takes customer-document for document, and keeps the rows by code', async () => {
    const file = await readExpected('externalCode,amount,customerDocument\nCODE-0001,100,529.982.247-25\n', {maxRows: 10})
    expect(file.problems).toEqual([])
    expect(file.byCode.get('CODE-0001')).toMatchObject({line: 2, amount: 100, document: '529.982.247-25'})
    await expect(readExpected('external-code,amount\nCODE-0001,1\nCODE-0002,1\n', {maxRows: 1})).rejects.toThrow(/more than 1 rows/)
  })
})
