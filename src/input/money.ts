import {UsageError} from '../cli/errors.js'
import {LIMITS} from '../schemas/enums.js'

export type CentsParse = {ok: true; cents: number} | {ok: false; message: string}

/** An amount in reais for a person, as Brazil writes it: R$ 1.050,00. */
const reais = (cents: number) => new Intl.NumberFormat('pt-BR', {style: 'currency', currency: 'BRL'}).format(cents / 100).replace(/\s/g, ' ')

/** The ways an amount in reais is written, and what each one's separators are. */
const PLAIN = /^\d+$/
/** 10,50 or 10.50: a decimal, with a comma (Brazil) or a point. */
const DECIMAL = /^\d+[.,]\d{1,2}$/
/** 1.050,00 (Brazil) or 1,050.00: separators between thousands, and the other one before the cents. */
const GROUPED_DECIMAL = /^\d{1,3}(?:\.\d{3})+,\d{1,2}$|^\d{1,3}(?:,\d{3})+\.\d{1,2}$/
/** 1.050 or 1,050.000: separators between thousands only (one of them may be a decimal separator instead). */
const GROUPED = /^\d{1,3}(?:\.\d{3})+$|^\d{1,3}(?:,\d{3})+$/

/**
 * Reads an amount flag as integer cents. An amount in reais (`10,50`, `10.50`, `R$ 10,50`,
 * `1.050,00`, `R$1.050`, `R$ 1.050,00`) is refused with the cents value it means ("10,50 is
 * --amount 1050"), since the gateway takes cents everywhere; a writing with two readings (`1.050`:
 * a thousand and fifty reais, or one real and five cents) is refused with both. brazilian-utils
 * reads the reais, after the writing is known to be one of these.
 */
export function parseCents(input: string, flag: string): CentsParse {
  const value = input.trim()
  if (PLAIN.test(value)) return {ok: true, cents: Number(value)}
  const currency = /^R\$\s*/i.exec(value)
  const amount = currency ? value.slice(currency[0].length) : value
  const refuse = (message: string): CentsParse => ({ok: false, message})
  const said = (cents: number, what = 'a decimal') => {
    // A guess over the limit is no suggestion: say what it would be, and that it is too much.
    if (!Number.isSafeInteger(cents)) return refuse(`${flag} takes integer cents, not ${what}: ${value} is far over the limit of ${LIMITS.amount.max} cents`)
    if (cents > LIMITS.amount.max) return refuse(`${flag} takes integer cents, not ${what}: ${value} would be ${cents} cents, over the limit of ${LIMITS.amount.max}`)
    return refuse(`${flag} takes integer cents, not ${what}: ${value} is ${flag} ${cents}`)
  }
  // The last separator followed by one or two digits is the decimal one; the others group thousands.
  const read = () => reaisDigitsToCents(amount)
  if (currency && PLAIN.test(amount)) return said(Number(amount) * 100, 'reais')
  if (DECIMAL.test(amount) || GROUPED_DECIMAL.test(amount)) return said(read())
  if (GROUPED.test(amount)) {
    const separator = amount.replace(/\d/g, '')[0]
    const thousands = Number(amount.replaceAll(separator, '')) * 100
    // R$ 1.050 is Brazil's writing of a thousand and fifty reais; 1.050.000 and 1,050,000 have no other reading.
    const single = amount.split(separator).length === 2
    const decimalCents = Number(amount.replace(separator, '')) / 10
    if ((currency && separator === '.') || !single || !Number.isInteger(decimalCents)) return said(thousands, currency ? 'reais' : 'a decimal')
    return refuse(
      `${flag} takes integer cents, and ${value} has two readings: with a ${separator === '.' ? 'point' : 'comma'} between thousands (${reais(thousands)}) it is ${flag} ${thousands}; ` +
        `as a decimal (${reais(decimalCents)}) it is ${flag} ${decimalCents}`,
    )
  }
  return refuse(`${flag} must be an integer number of cents, e.g. 1000 for R$ 10,00; got "${input}"`)
}

/**
 * Reais written with digits and separators (`781,62`, `1.050,00`, `1,050.5`, `1050`) as exact
 * integer cents: the last separator followed by one or two digits is the decimal one, the others
 * group thousands. Decimal arithmetic on the digits (whole reais times 100 plus the cents, both
 * integers), never a float times 100: 19.99 * 100 is 1998.9999999999998.
 */
export function reaisDigitsToCents(amount: string): number {
  const match = /^(.*?)(?:[.,](\d{1,2}))?$/.exec(amount) as RegExpExecArray
  const whole = match[1].replace(/[.,]/g, '') || '0'
  const fraction = (match[2] ?? '').padEnd(2, '0')
  return Number(whole) * 100 + Number(fraction)
}

/** An amount flag as integer cents, or the usage error (exit 2) that says why it is not one. */
export function requireCents(input: string, flag: string): number {
  const parsed = parseCents(input, flag)
  if (!parsed.ok) throw new UsageError(parsed.message)
  return parsed.cents
}

/** An integer flag, or the usage error that says it is not one. */
export function requireInteger(input: string, flag: string): number {
  if (!/^-?\d+$/.test(input.trim())) throw new UsageError(`${flag} must be an integer, got "${input}"`)
  return Number(input)
}

/** An amount flag as integer cents within the documented bounds (1 to 10,000,000), or the usage error. */
export function requireAmount(input: string, flag: string): number {
  const cents = requireCents(input, flag)
  const {min, max} = LIMITS.amount
  if (cents < min || cents > max) throw new UsageError(`${flag} must be from ${min} to ${max} cents, got ${cents}`)
  return cents
}

/**
 * An amount in reais as a spreadsheet holds it (a file's `amount-brl`): `781,62`, `1.050,00`,
 * `R$ 1.050,00`, `1050`, or a number (a number cell, or a JSON number: 781.62), as exact cents.
 * A text with a point and no comma (`781.62`, `1.050`) has two readings, the point as the decimal
 * separator or between thousands, and is refused naming both.
 */
export function parseReais(value: string | number, field: string): CentsParse {
  const refuse = (message: string): CentsParse => ({ok: false, message})
  let text: string
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return refuse(`${field} must be an amount in reais, such as 781,62; got ${value}`)
    // A number's shortest decimal writing is its digits: 781.62 is "781.62", read here with a comma.
    text = String(value)
    if (/e/i.test(text)) return refuse(`${field} must be an amount in reais, such as 781,62; got ${text}`)
    if (!/^\d+(?:\.\d{1,2})?$/.test(text)) return refuse(`${field} holds fractions of a cent: ${text}`)
    return {ok: true, cents: reaisDigitsToCents(text.replace('.', ','))}
  }
  text = value.trim()
  const currency = /^R\$\s*/i.exec(text)
  const amount = currency ? text.slice(currency[0].length) : text
  if (/^\d+$/.test(amount)) return {ok: true, cents: Number(amount) * 100}
  // Brazil's writing: a comma before the cents, points between thousands.
  if (/^\d+,\d{1,2}$/.test(amount) || /^\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?$/.test(amount) && (amount.includes(',') || currency)) return {ok: true, cents: reaisDigitsToCents(amount)}
  if (/^\d{1,3}(?:,\d{3})+\.\d{1,2}$/.test(amount)) return {ok: true, cents: reaisDigitsToCents(amount)}
  if (/^\d+\.\d{1,2}$/.test(amount) || /^\d{1,3}(?:\.\d{3})+$/.test(amount)) {
    // 1.050.000 has no other reading.
    if (amount.split('.').length > 2) return {ok: true, cents: Number(amount.replaceAll('.', '')) * 100}
    const [whole, part] = amount.split('.') as [string, string]
    const decimal = reaisDigitsToCents(amount.replace('.', ','))
    const digits = Number(whole + part) * 100
    const asDecimal = `${reais(decimal)} (the point before the cents)`
    const asThousands = `${reais(digits)} (the point between thousands)`
    const readings = part.length === 3 ? `${asThousands} or ${reaisOfThousandths(amount)}` : `${asDecimal} or ${asThousands}`
    return refuse(`${field} ${value.trim()} has two readings, ${readings}: write it with a comma before the cents, as 781,62 or 1.050,00, or save the column as numbers`)
  }
  return refuse(`${field} must be an amount in reais, such as 781,62, 1.050,00 or R$ 1.050,00; got "${value}"`)
}

/** 1.050 read as a decimal with three places: R$ 1,05 when the last one is 0; else fractions of a cent. */
function reaisOfThousandths(amount: string): string {
  const [whole, part] = amount.split('.') as [string, string]
  if (part.endsWith('0')) return `${reais(reaisDigitsToCents(`${whole},${part.slice(0, 2)}`))} (the point before the cents)`
  return `${whole},${part} reais (the point before the cents, with fractions of a cent)`
}
