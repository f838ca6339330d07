import {Flags} from '@oclif/core'

import {RateLimitError, UnavailableError} from '../../api/errors.js'
import type {GatewayApi} from '../../api/gateway.js'
import type {Deposit, Transaction} from '../../api/types.js'
import {BaseCommand, durationFlag, fieldsFlag, requireTransactionId, transactionIdArg, jsonFlag} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'
import {UsageError, WatchSettledError, WatchTimeoutError} from '../../cli/errors.js'
import {TRANSACTION_RECORD_FIELDS} from '../../output/fields.js'
import {canReach, FINAL_STATUSES, TRANSACTION_STATUSES} from '../../schemas/enums.js'

const REQUEST_TIMEOUT_MS = 30_000
const WATCH_TIMEOUT_MS = 600_000

export interface TxGetOptions {
  id: string
  watch?: boolean
  /** Between polls, milliseconds. */
  intervalMs: number
  until: string
  /** The wait for one answer, or with --watch for the status. */
  timeoutMs?: number
  /** table (the human view, default), json, ndjson or csv. */
  output?: string
}

/** `tx get`: one lookup, or a watch until the record reaches a status. */
export async function txGet(options: TxGetOptions, ctx: CommandContext): Promise<Transaction> {
  const id = requireTransactionId(options.id)
  const requestTimeout = options.watch ? REQUEST_TIMEOUT_MS : (options.timeoutMs ?? REQUEST_TIMEOUT_MS)
  const api = await ctx.api({timeoutMs: requestTimeout})
  const record = options.watch ? await watch(api, id, options, ctx) : await api.getTransaction(id)
  const {outputFormat} = await import('../../output/printer.js')
  const format = outputFormat(ctx, options.output)
  if (ctx.globals.json && !options.output) return record
  if (format === 'table') {
    const {transactionLines} = await import('../../render/transaction.js')
    for (const line of transactionLines(record, ctx.paint, ctx.env.TZ)) ctx.out(line)
  } else {
    const {printList} = await import('../../output/printer.js')
    const {DEPOSIT_CSV, depositColumns} = await import('../../render/deposits.js')
    // A transaction has every column of a deposit but its origin, which stays empty.
    await printList(ctx, format, [{...record, depositOrigin: undefined} as unknown as Deposit], {columns: depositColumns(ctx.env.TZ), csv: DEPOSIT_CSV})
  }
  return record
}

/**
 * Polls until the record reaches `until`. Each change is a line on stderr; in a terminal a spinner
 * shows the elapsed time and the current status between them. A passing outage of the gateway does
 * not end the watch: it is told once, and so is its end.
 */
/** Statuses of a charge not paid yet: its QR code's expiry ends them. */
const UNPAID = new Set(['PENDING', 'PIX_QRCODE_GENERATED'])

async function watch(api: GatewayApi, id: string, options: TxGetOptions, ctx: CommandContext): Promise<Transaction> {
  const {until, intervalMs} = options
  const limit = options.timeoutMs ?? WATCH_TIMEOUT_MS
  const started = ctx.now()
  const deadline = started + limit
  const {formatDuration} = await import('../../input/duration.js')
  const {statusLine} = await import('../../output/status-line.js')
  const line = statusLine(ctx.io)
  let last: string | undefined
  let record: Transaction | undefined
  let outage: string | undefined
  const stamp = () => new Date(ctx.now()).toISOString().slice(11, 19)
  const show = () => line.set(`Waiting for ${until} · ${last ?? 'unknown'} · ${formatDuration(ctx.now() - started)}`)
  try {
    for (;;) {
      try {
        record = await api.getTransaction(id, {timeoutMs: Math.max(1000, Math.min(REQUEST_TIMEOUT_MS, deadline - ctx.now()))})
        if (outage) {
          line.note(`${stamp()} the gateway answers again (after: ${outage})`)
          outage = undefined
        }
        if (record.status !== last) {
          line.note(last === undefined ? `${stamp()} ${record.status}` : `${stamp()} ${last} → ${record.status}`)
          last = record.status
        }
        if (record.status === until) return record
        // An unpaid charge whose QR code has expired can no longer be paid: waiting on is pointless.
        const expiry = Date.parse(record.pixResponse?.expirationDate ?? '')
        if (until === 'PAID' && UNPAID.has(record.status) && expiry <= ctx.now()) {
          throw new WatchSettledError(`transaction ${id} is ${record.status} and its QR code expired at ${record.pixResponse!.expirationDate}: it can no longer be paid`, {body: record})
        }
        if (!canReach(record.status, until)) {
          const final = (FINAL_STATUSES as readonly string[]).includes(record.status)
          throw new WatchSettledError(
            final
              ? `transaction ${id} settled in ${record.status}, not ${until}`
              : `transaction ${id} is ${record.status}, from which it can no longer become ${until}`,
            {body: record},
          )
        }
      } catch (error) {
        // A passing failure of the gateway does not end a watch; anything else does.
        if (!(error instanceof UnavailableError || error instanceof RateLimitError)) throw error
        if (!outage) line.note(`Warning: ${error.message}; still watching`)
        outage = error.message
      }
      if (ctx.now() + intervalMs > deadline) {
        throw new WatchTimeoutError(
          `timed out after ${formatDuration(limit)} waiting for ${until}; transaction ${id} is ${last ?? 'unknown'}`,
          {body: record},
        )
      }
      show()
      await line.wait(intervalMs, ctx.sleep, show)
    }
  } finally {
    line.clear()
  }
}

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
    const {flags} = this
    if (flags.fields !== undefined && flags.output !== undefined && flags.output !== 'json') {
      throw new UsageError(`--fields picks from the --json document, and does not go with --output ${flags.output}`)
    }
    // --fields prints the --json document, picked.
    const output = flags.fields === undefined ? flags.output : undefined
    const record = await txGet(
      {id: this.args.id, watch: flags.watch, intervalMs: flags.interval, until: flags.until, timeoutMs: flags.timeout, output},
      this.ctx,
    )
    return this.ctx.globals.json && !output ? record : undefined
  }
}
