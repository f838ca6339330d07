// `deposits list`'s flags: the one definition its oclif class (src/commands/deposits/list.ts)
// declares and the fast path (src/fast/deposits-list.ts) reads the command line with, through the same parser.
import {boolean, integer, string} from '@oclif/core/flags'

import {jsonFlag} from '../cli/flags.js'
import {depositFields} from '../input/deposits.js'
import {flagsOf} from '../input/flag-definitions.js'
import {outputFileFlag} from '../output/file.js'
import {LIST_FORMATS} from '../output/printer.js'

export const depositsListFlags = {
  json: jsonFlag('the page as the gateway returned it (with --all, one array of every deposit)'),
  ...flagsOf(depositFields({now: 0})),
  all: boolean({description: 'Walk every page of one snapshot and stream every record.'}),
  output: string({
    description: 'Format: table (one page, the default), or ndjson, csv, json, xlsx (a workbook: to --output-file or a pipe). With --all: ndjson (default), csv, json (one array) or xlsx.',
    options: [...LIST_FORMATS],
  }),
  concurrency: integer({description: 'Pages fetched at once by --all (1 to 16).', default: 4, min: 1, max: 16}),
  interactive: boolean({description: 'Page with n/p/q in a terminal.', default: true, allowNo: true}),
  'output-file': outputFileFlag('the deposits (a new file is 0600: it holds payers\' names and documents)'),
}

/** The flags as the parser reads them. */
export interface DepositsListFlags {
  [field: string]: unknown
  all?: boolean
  output?: string
  interactive: boolean
  concurrency: number
  'output-file'?: string
}
