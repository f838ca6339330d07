import {formatCurrency} from '@brazilian-utils/brazilian-utils/format-currency'

/** Integer cents as BRL for people: 123456 becomes "R$ 1.234,56". JSON keeps cents. */
export function brl(cents: number | undefined | null): string {
  if (cents === undefined || cents === null || !Number.isFinite(cents)) return '-'
  return formatCurrency(cents / 100, {symbol: true})
}
