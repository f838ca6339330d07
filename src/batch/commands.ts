import {TRANSACTION_PATH} from '../api/gateway.js'
import type {CommandContext} from '../cli/context.js'
import {nameIssue} from '../input/fields.js'
import {maskKey} from '../input/pix-key.js'
import {nameCreateIssue, prepareCreate, TX_CREATE_FIELDS} from '../input/transaction.js'
import {prepareWithdraw, WITHDRAW_FIELDS} from '../input/withdraw.js'
import type {CreateTransactionBody} from '../schemas/transaction.js'
import type {WithdrawBody} from '../schemas/withdraw.js'
import {sendMoney} from '../send/money.js'
import {chargeSend, withdrawalSend, withdrawPath} from '../send/requests.js'
import {TX_CREATE_MAX_TOTAL, WITHDRAW_MAX_TOTAL} from './limits.js'
import type {BatchCommand, RowResult} from './run.js'

/**
 * The two commands that take --batch, as the batch runner sees them: each row checked by the
 * single command's own preparation (flag parsers, PIX key resolution, the contract), and sent
 * through the one send path the single command uses.
 */

/** Every row carries a key (derived or its own): a key never needs to be made here. */
const noKey = (): string => {
  throw new Error('a batch row always has an idempotency key')
}


type WithdrawRow = WithdrawBody & {idempotencyKey: string}
type ChargeRow = CreateTransactionBody & {idempotencyKey: string}

export function withdrawBatch(): BatchCommand<WithdrawRow> {
  let path: string | undefined
  const pathOf = async (ctx: CommandContext) => {
    path ??= await withdrawPath(ctx)
    return path
  }
  return {
    command: 'withdraw',
    one: 'withdrawal',
    many: 'withdrawals',
    table: WITHDRAW_FIELDS,
    keyPrefix: 'payout',
    defaultMaxTotal: WITHDRAW_MAX_TOTAL,
    async prepare(flags) {
      const prepared = await prepareWithdraw(flags, {}, noKey)
      return {body: prepared.value, issues: prepared.issues.map((issue) => ({...issue, text: nameIssue(WITHDRAW_FIELDS, issue, prepared)}))}
    },
    async destination(ctx) {
      const session = await ctx.session()
      return session.client.url(await pathOf(ctx)).href
    },
    byKeyType(bodies) {
      const counts: Record<string, number> = {}
      for (const body of bodies) counts[body.pixKeyType] = (counts[body.pixKeyType] ?? 0) + 1
      return counts
    },
    async send(ctx, {body}, options) {
      const sent = await sendMoney(ctx, withdrawalSend(body, await pathOf(ctx), 'withdraw --batch'), options)
      return {id: sent.record.id, status: sent.status, replayed: sent.replayed}
    },
    resultFields(body) {
      // Masked like a document, as the journal and the single command show it.
      return {pixKeyType: body.pixKeyType, pixKey: maskKey(body.pixKey)}
    },
    csv: [
      ['pixKeyType', (result: RowResult) => result.pixKeyType],
      ['pixKey', (result: RowResult) => result.pixKey],
    ],
    columns: [{header: 'Key', value: (result) => `${String(result.pixKeyType)} ${String(result.pixKey)}`, priority: 5}],
  }
}

export function txCreateBatch(): BatchCommand<ChargeRow> {
  return {
    command: 'tx create',
    one: 'charge',
    many: 'charges',
    table: TX_CREATE_FIELDS,
    keyPrefix: 'charge',
    defaultMaxTotal: TX_CREATE_MAX_TOTAL,
    async prepare(flags) {
      const prepared = await prepareCreate(flags, {}, noKey)
      return {body: prepared.value, issues: prepared.issues.map((issue) => ({...issue, text: nameCreateIssue(prepared, issue)}))}
    },
    async destination(ctx) {
      const session = await ctx.session()
      return session.client.url(TRANSACTION_PATH).href
    },
    async send(ctx, {body}, options) {
      const sent = await sendMoney(ctx, chargeSend(body, 'tx create --batch'), options)
      // The copy-and-paste code is what a batch of charges is for: it goes to each payer.
      return {id: sent.record.id, status: sent.status, replayed: sent.replayed, extra: {pixCode: sent.record.pixResponse?.uri ?? null}}
    },
    resultFields: () => ({pixCode: null}),
    csv: [['pixCode', (result: RowResult) => result.pixCode]],
  }
}
