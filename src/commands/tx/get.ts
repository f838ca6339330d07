import {Flags} from '@oclif/core'

import type {Transaction} from '../../api/types.js'
import {BaseCommand, durationFlag, fieldsFlag, transactionIdArg, jsonFlag} from '../../base-command.js'
import {TRANSACTION_RECORD_FIELDS} from '../../output/fields.js'
import {anyCaseOptions} from '../../input/options.js'
import {TRANSACTION_STATUSES} from '../../schemas/enums.js'
import {runTxGet} from '../../tx/get.js'

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

  static override args = {
    id: transactionIdArg,
  }

  static override flags = {
    json: jsonFlag('the transaction exactly as the gateway returned it'),
    fields: fieldsFlag('the transaction', TRANSACTION_RECORD_FIELDS),
    watch: Flags.boolean({description: 'Poll until the record reaches --until.'}),
    interval: durationFlag({description: 'Time between polls with --watch.', default: 2000, defaultHelp: async () => '2s'}),
    until: Flags.string({
      description: `Status to wait for with --watch, any case: ${TRANSACTION_STATUSES.join(', ')}.`,
      default: 'PAID',
      options: anyCaseOptions(TRANSACTION_STATUSES),
      async parse(input) {
        const status = input.trim().toUpperCase()
        if (!(TRANSACTION_STATUSES as readonly string[]).includes(status)) throw new Error(`must be one of ${TRANSACTION_STATUSES.join(', ')}, got "${input}"`)
        return status
      },
    }),
    output: Flags.string({description: 'Format: table (the human view, default), json, ndjson (one line) or csv (the deposit export\'s columns).', options: ['table', 'json', 'ndjson', 'csv']}),
    timeout: durationFlag({description: 'How long to wait: for the answer (default 30s), or with --watch for the status (default 10m).', helpGroup: 'GLOBAL'}),
  }

  async run(): Promise<Transaction | undefined> {
    return runTxGet(this.flags, this.args, this.ctx)
  }
}
