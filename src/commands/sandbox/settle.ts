import {Args, Flags} from '@oclif/core'

import type {SandboxWithdrawal} from '../../api/types.js'
import {BaseCommand, requireTransactionId} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'

export interface SandboxSettleOptions {
  id: string
  fail?: boolean
  /** With fail: the errorMessage. */
  message?: string
}

/** `sandbox settle`: a PENDING withdrawal is paid, or fails, as the destination bank would decide. */
export async function sandboxSettle(options: SandboxSettleOptions, ctx: CommandContext): Promise<SandboxWithdrawal> {
  const id = requireTransactionId(options.id)
  const api = await ctx.api()
  const record = await api.sandboxSettle(id, options.fail ? {status: 'FAILED', ...(options.message === undefined ? {} : {message: options.message})} : {status: 'PAID'})
  if (ctx.globals.json) return record
  const {brl} = await import('../../render/money.js')
  const {statusText} = await import('../../render/transaction.js')
  ctx.out(`${ctx.paint('green', '✓')} settle: withdrawal ${record.id} is now ${statusText(record.status, ctx.paint)}`)
  ctx.out(`  ${brl(record.amount)} to the ${record.pixKeyType} key ${record.pixKey}`)
  if (record.endToEnd) ctx.out(`  End-to-end ${record.endToEnd}`)
  if (record.errorMessage) ctx.out(`  Error: ${record.errorMessage}`)
  return record
}

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

  async run(): Promise<SandboxWithdrawal | undefined> {
    const record = await sandboxSettle({id: this.args.id, fail: this.flags.fail, message: this.flags.message}, this.ctx)
    return this.ctx.globals.json ? record : undefined
  }
}
