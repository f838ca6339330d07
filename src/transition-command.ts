import {Args, Flags} from '@oclif/core'

import {UsageError} from './api/errors.js'
import type {SandboxAction} from './api/gateway.js'
import type {Transaction} from './api/types.js'
import {BaseCommand} from './base-command.js'
import {parseCents} from './render/money.js'
import {UUID_PATTERN} from './schemas/enums.js'

/** The --amount of the life-cycle controls that take one. */
export const transitionAmountFlag = (description: string) => Flags.string({description, helpValue: '<cents>'})

/**
 * The sandbox's life-cycle controls (pay, refund, infraction, block, fail): each moves one
 * transaction a step through its life on the profile's sandbox and shows where it ended up.
 */
export abstract class TransitionCommand extends BaseCommand<typeof TransitionCommand> {
  static override args = {
    id: Args.string({description: 'Transaction id (a UUID).', required: true}),
  }

  protected abstract readonly action: SandboxAction

  async run(): Promise<Transaction | undefined> {
    const {id} = this.args
    if (!UUID_PATTERN.test(id)) throw new UsageError(`ID must be a UUID; got "${id}"`)
    const raw = (this.flags as {amount?: string}).amount
    let amount: number | undefined
    if (raw !== undefined) {
      const parsed = parseCents(raw, '--amount')
      if (!parsed.ok) throw new UsageError(parsed.message)
      amount = parsed.cents
    }
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
