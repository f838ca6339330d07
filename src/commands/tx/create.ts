import {Flags} from '@oclif/core'

import {UsageError} from '../../api/errors.js'
import type {CreateTransactionResponse} from '../../api/types.js'
import {BaseCommand} from '../../base-command.js'

const customer = 'CUSTOMER'
const seller = 'SELLER'
const address = 'ADDRESS (with --physical)'

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
    amount: Flags.string({description: 'Amount in integer cents, 1 to 10000000 (1000 is R$ 10,00).', helpValue: '<cents>'}),
    'external-code': Flags.string({description: 'Your reference for the charge, 8 to 255 characters.'}),
    'idempotency-key': Flags.string({description: 'Key that makes a retry safe, 8 to 255 characters (default: a new UUID).'}),
    'webhook-url': Flags.string({description: 'HTTPS URL the gateway notifies of changes.'}),
    'expiration-seconds': Flags.string({description: 'Lifetime of the QR code, 60 to 86400 seconds (gateway default 1800).', helpValue: '<seconds>'}),
    'customer-name': Flags.string({description: 'Customer name.', helpGroup: customer}),
    'customer-document': Flags.string({description: 'Customer CPF or CNPJ (alphanumeric CNPJ included).', helpGroup: customer}),
    'customer-email': Flags.string({description: 'Customer e-mail.', helpGroup: customer}),
    'customer-mobile': Flags.string({description: 'Customer mobile: DDD + 9 digits, e.g. (11) 98765-4321.', helpGroup: customer}),
    'customer-landline': Flags.string({description: 'Customer landline: DDD + 8 digits, e.g. (11) 3000-0000.', helpGroup: customer}),
    'customer-ip': Flags.string({description: 'Customer IPv4 or IPv6 address.', helpGroup: customer}),
    'customer-birthdate': Flags.string({description: 'Customer birthdate, YYYY-MM-DD.', helpGroup: customer}),
    'seller-name': Flags.string({description: 'Seller name.', helpGroup: seller}),
    'seller-document': Flags.string({description: 'Seller CPF or CNPJ.', helpGroup: seller}),
    physical: Flags.boolean({description: 'A physical product that needs delivery (isInfoProduct false); needs an address.', helpGroup: address}),
    'address-postal-code': Flags.string({description: 'CEP, e.g. 01310-100.', helpGroup: address}),
    'address-number': Flags.string({description: 'Street number, 1 to 10 digits.', helpGroup: address}),
    'address-street': Flags.string({description: 'Street, 2 to 200 characters.', helpGroup: address}),
    'address-neighborhood': Flags.string({description: 'Neighborhood, 2 to 100 characters.', helpGroup: address}),
    'address-city': Flags.string({description: 'City, 2 to 100 characters.', helpGroup: address}),
    'address-state': Flags.string({description: 'State name or abbreviation, 2 to 50 characters.', helpGroup: address}),
    'address-country': Flags.string({description: 'Country, 2 to 60 characters.', helpGroup: address}),
    'address-complement': Flags.string({description: 'Complement, 2 to 150 characters.', helpGroup: address}),
    item: Flags.string({description: 'An item: title=TEXT,unitPrice=CENTS[,quantity=N][,description=TEXT]. Repeatable.', multiple: true}),
    metadata: Flags.string({description: 'Metadata as key=value. Repeatable.', multiple: true}),
    body: Flags.string({description: 'A JSON request body from a file, or - for stdin; flags override its fields.', helpValue: '<file>'}),
    qr: Flags.boolean({description: 'Draw the QR code even when stdout is not a terminal.'}),
    'qr-png': Flags.string({description: 'Write the QR code image (PNG) to this file.', helpValue: '<file>'}),
  }

  async run(): Promise<(CreateTransactionResponse & {idempotencyKey: string}) | undefined> {
    const {flags} = this
    const {buildCreateBody, describeIssue} = await import('../../input/transaction.js')
    const base = flags.body === undefined ? {} : await readBody(flags.body)
    const body = buildCreateBody(flags, base)
    let generatedKey = false
    if (body.idempotencyKey === undefined) {
      const {randomUUID} = await import('node:crypto')
      body.idempotencyKey = randomUUID()
      generatedKey = true
    }
    const {checkCreateTransaction} = await import('../../schemas/transaction.js')
    const checked = checkCreateTransaction(body, {strict: true})
    if (!checked.ok) {
      const problems = checked.issues.map((issue) => describeIssue(issue, flags))
      throw new UsageError(problems.join('\n'), {messages: problems})
    }
    const idempotencyKey = String(body.idempotencyKey)
    if (generatedKey && !this.jsonEnabled()) {
      this.note(`Idempotency key: ${idempotencyKey} (to retry this exact charge safely, pass --idempotency-key ${idempotencyKey})`)
    }

    const session = await this.openSession()
    const {GatewayApi} = await import('../../api/gateway.js')
    const {withSpinner} = await import('../../render/spinner.js')
    const created = await withSpinner(this.term, 'Creating the charge', () => new GatewayApi(session.client).createTransaction(body))

    if (flags['qr-png']) await this.writePng(flags['qr-png'], created)
    if (this.jsonEnabled()) return {...created, idempotencyKey}

    const {createdLines} = await import('../../render/transaction.js')
    const uri = created.pixResponse?.uri
    if (uri && (this.term.stdoutTTY || flags.qr)) {
      const {qrText} = await import('../../render/qr.js')
      this.out(await qrText(uri))
    }
    if (uri) {
      this.out(this.paint('bold', 'Pix copia e cola:'))
      this.out(uri)
      this.out()
    }
    for (const line of createdLines(created, this.paint)) this.out(line)
    return undefined
  }

  private async writePng(file: string, created: CreateTransactionResponse): Promise<void> {
    const image = created.pixResponse?.qrCodeBase64
    if (!image) {
      this.note('Warning: the gateway sent no QR image (qrCodeBase64); --qr-png wrote nothing.')
      return
    }
    const {pngBytes} = await import('../../render/qr.js')
    const {writeFile} = await import('node:fs/promises')
    await writeFile(file, pngBytes(image))
    if (!this.jsonEnabled()) this.note(`QR code written to ${file}`)
  }
}

/** Reads --body: a JSON object from a file, or from stdin with "-". */
async function readBody(source: string): Promise<Record<string, unknown>> {
  let text: string
  try {
    if (source === '-') {
      const {readStdin} = await import('../../input/stdin.js')
      text = await readStdin()
    } else {
      const {readFile} = await import('node:fs/promises')
      text = await readFile(source, 'utf8')
    }
  } catch (error) {
    throw new UsageError(`--body: cannot read ${source}: ${(error as Error).message}`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`--body: ${source} is not valid JSON (${(error as Error).message})`)
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`--body: ${source} must hold a JSON object`)
  return value as Record<string, unknown>
}
