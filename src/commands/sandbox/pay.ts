import type {SandboxAction} from '../../api/gateway.js'
import {TransitionCommand, transitionAmountFlag} from '../../transition-command.js'

export default class SandboxPay extends TransitionCommand {
  static override summary = 'Pay a sandbox transaction, as if its QR code were scanned.'

  static override description = 'Moves a transaction from PIX_QRCODE_GENERATED to PAID and fills the payment: amountPaid, paymentDate, endToEnd, payer and receiver. Sandbox only: no real gateway has this control.'

  static override examples = ['<%= config.bin %> <%= command.id %> 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11', '<%= config.bin %> <%= command.id %> 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11 --amount 500']

  static override flags = {
    amount: transitionAmountFlag('Amount paid in cents (default: the whole amount).'),
  }

  protected readonly action: SandboxAction = 'pay'
}
