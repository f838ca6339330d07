import {Flags} from '@oclif/core'

import type {CreateTransactionResponse} from '../../api/types.js'
import {BaseCommand, jsonFlag} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'
import {UsageError} from '../../cli/errors.js'
import {flagsOf, nameIssue} from '../../input/fields.js'
import {readJsonBody} from '../../input/body.js'
import {buildCreateBody, TX_CREATE_FIELDS} from '../../input/transaction.js'

export interface TxCreateOptions {
  /** The flags of TX_CREATE_FIELDS, as parsed. */
  fields: Record<string, unknown>
  /** --body: a file, or - for stdin. */
  body?: string
  qr?: boolean
  qrPng?: string
}

export type TxCreateResult = CreateTransactionResponse & {idempotencyKey: string}

/** `tx create`: checks every field offline, then creates the charge and shows its QR code. */
export async function txCreate(options: TxCreateOptions, ctx: CommandContext): Promise<TxCreateResult> {
  const base = options.body === undefined ? {} : await readJsonBody(options.body, ctx.io)
  const built = buildCreateBody(options.fields, base)
  const {body} = built
  let generatedKey = false
  if (body.idempotencyKey === undefined) {
    const {randomUUID} = await import('node:crypto')
    body.idempotencyKey = randomUUID()
    generatedKey = true
  }
  const {checkCreateTransaction} = await import('../../schemas/transaction.js')
  const checked = checkCreateTransaction(body, {strict: true})
  if (!checked.ok) {
    const physical = built.fromFlags.has('isInfoProduct')
    const problems = checked.issues.map((issue) =>
      issue.path === 'address' && physical
        ? '--physical needs an address: --address-postal-code, --address-number, --address-street, --address-neighborhood, --address-city, --address-state and --address-country'
        : nameIssue(TX_CREATE_FIELDS, issue, built),
    )
    throw new UsageError(problems.join('\n'), {messages: problems})
  }
  if (options.qrPng) await checkWritable(options.qrPng, '--qr-png')
  const idempotencyKey = checked.value.idempotencyKey
  if (generatedKey && !ctx.globals.json) {
    ctx.note(`Idempotency key: ${idempotencyKey} (to retry this exact charge safely, pass --idempotency-key ${idempotencyKey})`)
  }

  const api = await ctx.api()
  const {withSpinner} = await import('../../output/spinner.js')
  const created = await withSpinner(ctx.io, 'Creating the charge', () => api.createTransaction(checked.value))
  const result = {...created, idempotencyKey}
  if (options.qrPng) await writePng(options.qrPng, result, ctx)
  if (ctx.globals.json) return result

  const {createdLines} = await import('../../render/transaction.js')
  const uri = created.pixResponse?.uri
  if (uri && (ctx.io.stdoutTTY || options.qr)) {
    const {qrText} = await import('../../render/qr.js')
    ctx.out(await qrText(uri))
  }
  if (uri) {
    ctx.out(ctx.paint('bold', 'Pix copia e cola:'))
    ctx.out(uri)
    ctx.out()
  }
  for (const line of createdLines(created, ctx.paint, ctx.now(), ctx.env.TZ)) ctx.out(line)
  return result
}

/** Refuses, before anything is sent, a path that cannot be written. */
async function checkWritable(file: string, flag: string): Promise<void> {
  const {access, stat, constants} = await import('node:fs/promises')
  const {dirname, resolve} = await import('node:path')
  const path = resolve(file)
  const existing = await stat(path).catch(() => undefined)
  if (existing?.isDirectory()) throw new UsageError(`${flag} ${file} is a folder, not a file`)
  const target = existing ? path : dirname(path)
  try {
    await access(target, constants.W_OK)
  } catch {
    throw new UsageError(`${flag} ${file} cannot be written: ${existing ? 'the file is read-only' : `the folder ${dirname(path)} does not exist or is not writable`}`)
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

--body FILE (or - for stdin) takes a whole JSON request body; flags override its fields.`

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
  ]

  static override flags = {
    json: jsonFlag('the create response (id, status, amount, pixResponse) plus idempotencyKey'),
    ...flagsOf(TX_CREATE_FIELDS),
    body: Flags.string({description: 'A JSON request body from a file, or - for stdin; flags override its fields.', helpValue: '<file>'}),
    qr: Flags.boolean({description: 'Draw the QR code even when stdout is not a terminal.'}),
    'qr-png': Flags.string({description: 'Write the QR code image (PNG) to this file.', helpValue: '<file>'}),
  }

  async run(): Promise<TxCreateResult | undefined> {
    const {body, qr, 'qr-png': qrPng, ...fields} = this.flags
    const result = await txCreate({fields, body, qr, qrPng}, this.ctx)
    return this.ctx.globals.json ? result : undefined
  }
}
