import {Flags} from '@oclif/core'

import {BaseCommand, jsonFlag} from '../../base-command.js'
import {flagsOf} from '../../input/flag-definitions.js'
import {ReportedError} from '../../cli/errors.js'
import {outputFileFlag, toOutputFile} from '../../output/file.js'
import {depositsReconcile, DiscrepanciesError, MAX_EXPECTED_ROWS, reconcileFilterFields, type ReconcileDocument} from '../../reconcile/run.js'

export default class DepositsReconcile extends BaseCommand<typeof DepositsReconcile> {
  static override summary = 'Reconcile a file of expected charges against the deposits, by external code.'

  static override description = `Reads a file of the charges your system expects to be paid (CSV with a header, or NDJSON; - for stdin), then walks every deposit of the window, as deposits list --all does, and puts each expected row in exactly one class, matching by external code:

  paid                 one PAID deposit, of the amount expected (amountPaid, else amount)
  amount-differs       one PAID deposit, of another amount (the difference shown)
  paid-more-than-once  two or more PAID deposits (every one named)
  open                 none paid; one pending, with a QR code or PIX key generated, or expired
  not-paid             none paid; one in another status (FAILED, REFUNDED, BLOCKED, INFRACTION...)
  missing              no deposit with the code in the window

A code paid once that also has open deposits is paid, the others listed under it. Deposits whose code is in no row are unknown. Each deposit counts once.

THE FILE
Each row: external-code and amount (integer cents) or amount-brl (reais, as 781,62 or R$ 1.050,00), required; due-date (a date, or an ISO date-time) and document (the customer's CPF or CNPJ), optional. It is read with the same reader and checks as a --batch file (comma, semicolon or tab; field names in any case: externalCode, external_code). Every bad row is listed at once with its line (exit 2), and nothing is fetched before the whole file is valid.

THE WINDOW
--from, --to, --status and --origin choose the deposits exactly as they do for deposits list (no --from or --to: every deposit). A deposit outside the window is not seen: its row is missing.

OUTPUT
For a person (the default): a table per class that needs attention, open rows past their due date marked OVERDUE, then one summary with the count and amounts of each class, in BRL. --output csv, ndjson or json: one row per expected line (in file order) and per unknown deposit, with class, line, externalCode, expectedAmount, paidAmount, difference (cents), status, depositIds, otherDepositIds, dueDate, overdue, expired and document. --json: one document {summary, rows}.

EXIT CODES
0 every row paid as expected and no unknown deposit; 10 discrepancies found (any other class); 2 a bad file or flag (nothing fetched); 3, 6, 7... when it could not reconcile (the usual codes).`

  static override examples = [
    {description: "Yesterday's expected charges against yesterday's deposits", command: '<%= config.bin %> <%= command.id %> --expected expected.csv --from 2026-11-24 --to 2026-11-24'},
    {description: 'From stdin, one CSV row per line for a script', command: 'erp-export --day today | <%= config.bin %> <%= command.id %> --expected - --from 24h --output csv > reconciled.csv'},
    {description: 'Only the rows that need attention, as NDJSON', command: "<%= config.bin %> <%= command.id %> --expected expected.ndjson --output ndjson | grep -v '\"class\":\"paid\"'"},
    {description: 'In cron: mail only when there are discrepancies (exit 10)', command: '<%= config.bin %> <%= command.id %> --expected /srv/erp/today.csv --from 1d > report.txt; [ $? -eq 10 ] && mail -s discrepancies ops@example.com < report.txt'},
  ]

  static override flags = {
    json: jsonFlag('{summary, rows}: the counts and amounts per class, and one row per expected line and unknown deposit'),
    expected: Flags.string({description: 'The file of expected charges: a workbook (.xlsx), CSV with a header (comma, semicolon or tab; UTF-8 or Windows-1252), or NDJSON; - for stdin.', helpValue: '<file>', required: true}),
    sheet: Flags.string({description: 'Of a workbook given to --expected: the sheet to read (default the first).', helpValue: '<name>'}),
    ...flagsOf(reconcileFilterFields({now: 0})),
    output: Flags.string({
      description: 'Format: table (a table per class that needs attention and a summary; the default), or csv, ndjson, json, xlsx (one row per expected line and unknown deposit; xlsx, a workbook, to a file or a pipe).',
      options: ['table', 'csv', 'ndjson', 'json', 'xlsx'],
    }),
    concurrency: Flags.integer({description: 'Pages of deposits fetched at once (1 to 16).', default: 4, min: 1, max: 16}),
    'max-rows': Flags.integer({description: `Refuse an expected file of more rows than this (default ${MAX_EXPECTED_ROWS}).`, min: 1, max: MAX_EXPECTED_ROWS, helpValue: '<rows>'}),
    'output-file': outputFileFlag('the report (a new file is 0600: it holds payers\' documents); kept when there are discrepancies (exit 10)'),
  }

  async run(): Promise<ReconcileDocument | undefined> {
    const {expected, output, concurrency, 'max-rows': maxRows, sheet, 'output-file': outputFile, ...fields} = this.flags
    // Discrepancies (exit 10) are a finished report: the file is kept.
    const finished = (error: unknown) => error instanceof DiscrepanciesError || (error instanceof ReportedError && error.error instanceof DiscrepanciesError)
    return toOutputFile(this.ctx, outputFile, {mode: 0o600, json: this.jsonEnabled(), finished}, () => depositsReconcile({expected, fields, output, concurrency, maxRows, sheet}, this.ctx))
  }
}
