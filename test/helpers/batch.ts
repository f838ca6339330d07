import {randomUUID} from 'node:crypto'

/** A valid CPF made from a seed: nine digits and their two check digits. */
export function cpf(seed: number): string {
  const base = String(100_000_000 + ((seed * 7919) % 899_999_999)).slice(0, 9).split('').map(Number)
  if (base.every((digit) => digit === base[0])) base[8] = (base[8] + 1) % 10
  const check = (digits: number[]) => {
    const sum = digits.reduce((total, digit, index) => total + digit * (digits.length + 1 - index), 0)
    const rest = (sum * 10) % 11
    return rest === 10 ? 0 : rest
  }
  const first = check(base)
  const second = check([...base, first])
  return [...base, first, second].join('')
}

export interface PayoutRow {
  amount: number
  pixKey: string
  externalCode: string
  idempotencyKey?: string
}

/** `count` payouts with keys of every type in turn (CPF, EMAIL, PHONE, EVP), amounts 1,00 to 50,00. */
export function payouts(count: number, tag: string): PayoutRow[] {
  return Array.from({length: count}, (_, index) => {
    const n = index + 1
    const kinds = [() => cpf(n), () => `payee-${n}@example.com`, () => `+55119${String(80_000_000 + n)}`, () => randomUUID()]
    return {amount: 100 + ((n * 37) % 4900), pixKey: kinds[index % 4](), externalCode: `${tag}-${String(n).padStart(5, '0')}`}
  })
}

/** The rows as CSV with a header, in the flags' names. */
export function payoutCsv(rows: PayoutRow[]): string {
  const withKey = rows.some((row) => row.idempotencyKey !== undefined)
  const header = ['amount', 'pix-key', 'external-code', ...(withKey ? ['idempotency-key'] : [])].join(',')
  const lines = rows.map((row) => [row.amount, row.pixKey, row.externalCode, ...(withKey ? [row.idempotencyKey ?? ''] : [])].join(','))
  return `${[header, ...lines].join('\n')}\n`
}

/** Results on stdout, one JSON object a line. */
export function ndjson<T = Record<string, unknown>>(text: string): T[] {
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T)
}

/** The sandbox's withdrawals (its own list, not the gateway API). */
export async function sandboxWithdrawals(baseUrl: string): Promise<Array<{id: string; externalCode?: string; amount: number}>> {
  const response = await fetch(`${baseUrl}/_sandbox/withdrawals`)
  return ((await response.json()) as {data: Array<{id: string; externalCode?: string; amount: number}>}).data
}
