import {checkEndpointPath} from '../api/base-url.js'
import {DEFAULT_WITHDRAW_PATH, TRANSACTION_LOOKUP, TRANSACTION_PATH} from '../api/gateway.js'
import type {CreateTransactionResponse, WithdrawResponse} from '../api/types.js'
import type {CommandContext} from '../cli/context.js'
import type {CreateTransactionBody} from '../schemas/transaction.js'
import type {WithdrawBody} from '../schemas/withdraw.js'
import type {MoneySend} from './money.js'

/** The requests the one send path sends: a charge and a withdrawal, for the single commands and their batches. */

/** A charge: journalled, with its lookup for the status after a replay. */
export function chargeSend(body: CreateTransactionBody, command: string): MoneySend<CreateTransactionResponse> {
  return {
    one: 'charge',
    spec: {
      command,
      idempotencyKey: body.idempotencyKey,
      amount: body.amount,
      externalCode: body.externalCode,
      request: {method: 'POST', path: TRANSACTION_PATH, body},
      lookup: TRANSACTION_LOOKUP,
    },
    post: (api) => api.postTransaction(body),
  }
}

/** A withdrawal: journalled with its key (shown masked), replayed as sent. */
export function withdrawalSend(body: WithdrawBody & {idempotencyKey: string}, path: string, command: string): MoneySend<WithdrawResponse> {
  return {
    one: 'withdrawal',
    spec: {
      command,
      idempotencyKey: body.idempotencyKey,
      amount: body.amount,
      externalCode: body.externalCode,
      destination: body.pixKey,
      request: {method: 'POST', path, body},
    },
    post: (api) => api.withdraw(body, {path}),
  }
}

/** The withdrawal endpoint's path: GATEWAY_WITHDRAW_PATH, else the profile's, else /core/withdraw. */
export async function withdrawPath(ctx: CommandContext): Promise<string> {
  const session = await ctx.session()
  if (ctx.env.GATEWAY_WITHDRAW_PATH) return checkEndpointPath(ctx.env.GATEWAY_WITHDRAW_PATH, 'GATEWAY_WITHDRAW_PATH')
  if (session.settings?.withdrawPath) return checkEndpointPath(session.settings.withdrawPath, `the withdrawPath of profile "${session.profile}"`)
  return DEFAULT_WITHDRAW_PATH
}
