import {UsageError} from '../cli/errors.js'
import {LIMITS} from '../schemas/enums.js'

export type CentsParse = {ok: true; cents: number} | {ok: false; message: string}

/**
 * Reads an amount flag as integer cents. A decimal is refused with the cents value it most likely
 * meant ("10.00 is --amount 1000"), since the gateway takes cents everywhere.
 */
export function parseCents(input: string, flag: string): CentsParse {
  const value = input.trim()
  if (/^\d+$/.test(value)) return {ok: true, cents: Number(value)}
  const decimal = /^(\d+)[.,](\d{1,2})$/.exec(value)
  if (decimal) {
    const cents = Number(decimal[1]) * 100 + Number(decimal[2].padEnd(2, '0'))
    // A guess over the limit is no suggestion: say what it would be, and that it is too much.
    if (cents > LIMITS.amount.max) {
      return {ok: false, message: `${flag} takes integer cents, not a decimal: ${value} would be ${cents} cents, over the limit of ${LIMITS.amount.max}`}
    }
    return {ok: false, message: `${flag} takes integer cents, not a decimal: ${value} is ${flag} ${cents}`}
  }
  return {ok: false, message: `${flag} must be an integer number of cents, e.g. 1000 for R$ 10,00; got "${input}"`}
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
