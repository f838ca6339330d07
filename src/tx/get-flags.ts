// `tx get`'s flags and argument: the one definition its oclif class (src/commands/tx/get.ts)
// declares and the fast path (src/fast/tx-get.ts) reads the command line with, through the same parser.
import {boolean, string} from '@oclif/core/flags'

import {durationFlag, fieldsFlag, jsonFlag, transactionIdArg} from '../cli/flags.js'
import {anyCaseOptions} from '../input/options.js'
import {TRANSACTION_RECORD_FIELDS} from '../output/fields.js'
import {TRANSACTION_STATUSES} from '../schemas/enums.js'

/** oclif's flag builders, taken by name: a namespace import of a CommonJS module would copy the whole module when loaded. */
const Flags = {boolean, string}

export const txGetArgs = {
  id: transactionIdArg,
}

export const txGetFlags = {
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
  qr: Flags.boolean({description: 'Draw the charge\'s QR code, from its own code (in a terminal, only when it fits whole; also when stdout is not one).'}),
  'qr-png': Flags.string({description: 'Write the charge\'s QR code image (PNG) to this file: the image of a charge made earlier, with no new charge.', helpValue: '<file>'}),
  timeout: durationFlag({description: 'How long to wait: for the answer (default 30s), or with --watch for the status (default 10m).', helpGroup: 'GLOBAL'}),
}
