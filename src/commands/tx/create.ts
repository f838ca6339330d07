import {Flags} from '@oclif/core'

import type {CreateTransactionResponse} from '../../api/types.js'
import {BaseCommand, fieldsFlag, jsonFlag} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'
import {UsageError} from '../../cli/errors.js'
import {batchFlags, batchHelp} from '../../batch/flags.js'
import {TX_CREATE_MAX_TOTAL} from '../../batch/limits.js'
import {flagsOf} from '../../input/fields.js'
import {TX_CREATE_RECORD_FIELDS} from '../../output/fields.js'
import {OUTPUT_FORMATS, type OutputFormat} from '../../output/printer.js'
import {readJsonBody} from '../../input/body.js'
import {nameCreateIssue, prepareCreate, TX_CREATE_FIELDS} from '../../input/transaction.js'
import type {MoneySent} from '../../send/money.js'
import {unsettled} from '../../send/unsettled.js'

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
  if (options.qrPng !== undefined) await checkWritable(options.qrPng, '--qr-png')
  const idempotencyKey = request.idempotencyKey
  const {sendMoney} = await import('../../send/money.js')
  const {chargeSend} = await import('../../send/requests.js')
  const {withSpinner} = await import('../../output/spinner.js')
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

  const {createdLines} = await import('../../render/transaction.js')
  const uri = created.pixResponse?.uri
  if (uri && (ctx.io.stdoutTTY || options.qr)) {
    const {qrDrawing} = await import('../../render/qr.js')
    const qr = await qrDrawing(uri, {colors: ctx.io.color})
    // A drawing wider than the terminal would wrap and scan as nothing: say why it is left out.
    if (qr.width > ctx.io.columns) {
      ctx.note(`The QR code is not drawn: it needs ${qr.width} columns and the terminal has ${ctx.io.columns}. Widen the terminal, or write the image with --qr-png FILE; the copy-and-paste code follows.`)
    } else {
      for (const line of qr.lines) ctx.out(line)
    }
  }
  if (uri) {
    ctx.out(ctx.paint('bold', 'Pix copia e cola:'))
    ctx.out(uri)
    ctx.out()
  }
  for (const line of createdLines(created, ctx.paint, ctx.now(), ctx.env.TZ)) ctx.out(line)
  return result
}

/**
 * Refuses, before anything is sent, a path that cannot be written: it is opened for writing (and
 * removed again when it did not exist), so a missing folder, a read-only file and a name the file
 * system refuses are all caught while nothing has been charged.
 */
async function checkWritable(file: string, flag: string): Promise<void> {
  const {open, rm, stat} = await import('node:fs/promises')
  const {dirname, resolve} = await import('node:path')
  if (!file.trim()) throw new UsageError(`${flag} needs a file name`)
  const path = resolve(file)
  const existing = await stat(path).catch(() => undefined)
  if (existing?.isDirectory()) throw new UsageError(`${flag} ${file} is a folder, not a file`)
  try {
    const handle = await open(path, 'a')
    await handle.close()
    if (!existing) await rm(path, {force: true})
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT' || code === 'ENOTDIR'
        ? `the folder ${dirname(path)} does not exist or is not writable`
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? existing
            ? 'the file is read-only'
            : `the folder ${dirname(path)} does not exist or is not writable`
          : code === 'ENAMETOOLONG'
            ? 'the name is too long'
            : (error as Error).message
    throw new UsageError(`${flag} ${file} cannot be written: ${why}`)
  }
}

async function writePng(file: string, created: TxCreateResult, ctx: CommandContext): Promise<void> {
  const image = created.pixResponse?.qrCodeBase64
  if (!image) {
    ctx.note('Warning: the gateway sent no QR image (qrCodeBase64); --qr-png wrote nothing.')
    return
  }
  const {pngBytes} = await import('../../render/qr.js')
  const {writeFile} = await import('node:fs/promises')
  try {
    await writeFile(file, pngBytes(image), {mode: 0o644})
  } catch (error) {
    // The charge exists: say so, with what is needed to find it again, beside the failure.
    const {ReportedError} = await import('../../cli/errors.js')
    const {createdLines} = await import('../../render/transaction.js')
    throw new ReportedError(new Error(`the charge ${created.id} was created, but --qr-png could not write ${file}: ${(error as Error).message}`), {
      lines: [...createdLines(created, ctx.paint), `  Idempotency key: ${created.idempotencyKey}`],
      json: {transaction: created},
    })
  }
  if (!ctx.globals.json) ctx.note(`QR code written to ${file}`)
}

export default class TxCreate extends BaseCommand<typeof TxCreate> {
  static override summary = 'Create a PIX charge and show its QR code.'

  static override description = `Creates a PIX transaction (POST /core/transaction). Every field is checked offline against the documented rules first: a violation exits 2, names the flag and the rule, and sends nothing.

Amounts are integer cents (1000 is R$ 10,00). An idempotency key is made when none is given, and shown on stderr (or as idempotencyKey in --json), so a failed run can be retried safely with --idempotency-key.

--item takes comma-separated key=value pairs: title, unitPrice (cents), quantity (default 1) and description, e.g. --item 'title=T-shirt,unitPrice=2990,quantity=2'. A JSON object works too. Repeat it for each item; titles must be unique.

--body FILE (or - for stdin) takes a whole JSON request body; flags override its fields.

${batchHelp({
  command: 'tx create',
  one: 'charge',
  many: 'charges',
  fields: 'amount, external-code, idempotency-key, customer-name, customer-document, item, metadata, physical, address-..., every flag above',
  defaultMaxTotal: TX_CREATE_MAX_TOTAL,
  brl: 'R$ 1.000.000,00',
  extra:
    'A repeatable field (item, metadata) holds one value per line of its cell, or a JSON array (in NDJSON a list; metadata also an object); physical is true or false. The results carry each charge\'s copy-and-paste code (pixCode), to send to its payer.',
})}

A CSV batch:
  amount,external-code,customer-name,customer-email
  7980,order-4711,Maria Silva,maria@example.com
  1500,order-4712,João Souza,joao@example.com`

  /** Written out: oclif's own would nest the single charge's flags under --concurrency. */
  static override usage = [
    "<%= command.id %> (--amount <cents> | --body <file>) [--external-code <value>] [--idempotency-key <value>] [--webhook-url <value>] [--expiration-seconds <seconds>] [CUSTOMER FLAGS] [SELLER FLAGS] [ADDRESS FLAGS] [--item <value>...] [--metadata <value>...] [--qr] [--qr-png <file>] [--fields <list>] [--allow-repeats] [GLOBAL FLAGS]",
    '<%= command.id %> --batch <file> [--concurrency <value>] [--max-rows <rows>] [--max-total <cents>] [-y] [--dry-run] [--output table|json|ndjson|csv] [--allow-repeats] [GLOBAL FLAGS]',
  ]

  static override examples = [
    {description: 'Charge R$ 10,00', command: '<%= config.bin %> <%= command.id %> --amount 1000'},
    {
      description: 'A charge with a customer and two items',
      command:
        "<%= config.bin %> <%= command.id %> --amount 7980 --customer-name 'Maria Silva' --customer-document 529.982.247-25 --customer-email maria@example.com --item 'title=T-shirt,unitPrice=2990,quantity=2' --item 'title=Cap,unitPrice=2000'",
    },
    {
      description: 'A physical product, with the delivery address',
      command:
        "<%= config.bin %> <%= command.id %> --amount 5000 --physical --address-postal-code 01310-100 --address-number 1000 --address-street 'Avenida Paulista' --address-neighborhood 'Bela Vista' --address-city 'São Paulo' --address-state SP --address-country BR",
    },
    {description: 'From a JSON body, with the key of an earlier attempt', command: '<%= config.bin %> <%= command.id %> --body charge.json --idempotency-key order-4711-attempt'},
    {description: 'Save the QR code as PNG, for a script', command: '<%= config.bin %> <%= command.id %> --amount 1000 --qr-png qr.png --json'},
    {description: 'A charge per row of a CSV file, the copy-and-paste codes in the results', command: '<%= config.bin %> <%= command.id %> --batch orders.csv --yes --output csv > charges.csv'},
  ]

  static override flags = {
    json: jsonFlag('the create response (id, status, amount, pixResponse) plus idempotencyKey'),
    fields: fieldsFlag('the created charge', TX_CREATE_RECORD_FIELDS),
    ...flagsOf(TX_CREATE_FIELDS),
    body: Flags.string({description: 'A JSON request body from a file, or - for stdin; flags override its fields.', helpValue: '<file>'}),
    qr: Flags.boolean({description: 'Draw the QR code even when stdout is not a terminal.'}),
    'qr-png': Flags.string({description: 'Write the QR code image (PNG) to this file.', helpValue: '<file>'}),
    ...batchFlags(TX_CREATE_FIELDS, {one: 'charge', defaultMaxTotal: TX_CREATE_MAX_TOTAL, brl: 'R$ 1.000.000,00', single: ['body', 'qr', 'qr-png']}),
    yes: Flags.boolean({char: 'y', description: 'With --batch: send without asking; required when there is no terminal.', helpGroup: 'BATCH', dependsOn: ['batch']}),
    'dry-run': Flags.boolean({description: 'With --batch: check every row, show the summary, and send nothing.', helpGroup: 'BATCH', dependsOn: ['batch']}),
    output: Flags.string({
      description: 'With --batch: table (default in a terminal), ndjson (default otherwise), csv or json.',
      options: [...OUTPUT_FORMATS],
      helpGroup: 'BATCH',
      dependsOn: ['batch'],
    }),
  }

  async run(): Promise<unknown> {
    const {body, qr, 'qr-png': qrPng, batch, concurrency, 'max-rows': maxRows, 'max-total': maxTotal, 'allow-repeats': allowRepeats, yes, 'dry-run': dryRun, output, fields: picked, ...fields} = this.flags
    if (picked !== undefined && batch !== undefined) throw new UsageError('--fields picks from one charge\'s record; with --batch, pick columns with --output csv')
    if (batch !== undefined) {
      const {runBatch} = await import('../../batch/run.js')
      const {txCreateBatch} = await import('../../batch/commands.js')
      return runBatch(
        txCreateBatch(),
        {file: batch, yes, dryRun, output: output as OutputFormat | undefined, concurrency, maxRows, maxTotal, allowRepeats},
        this.ctx,
      )
    }
    const result = await txCreate({fields, body, qr, qrPng, allowRepeats}, this.ctx)
    return this.ctx.globals.json ? result : undefined
  }
}
