import {describe, expect, it} from 'vitest'

import {parseCents, reaisDigitsToCents, requireAmount} from '../../src/input/money.js'

const refusal = (text: string, flag = '--amount') => {
  const parsed = parseCents(text, flag)
  if (parsed.ok) throw new Error(`${text} was taken as ${parsed.cents}`)
  return parsed.message
}

describe('amounts as an operator in Brazil types them', () => {
  it.each([
    ['10,50', '--amount takes integer cents, not a decimal: 10,50 is --amount 1050'],
    ['10.50', '--amount takes integer cents, not a decimal: 10.50 is --amount 1050'],
    ['R$ 10,50', '--amount takes integer cents, not a decimal: R$ 10,50 is --amount 1050'],
    ['R$10,50', '--amount takes integer cents, not a decimal: R$10,50 is --amount 1050'],
    ['1.050,00', '--amount takes integer cents, not a decimal: 1.050,00 is --amount 105000'],
    ['R$ 1.050,00', '--amount takes integer cents, not a decimal: R$ 1.050,00 is --amount 105000'],
    ['1,050.00', '--amount takes integer cents, not a decimal: 1,050.00 is --amount 105000'],
    ['R$1.050', '--amount takes integer cents, not reais: R$1.050 is --amount 105000'],
    ['R$ 10', '--amount takes integer cents, not reais: R$ 10 is --amount 1000'],
    ['r$ 0,5', '--amount takes integer cents, not a decimal: r$ 0,5 is --amount 50'],
    ['1.234.567', '--amount takes integer cents, not a decimal: 1.234.567 would be 123456700 cents, over the limit of 10000000'],
    ['1.055', '--amount takes integer cents, not a decimal: 1.055 is --amount 105500'],
  ])('%s is refused, naming the cents it means', (typed, message) => {
    expect(refusal(typed)).toBe(message)
  })

  it('explains a writing with two readings, and names both', () => {
    expect(refusal('1.050')).toBe(
      '--amount takes integer cents, and 1.050 has two readings: with a point between thousands (R$ 1.050,00) it is --amount 105000; as a decimal (R$ 1,05) it is --amount 105',
    )
    expect(refusal('1,050')).toBe(
      '--amount takes integer cents, and 1,050 has two readings: with a comma between thousands (R$ 1.050,00) it is --amount 105000; as a decimal (R$ 1,05) it is --amount 105',
    )
  })

  it('says what it would be when the guess is over the limit', () => {
    expect(refusal('R$ 150.000,00')).toBe('--amount takes integer cents, not a decimal: R$ 150.000,00 would be 15000000 cents, over the limit of 10000000')
    expect(refusal(`${'9'.repeat(30)},00`)).toMatch(/is far over the limit of 10000000 cents$/)
  })

  it('one rule for every amount flag', () => {
    expect(refusal('R$ 5,00', '--min-amount')).toBe('--min-amount takes integer cents, not a decimal: R$ 5,00 is --min-amount 500')
    expect(() => requireAmount('1.050,00', '--amount')).toThrow('--amount takes integer cents, not a decimal: 1.050,00 is --amount 105000')
  })

  it('takes integer cents, and refuses what is no amount', () => {
    expect(parseCents(' 1050 ', '--amount')).toEqual({ok: true, cents: 1050})
    for (const typed of ['ten', '-10', '10,5,0', '1.0500', 'R$', 'US$ 10', '10 reais', '1.05.0']) {
      expect(refusal(typed)).toBe(`--amount must be an integer number of cents, e.g. 1000 for R$ 10,00; got "${typed}"`)
    }
  })
})

describe('reais become cents exactly (decimal arithmetic on the digits, never a float times 100)', () => {
  // Each of these is one cent short as a float times 100 cut down (19.99 * 100 is 1998.9999999999998),
  // and a float times 100 rounded is right only by luck of the rounding.
  it.each([
    ['19,99', 1999],
    ['1,15', 115],
    ['4,35', 435],
    ['0,29', 29],
    ['781,62', 78162],
    ['1.050,00', 105000],
    ['R$ 1.050,00', 105000],
    ['8.888,81', 888881],
    ['0,07', 7],
    ['1.234.567,89', 123456789],
  ])('%s is %i cents', (typed, cents) => {
    expect(refusal(typed)).toMatch(new RegExp(`is --amount ${cents}$|would be ${cents} cents`))
    expect(reaisDigitsToCents(typed.replace(/^R\$\s*/, ''))).toBe(cents)
  })

  it('every amount of two decimals from 0,00 to 99,99 becomes exactly its cents', () => {
    for (let cents = 0; cents < 10_000; cents++) {
      const typed = `${Math.trunc(cents / 100)},${String(cents % 100).padStart(2, '0')}`
      expect(reaisDigitsToCents(typed)).toBe(cents)
    }
  })
})
