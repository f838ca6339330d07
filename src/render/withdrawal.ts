import type {WithdrawResponse} from '../api/types.js'
import type {Paint} from '../cli/terminal.js'
import {brl} from './money.js'

/** The question asked before money leaves: amount in BRL, the key exactly as it will be sent, its type. */
export function confirmQuestion(body: {amount: number; pixKey: string; pixKeyType: string; externalCode?: string}, paint: Paint): string {
  const code = body.externalCode ? ` (external code ${body.externalCode})` : ''
  return `Withdraw ${paint('bold', brl(body.amount))} to the ${body.pixKeyType} key ${paint('bold', body.pixKey)}${code}?`
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
    `  ID:            ${withdrawal.id}`,
    `  Status:        ${paint('bold', options.status ?? withdrawal.status)}`,
    `  Amount:        ${brl(withdrawal.amount)}`,
    `  To:            ${to.pixKeyType} key ${to.pixKey}`,
  ]
  if (withdrawal.externalCode) lines.push(`  External code: ${withdrawal.externalCode}`)
  return lines
}
