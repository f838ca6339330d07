import {Args, Flags} from '@oclif/core'

import {BaseCommand, requireTransactionId} from '../../base-command.js'
import type {Withdrawal} from '../../sandbox/domain/withdrawals.js'

export default class SandboxSettle extends BaseCommand<typeof SandboxSettle> {
  static override summary = 'Settle a sandbox withdrawal: paid, or failed with --fail.'

  static override description =
    'Moves a PENDING withdrawal to PAID and fills its endToEnd, or to FAILED with --fail and sets its errorMessage, as the destination bank would. A withdrawal with a webhookUrl is notified. Sandbox only: no real gateway has this control.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11',
    '<%= config.bin %> <%= command.id %> 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11 --fail --message "account closed"',
  ]

  static override args = {
    id: Args.string({description: 'Withdrawal id (a UUID).', required: true}),
  }

  static override flags = {
    fail: Flags.boolean({description: 'Fail the withdrawal instead of paying it.'}),
    message: Flags.string({description: 'With --fail: the errorMessage (default: a refusal by the destination bank).', dependsOn: ['fail']}),
  }

  async run(): Promise<Withdrawal | undefined> {
    const id = requireTransactionId(this.args.id)
    const {fail, message} = this.flags
    const session = await this.openSession()
    const {body: record} = await session.client.request<Withdrawal>('POST', `/_sandbox/withdrawals/${encodeURIComponent(id)}/settle`, {
      json: fail ? {status: 'FAILED', ...(message === undefined ? {} : {message})} : {status: 'PAID'},
      context: `sandbox settle of ${id}`,
    })
    if (this.jsonEnabled()) return record
    const {brl} = await import('../../render/money.js')
    const {statusText} = await import('../../render/transaction.js')
    this.out(`${this.paint('green', '✓')} settle: withdrawal ${record.id} is now ${statusText(record.status, this.paint)}`)
    this.out(`  ${brl(record.amount)} to the ${record.pixKeyType} key ${record.pixKey}`)
    if (record.endToEnd) this.out(`  End-to-end ${record.endToEnd}`)
    if (record.errorMessage) this.out(`  Error: ${record.errorMessage}`)
    return undefined
  }
}
