import {Flags} from '@oclif/core'

import type {SandboxAction} from './api/gateway.js'
import type {Transaction} from './api/types.js'
import {BaseCommand, requireTransactionId, transactionIdArg} from './base-command.js'
import {requireCents} from './render/money.js'

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

  protected abstract readonly action: SandboxAction

  async run(): Promise<Transaction | undefined> {
    const id = requireTransactionId(this.args.id)
    const raw = (this.flags as {amount?: string}).amount
    const amount = raw === undefined ? undefined : requireCents(raw, '--amount')
    const session = await this.openSession()
    const {GatewayApi} = await import('./api/gateway.js')
    const record = await new GatewayApi(session.client).sandboxTransition(id, this.action, amount === undefined ? {} : {amount})
    if (this.jsonEnabled()) return record
    const {brl} = await import('./render/money.js')
    const {statusText} = await import('./render/transaction.js')
    const path = record.statusHistory.slice(-3).map((entry) => entry.status)
    this.out(`${this.paint('green', '✓')} ${this.action}: transaction ${record.id} is now ${statusText(record.status, this.paint)}`)
    this.out(`  History ends: ${path.join(' → ')}`)
    if (this.action === 'pay') this.out(`  Paid ${brl(record.amountPaid)} · end-to-end ${record.endToEnd}`)
    if (this.action === 'refund') this.out(`  Refunded ${brl(record.refundAmount)} · end-to-end ${record.endToEndRefund}`)
    if (this.action === 'infraction') this.out(`  Disputed ${brl(record.infractionAmount)}`)
    if (this.action === 'fail' && record.errorMessage) this.out(`  Error: ${record.errorMessage}`)
    return undefined
  }
}
