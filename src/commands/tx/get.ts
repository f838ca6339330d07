import {Flags} from '@oclif/core'

import {UnavailableError, RateLimitError, WatchSettledError, WatchTimeoutError} from '../../api/errors.js'
import type {Transaction} from '../../api/types.js'
import {BaseCommand, durationFlag, requireTransactionId, transactionIdArg} from '../../base-command.js'
import {FINAL_STATUSES, TRANSACTION_STATUSES} from '../../schemas/enums.js'

const REQUEST_TIMEOUT_MS = 30_000
const WATCH_TIMEOUT_MS = 600_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export default class TxGet extends BaseCommand<typeof TxGet> {
  static override summary = 'Show a transaction, or watch it until it is paid.'

  static override description = `Looks a transaction up by id (GET /core/transaction/{id}) and shows its amounts in BRL, its status history as a timeline, the customer and seller, the items, and the payment, refund and infraction details when there are any. --json prints the record exactly as the gateway returned it.

--watch polls until the record reaches --until (default PAID), printing each status change to stderr, then shows it. Exit codes: 0 when the status is reached, 8 when --timeout (default 10m with --watch) runs out, 9 when the record settles in another final status (FAILED, REFUNDED, INFRACTION, BLOCKED).`

  static override examples = [
    '<%= config.bin %> <%= command.id %> 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11',
    {description: 'Wait for the payment, up to 5 minutes', command: '<%= config.bin %> <%= command.id %> 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11 --watch --timeout 5m'},
    {description: 'Wait for a refund to complete, from a script', command: '<%= config.bin %> <%= command.id %> 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11 --watch --until REFUNDED --json'},
  ]

  static override args = {
    id: transactionIdArg,
  }

  static override flags = {
    watch: Flags.boolean({description: 'Poll until the record reaches --until.'}),
    interval: durationFlag({description: 'Time between polls with --watch.', default: 2000, defaultHelp: async () => '2s'}),
    until: Flags.string({description: 'Status to wait for with --watch.', options: [...TRANSACTION_STATUSES], default: 'PAID'}),
    timeout: durationFlag({description: 'How long to wait: for the answer (default 30s), or with --watch for the status (default 10m).', helpGroup: 'GLOBAL'}),
  }

  async run(): Promise<Transaction | undefined> {
    const {flags} = this
    const id = requireTransactionId(this.args.id)
    const requestTimeout = flags.watch ? REQUEST_TIMEOUT_MS : (flags.timeout ?? REQUEST_TIMEOUT_MS)
    const session = await this.openSession({timeoutMs: requestTimeout})
    const {GatewayApi} = await import('../../api/gateway.js')
    const api = new GatewayApi(session.client)
    const record = flags.watch ? await this.watch(api, id) : await api.getTransaction(id)
    if (this.jsonEnabled()) return record
    const {transactionLines} = await import('../../render/transaction.js')
    for (const line of transactionLines(record, this.paint)) this.out(line)
    return undefined
  }

  private async watch(api: import('../../api/gateway.js').GatewayApi, id: string): Promise<Transaction> {
    const {until, interval} = this.flags
    const limit = this.flags.timeout ?? WATCH_TIMEOUT_MS
    const deadline = Date.now() + limit
    const {formatDuration} = await import('../../render/duration.js')
    let last: string | undefined
    let record: Transaction | undefined
    for (;;) {
      try {
        record = await api.getTransaction(id, {timeoutMs: Math.max(1000, Math.min(REQUEST_TIMEOUT_MS, deadline - Date.now()))})
        if (record.status !== last) {
          const time = new Date().toISOString().slice(11, 19)
          this.note(last === undefined ? `${time} ${record.status}` : `${time} ${last} → ${record.status}`)
          last = record.status
        }
        if (record.status === until) return record
        if ((FINAL_STATUSES as readonly string[]).includes(record.status)) {
          throw new WatchSettledError(`transaction ${id} settled in ${record.status}, not ${until}`, {body: record})
        }
      } catch (error) {
        // A passing failure of the gateway does not end a watch; anything else does.
        if (!(error instanceof UnavailableError || error instanceof RateLimitError)) throw error
        this.note(`Warning: ${error.message}; still watching`)
      }
      if (Date.now() + interval > deadline) {
        throw new WatchTimeoutError(
          `timed out after ${formatDuration(limit)} waiting for ${until}; transaction ${id} is ${last ?? 'unknown'}`,
          {body: record},
        )
      }
      await sleep(interval)
    }
  }
}
