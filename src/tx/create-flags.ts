// `tx create`'s flags: the one definition its oclif class (src/commands/tx/create.ts) declares and
// the fast path (src/fast/tx-create.ts) reads the command line with, through the same parser.
import {boolean, string} from '@oclif/core/flags'

import {fieldsFlag, jsonFlag} from '../cli/flags.js'
import {batchFlags} from '../batch/flags.js'
import {TX_CREATE_MAX_TOTAL} from '../batch/limits.js'
import {flagsOf} from '../input/flag-definitions.js'
import {TX_CREATE_FIELDS} from '../input/transaction.js'
import {TX_CREATE_RECORD_FIELDS} from '../output/fields.js'
import {OUTPUT_FORMATS} from '../output/printer.js'

/** oclif's flag builders, taken by name: a namespace import of a CommonJS module would copy the whole module when loaded. */
const Flags = {boolean, string}

export const txCreateFlags = {
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
