import {boolean, custom, integer, string} from '@oclif/core/flags'

import type {FlagTable} from '../input/fields.js'
import {DEFAULT_CONCURRENCY, MAX_BATCH_ROWS} from './limits.js'

/** oclif's flag builders, taken by name: a namespace import of a CommonJS module would copy the whole module when loaded. */
const Flags = {boolean, custom, integer, string}

/** The batch's flags, shared by `withdraw` and `tx create`; --batch excludes the single record's. */
export function batchFlags(table: FlagTable, options: {one: string; defaultMaxTotal: number; brl: string; single: string[]}) {
  const group = 'BATCH'
  return {
    'allow-repeats': Flags.boolean({
      description: `Send even when the journal shows ${options.one === 'withdrawal' ? 'a withdrawal with the same external code (whatever its other fields)' : `the same ${options.one} (same external code and fields)`} was sent to this gateway and client id under another idempotency key: by default that is refused (exit 2, nothing sent) as a likely repeat, of a command run twice or an edited batch file.`,
    }),
    batch: Flags.string({
      description: `Send one ${options.one} per row of this file: a workbook (.xlsx), CSV with a header, or NDJSON; - for stdin. See BATCH below.`,
      helpValue: '<file>',
      helpGroup: group,
      exclusive: [...table.map((field) => field.flag), ...options.single],
    }),
    sheet: Flags.string({description: 'Of a workbook (.xlsx) given to --batch: the sheet to read (default the first).', helpValue: '<name>', helpGroup: group, dependsOn: ['batch']}),
    concurrency: Flags.integer({description: `Rows sent at once, 1 to 16 (default ${DEFAULT_CONCURRENCY}).`, min: 1, max: 16, helpGroup: group, dependsOn: ['batch']}),
    'max-rows': Flags.integer({
      description: `Refuse a batch of more rows than this (default ${MAX_BATCH_ROWS}).`,
      min: 1,
      max: 1_000_000,
      helpValue: '<rows>',
      helpGroup: group,
      dependsOn: ['batch'],
    }),
    'max-total': Flags.custom<number>({
      description: `Refuse a batch whose amounts add up to more than this, in cents (default ${options.defaultMaxTotal}, ${options.brl}).`,
      helpValue: '<cents>',
      helpGroup: group,
      dependsOn: ['batch'],
      // The one rule of every amount flag: integer cents, an amount in reais refused with its cents named.
      async parse(input) {
        const {parseCents} = await import('../input/money.js')
        const parsed = parseCents(input, '--max-total')
        if (!parsed.ok) throw new Error(parsed.message.replace(/^--max-total /, ''))
        if (parsed.cents < 1) throw new Error(`must be at least 1, got "${input}"`)
        return parsed.cents
      },
    })(),
  }
}

/** The BATCH part of the help, the same for both commands but for their fields and limits. */
export function batchHelp(options: {command: string; one: string; many: string; fields: string; defaultMaxTotal: number; brl: string; extra?: string}): string {
  return `BATCH
--batch FILE sends one ${options.one} per row of FILE: a workbook (.xlsx: its first sheet, or --sheet NAME), CSV with a header line (comma, semicolon or tab; UTF-8 with or without a BOM, or Windows-1252 as Excel saves it, said in a note), or NDJSON (one JSON object per line); - reads stdin. An amount may be given in reais instead of cents under amount-brl (781,62, 1.050,00, R$ 1.050,00, or a number cell); a text with a point and no comma (781.62, 1.050) has two readings and is refused. Each row holds the fields under the flags' names (${options.fields}) and is checked by the same rules as the flags. Every row is checked before anything is sent: when any row is bad, nothing is sent, and every bad row is listed with its line, field and rule (exit 2).${options.extra ? ` ${options.extra}` : ''}

A summary comes first, on stderr: the rows, the total in BRL, the largest amount${options.command === 'withdraw' ? ', the rows per key type' : ''}. Then a confirmation in a terminal (default no); without one, --yes is required (else exit 2, nothing sent). --dry-run stops after the summary. A batch of more than 10000 rows (--max-rows) or of more than ${options.defaultMaxTotal} cents in all, ${options.brl} (--max-total), is refused unless you raise the limit.

Rows go --concurrency at a time (4), each written to the journal before it is sent, and retried under its key after a 429 (as long as Retry-After asks), a 5xx or a lost connection. One result per row on stdout, in file order: line, externalCode, idempotencyKey, amount, id, status, replayed, outcome (done, replayed, failed), exitCode and error. --output table (the default in a terminal), ndjson (the default otherwise), csv or json; --json gives one document with the summary, the results and the tally. A progress bar on stderr in a terminal, then the tally: done, replayed, failed. Exit 0 when every row succeeded; otherwise the exit code of the worst failed row, worst first: 7, 6, 1 (the outcome is unknown: money may have moved), then 3, 5, 4 (refused: nothing moved). The error names the lines to look at.

SAFE TO RE-RUN
Each row's idempotency key is derived from the file's content and the row's number (${options.command === 'withdraw' ? 'payout' : 'charge'}-<hash>-<row>), unless the row carries its own idempotency-key. Running the same file again, after a crash, a kill, a partial failure or by mistake, sends nothing twice: the rows already done come back as replays. A changed file is a new batch: changing any value, even to correct one row, gives every row a new key, and the rows already done would be sent again. So after a failure, run the same file again unchanged; put corrected rows in a new file of their own; and when a file must be edited between runs, give every row its own idempotency-key column. As a guard, a batch is refused (exit 2, nothing sent) when a row with an external code ${options.one === 'withdrawal' ? 'has the external code of a withdrawal (whatever its other fields)' : `has the external code and fields of a ${options.one}`} this config folder's journal shows was sent before, to the same gateway and client id, under another key: the likely sign of an edited file sent again. --allow-repeats sends such rows all the same.`
}
