import type {WithdrawResponse} from '../api/types.js'
import type {Paint} from '../cli/terminal.js'
import {asciiText as a, printable as t} from '../output/printable.js'
import {brl} from './money.js'

/** The question asked before money leaves: amount in BRL, the key exactly as it will be sent, its type. */
export function confirmQuestion(body: {amount: number; pixKey: string; pixKeyType: string; externalCode?: string}, paint: Paint): string {
  const code = body.externalCode ? ` (external code ${t(body.externalCode)})` : ''
  return `Withdraw ${paint('bold', brl(body.amount))} to the ${a(body.pixKeyType)} key ${paint('bold', body.pixKey)}${code}?`
}

/** The withdrawal as created: id, status, amount, destination (key masked), references. */
export function withdrawalLines(
  withdrawal: WithdrawResponse,
  to: {pixKey: string; pixKeyType: string},
  paint: Paint,
  options: {replayed?: boolean; status?: string} = {},
): string[] {
  const heading = options.replayed ? 'Withdrawal (created earlier)' : 'Withdrawal created'
  const lines = [
    `${paint('green', '✓')} ${heading}`,
    `  ID:            ${a(withdrawal.id)}`,
    `  Status:        ${paint('bold', a(options.status ?? withdrawal.status))}`,
    `  Amount:        ${brl(withdrawal.amount)}`,
    `  To:            ${a(to.pixKeyType)} key ${t(to.pixKey)}`,
  ]
  if (withdrawal.externalCode) lines.push(`  External code: ${t(withdrawal.externalCode)}`)
  return lines
}
