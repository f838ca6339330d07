import {RateLimitError, UnavailableError} from '../api/errors.js'
import type {GatewayApi} from '../api/gateway.js'
import type {Deposit, Transaction} from '../api/types.js'
import {requireTransactionId} from '../cli/outcome.js'
import type {CommandContext} from '../cli/context.js'
import {UsageError, WatchSettledError, WatchTimeoutError} from '../cli/errors.js'
import {canReach, FINAL_STATUSES} from '../schemas/enums.js'

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
  /** Draw the charge's QR code (even when stdout is not a terminal). */
  qr?: boolean
  /** Write the charge's QR image (PNG) to this file. */
  qrPng?: string
}

/** `tx get`: one lookup, or a watch until the record reaches a status. */
export async function txGet(options: TxGetOptions, ctx: CommandContext): Promise<Transaction> {
  const id = requireTransactionId(options.id)
  const requestTimeout = options.watch ? REQUEST_TIMEOUT_MS : (options.timeoutMs ?? REQUEST_TIMEOUT_MS)
  if (options.qrPng !== undefined) await (await import('./qr.js')).checkWritable(options.qrPng, '--qr-png')
  const api = await ctx.api({timeoutMs: requestTimeout})
  const record = options.watch ? await watch(api, id, options, ctx) : await api.getTransaction(id)
  const {outputFormat} = await import('../output/printer.js')
  const format = outputFormat(ctx, options.output)
  if (options.qrPng !== undefined || options.qr) {
    if (!record.pixResponse?.uri) throw new UsageError(`transaction ${id} has no PIX code (no pixResponse): there is no QR code to ${options.qr ? 'draw' : 'write'}`)
  }
  if (options.qrPng !== undefined) {
    const image = record.pixResponse?.qrCodeBase64
    if (!image) {
      ctx.note('Warning: the gateway sent no QR image (qrCodeBase64); --qr-png wrote nothing.')
    } else {
      // A failed write is a WriteError naming the file and the cause in words (exit 1).
      await (await import('./qr.js')).writeQrPng(options.qrPng, image)
      if (!ctx.globals.json) ctx.note(`QR code of transaction ${id} written to ${options.qrPng}`)
    }
  }
  if (ctx.globals.json && !options.output) return record
  if (format === 'table') {
    const {transactionLines} = await import('../render/transaction.js')
    const lines = transactionLines(record, ctx.paint, ctx.env.TZ)
    const uri = record.pixResponse?.uri
    if (uri && options.qr) {
      // The record first, then the QR code with only the copy-and-paste code under it: the same rule
      // as tx create's (drawn only whole on screen, with the lines after it), on a screen of 40 rows.
      const at = lines.findIndex((line) => line.includes('Pix copia e cola'))
      const after = at === -1 ? lines : lines.slice(at)
      for (const line of at === -1 ? [] : lines.slice(0, at)) ctx.out(line)
      await (await import('./qr.js')).drawQr(ctx, uri, after, id)
      for (const line of after) ctx.out(line)
    } else for (const line of lines) ctx.out(line)
  } else {
    const {printList} = await import('../output/printer.js')
    const {DEPOSIT_CSV, depositColumns} = await import('../render/deposits.js')
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
  const {formatDuration} = await import('../input/duration.js')
  const {statusLine} = await import('../output/status-line.js')
  const line = statusLine(ctx.io)
  let last: string | undefined
  let record: Transaction | undefined
  let outage: string | undefined
  const {localTime} = await import('../output/time.js')
  // The time of day in the operator's zone (TZ), with the zone, as the tables show times: 11:03:07 UTC-3.
  const stamp = () => localTime(new Date(ctx.now()).toISOString(), ctx.env.TZ).slice(11)
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

/** tx get's flags, as parsed. */
export interface TxGetFlags {
  fields?: string
  output?: string
  watch?: boolean
  interval: number
  until: string
  timeout?: number
  qr?: boolean
  'qr-png'?: string
}

/** `tx get` from its parsed flags and argument: what the command prints, and under --json its document. */
export async function runTxGet(flags: TxGetFlags, args: {id: string}, ctx: CommandContext): Promise<Transaction | undefined> {
  if (flags.fields !== undefined && flags.output !== undefined && flags.output !== 'json') {
    throw new UsageError(`--fields picks from the --json document, and does not go with --output ${flags.output}`)
  }
  // --fields prints the --json document, picked.
  const output = flags.fields === undefined ? flags.output : undefined
  const record = await txGet({id: args.id, watch: flags.watch, intervalMs: flags.interval, until: flags.until, timeoutMs: flags.timeout, output, qr: flags.qr, qrPng: flags['qr-png']}, ctx)
  return ctx.globals.json && !output ? record : undefined
}
