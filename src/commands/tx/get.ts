import type {Transaction} from '../../api/types.js'
import {BaseCommand} from '../../base-command.js'
import {runTxGet} from '../../tx/get.js'
import {txGetArgs, txGetFlags} from '../../tx/get-flags.js'

export {txGet, type TxGetOptions} from '../../tx/get.js'

export default class TxGet extends BaseCommand<typeof TxGet> {
  static override summary = 'Show a transaction, or watch it until it is paid.'

  static override description = `Looks a transaction up by id (GET /core/transaction/{id}) and shows its amounts in BRL, its status history as a timeline, the customer and seller, the items, and the payment, refund and infraction details when there are any. --json prints the record exactly as the gateway returned it.

--watch polls until the record reaches --until (default PAID), printing each status change to stderr, then shows it. Exit codes: 0 when the status is reached, 8 when --timeout (default 10m with --watch) runs out, 9 when the record settles in another final status (FAILED, REFUNDED, INFRACTION, BLOCKED) or in any status from which --until can no longer be reached (PENDING after PAID).`

  static override examples = [
    '<%= config.bin %> <%= command.id %> 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11',
    {description: 'Wait for the payment, up to 5 minutes', command: '<%= config.bin %> <%= command.id %> 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11 --watch --timeout 5m'},
    {description: 'Wait for a refund to complete, from a script', command: '<%= config.bin %> <%= command.id %> 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11 --watch --until REFUNDED --json'},
  ]

  static override args = txGetArgs

  static override flags = txGetFlags

  async run(): Promise<Transaction | undefined> {
    return runTxGet(this.flags, this.args, this.ctx)
  }
}
