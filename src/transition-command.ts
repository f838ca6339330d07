import {Flags} from '@oclif/core'

import type {SandboxAction} from './api/gateway.js'
import type {Transaction} from './api/types.js'
import {BaseCommand, jsonFlag, requireTransactionId, transactionIdArg} from './base-command.js'
import type {CommandContext} from './cli/context.js'
import {requireAmount} from './input/money.js'

/** The --amount of the life-cycle controls that take one. */
export const transitionAmountFlag = (description: string) => Flags.string({description, helpValue: '<cents>'})

/**
 * The sandbox's life-cycle controls (pay, refund, infraction, block, fail): each moves one
 * transaction a step through its life on the profile's sandbox and shows where it ended up.
 */
export abstract class TransitionCommand extends BaseCommand<typeof TransitionCommand> {
  static override args = {
    id: transactionIdArg,
  }

  static override baseFlags = {...BaseCommand.baseFlags, json: jsonFlag('the transaction after the step')}

  protected abstract readonly action: SandboxAction

  async run(): Promise<Transaction | undefined> {
    const raw = (this.flags as {amount?: string}).amount
    const record = await sandboxTransition({id: this.args.id, action: this.action, amount: raw}, this.ctx)
    return this.ctx.globals.json ? record : undefined
  }
}

/** A sandbox life-cycle control: moves one transaction a step and shows where it ended up. */
export async function sandboxTransition(options: {id: string; action: SandboxAction; amount?: string}, ctx: CommandContext): Promise<Transaction> {
  const id = requireTransactionId(options.id)
  const amount = options.amount === undefined ? undefined : requireAmount(options.amount, '--amount')
  const api = await ctx.api()
  const record = await api.sandboxTransition(id, options.action, amount === undefined ? {} : {amount})
  if (ctx.globals.json) return record
  const {brl} = await import('./render/money.js')
  const {asciiText} = await import('./output/printable.js')
  const {statusText} = await import('./render/transaction.js')
  const path = record.statusHistory.slice(-3).map((entry) => entry.status)
  ctx.out(`${ctx.paint('green', '✓')} ${options.action}: transaction ${asciiText(record.id)} is now ${statusText(record.status, ctx.paint)}`)
  ctx.out(`  History ends: ${path.join(' → ')}`)
  if (options.action === 'pay') ctx.out(`  Paid ${brl(record.amountPaid)} · end-to-end ${record.endToEnd}`)
  if (options.action === 'refund') ctx.out(`  Refunded ${brl(record.refundAmount)} · end-to-end ${record.endToEndRefund}`)
  if (options.action === 'infraction') ctx.out(`  Disputed ${brl(record.infractionAmount)}`)
  if (options.action === 'fail' && record.errorMessage) ctx.out(`  Error: ${record.errorMessage}`)
  return record
}
