import {BaseCommand} from '../../base-command.js'
import {batchHelp} from '../../batch/flags.js'
import {TX_CREATE_MAX_TOTAL} from '../../batch/limits.js'
import {runTxCreate, runTxCreateBatch} from '../../tx/create.js'
import {txCreateFlags} from '../../tx/create-flags.js'

export {txCreate, type TxCreateOptions, type TxCreateResult} from '../../tx/create.js'

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

A CSV batch (a customer needs a name and a document, CPF or CNPJ):
  amount,external-code,customer-name,customer-document,customer-email
  7980,order-4711,Maria Silva,529.982.247-25,maria@example.com
  1500,order-4712,João Souza,111.444.777-35,joao@example.com`

  /** Written out: oclif's own would nest the single charge's flags under --concurrency. */
  static override usage = [
    "<%= command.id %> (--amount <cents> | --body <file>) [--external-code <value>] [--idempotency-key <value>] [--webhook-url <value>] [--expiration-seconds <seconds>] [CUSTOMER FLAGS] [SELLER FLAGS] [ADDRESS FLAGS] [--item <value>...] [--metadata <value>...] [--qr] [--qr-png <file>] [--fields <list>] [--allow-repeats] [GLOBAL FLAGS]",
    '<%= command.id %> --batch <file> [--sheet <name>] [--concurrency <value>] [--max-rows <rows>] [--max-total <cents>] [-y] [--dry-run] [--output table|json|ndjson|csv] [--allow-repeats] [GLOBAL FLAGS]',
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

  static override flags = txCreateFlags

  async run(): Promise<unknown> {
    return this.flags.batch === undefined ? runTxCreate(this.flags, this.ctx) : runTxCreateBatch(this.flags, this.ctx)
  }
}
