import {describe, expect, it} from 'vitest'

import {parseCents} from '../../src/input/money.js'
import {brl} from '../../src/render/money.js'

describe('money', () => {
  it('shows cents as BRL', () => {
    expect(brl(123456)).toBe('R$ 1.234,56')
    expect(brl(5)).toBe('R$ 0,05')
    expect(brl(undefined)).toBe('-')
  })

  it('reads integer cents and refuses decimals with the cents they meant', () => {
    expect(parseCents('1000', '--amount')).toEqual({ok: true, cents: 1000})
    expect(parseCents('10.5', '--amount')).toEqual({ok: false, message: '--amount takes integer cents, not a decimal: 10.5 is --amount 1050'})
    expect(parseCents('10,00', '--amount')).toMatchObject({ok: false, message: expect.stringContaining('is --amount 1000')})
    expect(parseCents('ten', '--amount')).toMatchObject({ok: false, message: expect.stringContaining('must be an integer number of cents')})
  })
})
