import {Args, Flags} from '@oclif/core'

import {BaseCommand, jsonFlag, requireTransactionId} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'
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
    json: jsonFlag('the withdrawal after the step'),
    fail: Flags.boolean({description: 'Fail the withdrawal instead of paying it.'}),
    message: Flags.string({description: 'With --fail: the errorMessage (default: a refusal by the destination bank).', dependsOn: ['fail']}),
  }

  async run(): Promise<Withdrawal | undefined> {
    const record = await sandboxSettle({id: this.args.id, fail: this.flags.fail, message: this.flags.message}, this.ctx)
    return this.ctx.globals.json ? record : undefined
  }
}

/** `sandbox settle`: a PENDING withdrawal paid, or failed, as the destination bank would. */
export async function sandboxSettle(options: {id: string; fail?: boolean; message?: string}, ctx: CommandContext): Promise<Withdrawal> {
  const id = requireTransactionId(options.id)
  const session = await ctx.session()
  const {body: record} = await session.client.request<Withdrawal>('POST', `/_sandbox/withdrawals/${encodeURIComponent(id)}/settle`, {
    json: options.fail ? {status: 'FAILED', ...(options.message === undefined ? {} : {message: options.message})} : {status: 'PAID'},
    context: `sandbox settle of ${id}`,
  })
  if (ctx.globals.json) return record
  const {brl} = await import('../../render/money.js')
  const {asciiText} = await import('../../output/printable.js')
  const {statusText} = await import('../../render/transaction.js')
  ctx.out(`${ctx.paint('green', '✓')} settle: withdrawal ${asciiText(record.id)} is now ${statusText(record.status, ctx.paint)}`)
  ctx.out(`  ${brl(record.amount)} to the ${record.pixKeyType} key ${record.pixKey}`)
  if (record.endToEnd) ctx.out(`  End-to-end ${record.endToEnd}`)
  if (record.errorMessage) ctx.out(`  Error: ${record.errorMessage}`)
  return record
}
