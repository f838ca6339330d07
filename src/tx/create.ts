import type {CreateTransactionResponse} from '../api/types.js'
import type {CommandContext} from '../cli/context.js'
import {UsageError} from '../cli/errors.js'
import type {OutputFormat} from '../output/printer.js'
import {readJsonBody} from '../input/body.js'
import {nameCreateIssue, prepareCreate} from '../input/transaction.js'
import type {MoneySent} from '../send/money.js'
import {unsettled} from '../send/unsettled.js'

export interface TxCreateOptions {
  /** The flags of TX_CREATE_FIELDS, as parsed. */
  fields: Record<string, unknown>
  /** --body: a file, or - for stdin. */
  body?: string
  qr?: boolean
  qrPng?: string
  /** Send even when the journal shows the same charge (by external code) sent under another key. */
  allowRepeats?: boolean
}

/** The created charge, its idempotency key, and `replayed` when the gateway answered an earlier request's record. */
export type TxCreateResult = CreateTransactionResponse & {idempotencyKey: string; replayed?: true}

/** `tx create`: checks every field offline, then creates the charge and shows its QR code. */
export async function txCreate(options: TxCreateOptions, ctx: CommandContext): Promise<TxCreateResult> {
  const base = options.body === undefined ? {} : await readJsonBody(options.body, ctx.io)
  // node:crypto loads only when a key is made.
  const prepared = await prepareCreate(options.fields, base, async () => (await import('node:crypto')).randomUUID())
  if (!prepared.value) {
    const problems = prepared.issues.map((issue) => nameCreateIssue(prepared, issue))
    throw new UsageError(problems.join('\n'), {messages: problems})
  }
  const {generatedKey, value: request} = prepared
  if (options.qrPng !== undefined) await (await import('./qr.js')).checkWritable(options.qrPng, '--qr-png')
  const idempotencyKey = request.idempotencyKey
  const {sendMoney} = await import('../send/money.js')
  const {chargeSend} = await import('../send/requests.js')
  const {withSpinner} = await import('../output/spinner.js')
  let sent: MoneySent<CreateTransactionResponse>
  try {
    sent = await sendMoney(ctx, chargeSend(request, 'tx create'), {
      allowRepeats: options.allowRepeats,
      // Shown only when the charge is about to be sent: a refusal before that shows no key.
      beforeSend: () => {
        if (generatedKey && !ctx.globals.json) {
          ctx.note(`Idempotency key: ${idempotencyKey} (to retry this exact charge safely, pass --idempotency-key ${idempotencyKey})`)
        }
      },
      around: (work) => withSpinner(ctx.io, 'Creating the charge', work),
    })
  } catch (error) {
    throw await unsettled(error, idempotencyKey, ctx, (key, bin) => `The charge may or may not exist. Retry it safely with --idempotency-key ${key} and the same fields, or run \`${bin} journal retry\`.`)
  }
  const created = {...sent.record, ...(sent.status === undefined ? {} : {status: sent.status})}
  if (sent.replayed) {
    ctx.note(`This charge was created earlier with the idempotency key ${idempotencyKey}: the gateway answered with the original record. The status shown is its current one.`)
  }
  const result: TxCreateResult = {...created, idempotencyKey, ...(sent.replayed ? {replayed: true} : {})}
  if (options.qrPng !== undefined) await writePng(options.qrPng, result, ctx)
  if (ctx.globals.json) return result

  const {createdLines} = await import('../render/transaction.js')
  const uri = created.pixResponse?.uri
  const after: string[] = []
  if (uri) after.push(ctx.paint('bold', 'Pix copia e cola:'), uri, '')
  after.push(...createdLines(created, ctx.paint, ctx.now(), ctx.env.TZ))
  if (uri && (ctx.io.stdoutTTY || options.qr)) {
    const {drawQr} = await import('./qr.js')
    await drawQr(ctx, uri, after, created.id)
  }
  for (const line of after) ctx.out(line)
  return result
}

async function writePng(file: string, created: TxCreateResult, ctx: CommandContext): Promise<void> {
  const image = created.pixResponse?.qrCodeBase64
  if (!image) {
    ctx.note('Warning: the gateway sent no QR image (qrCodeBase64); --qr-png wrote nothing.')
    return
  }
  const {writeQrPng} = await import('./qr.js')
  const {causeInWords} = await import('../output/file.js')
  try {
    await writeQrPng(file, image)
  } catch (error) {
    // The charge exists: say so, and how to get its image without making another, in one line.
    const {ReportedError, WriteError} = await import('../cli/errors.js')
    const {createdLines} = await import('../render/transaction.js')
    const why = error instanceof WriteError && error.cause ? causeInWords(error.cause) : (error as Error).message
    throw new ReportedError(new WriteError(`the charge ${created.id} was created, but --qr-png ${file} could not be written (${why}). Get its image without a new charge: ${ctx.bin} tx get ${created.id} --qr-png ${file}`), {
      lines: [...createdLines(created, ctx.paint), `  Idempotency key: ${created.idempotencyKey}`],
      json: {transaction: created},
    })
  }
  if (!ctx.globals.json) ctx.note(`QR code written to ${file}`)
}

/** tx create's flags, as parsed: its own, the field flags of TX_CREATE_FIELDS, and the batch's. */
export type TxCreateFlags = Record<string, unknown> & {
  body?: string
  qr?: boolean
  'qr-png'?: string
  batch?: string
  concurrency?: number
  'max-rows'?: number
  sheet?: string
  'max-total'?: number
  'allow-repeats'?: boolean
  yes?: boolean
  'dry-run'?: boolean
  output?: string
  fields?: string
}

/** `tx create` from its parsed flags: one charge. */
export async function runTxCreate(flags: TxCreateFlags, ctx: CommandContext): Promise<unknown> {
  const {body, qr, 'qr-png': qrPng, batch, concurrency, sheet: _sheet, 'max-rows': maxRows, 'max-total': maxTotal, 'allow-repeats': allowRepeats, yes, 'dry-run': dryRun, output, fields: picked, ...fields} = flags
  const result = await txCreate({fields, body, qr, qrPng, allowRepeats}, ctx)
  return ctx.globals.json ? result : undefined
}

/** `tx create --batch` from its parsed flags: a charge per row of the file. */
export async function runTxCreateBatch(flags: TxCreateFlags, ctx: CommandContext): Promise<unknown> {
  const {batch, concurrency, 'max-rows': maxRows, 'max-total': maxTotal, 'allow-repeats': allowRepeats, yes, 'dry-run': dryRun, output, fields: picked, sheet} = flags
  if (picked !== undefined) throw new UsageError('--fields picks from one charge\'s record; with --batch, pick columns with --output csv')
  const {runBatch} = await import('../batch/run.js')
  const {txCreateBatch} = await import('../batch/commands.js')
  return runBatch(txCreateBatch(), {file: batch!, yes, dryRun, output: output as OutputFormat | undefined, concurrency, maxRows, maxTotal, allowRepeats, sheet}, ctx)
}
