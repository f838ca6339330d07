import {Flags} from '@oclif/core'

import type {Deposit} from '../../api/types.js'
import {BaseCommand, jsonFlag} from '../../base-command.js'
import {requireAmount} from '../../input/money.js'
import {DEPOSIT_STATUSES} from '../../schemas/enums.js'

export default class SandboxDeposit extends BaseCommand<typeof SandboxDeposit> {
  static override summary = 'Receive a deposit by PIX key in the sandbox.'

  static override description =
    'Makes a deposit of origin PIX_KEY, as when someone sends money to the merchant\'s PIX key. It starts in DEPOSIT_PIXKEY_GENERATED unless --status says otherwise (PENDING_COMPLIANCE, PAID, ...). Sandbox only: no real gateway has this control.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> --amount 2500',
    '<%= config.bin %> <%= command.id %> --amount 990000 --status PENDING_COMPLIANCE',
  ]

  static override flags = {
    json: jsonFlag('the new deposit'),
    amount: Flags.string({description: 'Amount in integer cents.', required: true, helpValue: '<cents>'}),
    status: Flags.string({description: 'Status of the new deposit.', options: [...DEPOSIT_STATUSES]}),
  }

  async run(): Promise<Deposit | undefined> {
    const amount = requireAmount(this.flags.amount, '--amount')
    const api = await this.ctx.api()
    const deposit = await api.sandboxDeposit({amount, status: this.flags.status})
    if (this.ctx.globals.json) return deposit as Deposit
    const {brl} = await import('../../render/money.js')
    this.ctx.out(`${this.ctx.paint('green', '✓')} Deposit ${deposit.id}: ${brl(deposit.amount)} by PIX key, ${deposit.status}`)
    return undefined
  }
}
