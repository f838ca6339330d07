import {Flags} from '@oclif/core'

import type {DepositListQuery} from '../../api/gateway.js'
import {BaseCommand, jsonFlag} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'
import {UsageError} from '../../cli/errors.js'
import {depositFilterFields, PER_PAGE_ALL} from '../../input/deposits.js'
import {flagsOf} from '../../input/flag-definitions.js'
import {buildFromFlags, refuse} from '../../input/fields.js'
import {outputFileFlag, toOutputFile} from '../../output/file.js'
import {outputFormat, refuseWorkbookToTerminal} from '../../output/printer.js'
import type {Summary} from '../../summary/aggregate.js'

/** The largest page the gateway gives: the fewest requests for one walk. */
/** Width of the chart when stdout has none (a pipe or a file). */
const CHART_WIDTH = 80

export const SUMMARY_FORMATS = ['table', 'csv', 'json', 'xlsx'] as const

export interface DepositsSummaryOptions {
  /** The filter flags of depositFilterFields, as parsed. */
  fields: Record<string, unknown>
  /** table (default), csv or json. */
  output?: string
  /** The words of --chart: ["png", FILE] or ["none"]. */
  chart?: string[]
  /** Pages fetched at once. */
  concurrency: number
}

/** What `deposits summary` found: the totals, with the filters sent and the snapshot walked. */
export interface SummaryDocument extends Summary {
  filters: Omit<DepositListQuery, 'page' | 'perPage' | 'snapshot'>
  snapshot?: string
}

interface ChartChoice {
  terminal: boolean
  png?: string
}

/** --chart: "png FILE" writes the PNG as well; "none" leaves the terminal chart out. */
function chartChoice(words: string[] | undefined): ChartChoice {
  if (!words || words.length === 0) return {terminal: true}
  const [kind, file, ...rest] = words
  if (kind.toLowerCase() === 'none' && words.length === 1) return {terminal: false}
  if (kind.toLowerCase() === 'png' && file !== undefined && file !== '' && rest.length === 0) return {terminal: true, png: file}
  throw new UsageError(`--chart takes "png FILE" (e.g. --chart png paid.png) or "none"; got "${words.join(' ')}"`)
}

/** Refuses a PNG path that cannot be written, before anything is fetched. */
async function checkWritable(file: string): Promise<void> {
  const {checkFileTarget} = await import('../../output/file.js')
  checkFileTarget(file, '--chart png')
}

/**
 * `deposits summary`: walks one snapshot of the deposits that match the filters, keeping only the
 * totals by day (in the operator's time zone, TZ) and status, and shows them as a table and a
 * chart of the daily paid amount, or as CSV or JSON.
 */
export async function depositsSummary(options: DepositsSummaryOptions, ctx: CommandContext): Promise<SummaryDocument> {
  const format = outputFormat(ctx, options.output)
  if (!(SUMMARY_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--output must be table, csv, json or xlsx; got "${format}"`)
  refuseWorkbookToTerminal(ctx, format)
  const chart = chartChoice(options.chart)
  const zone = ctx.env.TZ || undefined
  const table = depositFilterFields({now: ctx.now(), zone})
  const {body, fromFlags} = buildFromFlags(table, options.fields)
  const filters = body as SummaryDocument['filters']
  const query: DepositListQuery = {...filters, page: 1, perPage: PER_PAGE_ALL}
  const {checkDepositQuery} = await import('../../schemas/deposit.js')
  const checked = checkDepositQuery(query, {side: 'client'})
  if (!checked.ok) refuse(table, checked.issues, {fromFlags, fromBody: new Set(), body: query})
  const {DepositAggregator} = await import('../../summary/aggregate.js')
  // An unknown TZ is refused here, before anything is sent.
  const aggregator = new DepositAggregator({timeZone: zone})
  if (chart.png) await checkWritable(chart.png)

  const api = await ctx.api()
  const {walkPages} = await import('../../api/paging.js')
  const {leanHeapForLongWalk} = await import('../../output/stream.js')
  leanHeapForLongWalk()
  // Progress is for a person watching stderr, whatever stdout is connected to.
  const progress = ctx.io.spinner
  let snapshot: string | undefined
  // Each page is added up as soon as it arrives and dropped: only the totals are kept, and a page
  // waiting its turn holds nothing. Sums do not depend on the order; a walk that fails shows none.
  for await (const page of walkPages(api, query, {concurrency: options.concurrency, prepare: (records) => aggregator.addAll(records)})) {
    snapshot ??= page.snapshot
    if (progress) ctx.io.stderr.write(`\r\u001B[2KSumming page ${page.currentPage} of ${page.totalPages} (${aggregator.count} deposits)`)
  }
  if (progress) ctx.io.stderr.write('\n')
  const summary = aggregator.result()
  const document: SummaryDocument = {timeZone: summary.timeZone, filters, ...(snapshot ? {snapshot} : {}), rows: summary.rows, days: summary.days, total: summary.total}

  if (chart.png) {
    const {pngBarChart} = await import('../../summary/chart.js')
    const {writeFileWhole} = await import('../../output/file.js')
    // Checked before anything was fetched: a write that fails now (a full disk) is exit 1, naming the file.
    await writeFileWhole(chart.png, pngBarChart(summary.days), {flag: '--chart png', mode: 0o644})
  }

  if (format === 'json') {
    // Under --json alone the base command prints the returned document.
    if (!ctx.globals.json || options.output) ctx.json(document)
  } else if (format === 'csv') {
    const {CsvWriter} = await import('../../output/csv.js')
    const {SUMMARY_CSV} = await import('../../render/summary.js')
    const {summaryLines} = await import('../../summary/aggregate.js')
    const writer = new CsvWriter(ctx.io.stdout, SUMMARY_CSV)
    await writer.writeAll(summaryLines(summary))
    await writer.end()
  } else if (format === 'xlsx') {
    const {recordSink} = await import('../../output/stream.js')
    const {SUMMARY_CSV, SUMMARY_WORKBOOK} = await import('../../render/summary.js')
    const {summaryLines} = await import('../../summary/aggregate.js')
    const writer = await recordSink(ctx.io.stdout, 'xlsx', SUMMARY_CSV, {...SUMMARY_WORKBOOK, zone: summary.timeZone})
    await writer.records(summaryLines(summary))
    await writer.end()
  } else if (summary.total.count > 0) {
    await printHuman(summary, chart, ctx)
  }

  const parts = [summary.total.count === 0 ? 'No deposits match.' : `${summary.total.count} deposits`, `days in ${summary.timeZone}`]
  if (snapshot) parts.push(`snapshot ${snapshot}`)
  ctx.note(parts.join(' · '))
  if (chart.png) ctx.note(`Chart of the daily paid amount written to ${chart.png}`)
  return document
}

/** The table, then the chart of the daily paid amount, fitted to the terminal (80 columns without one). */
async function printHuman(summary: Summary, chart: ChartChoice, ctx: CommandContext): Promise<void> {
  const {fitNote, renderTable} = await import('../../output/table.js')
  const {summaryColumns, tableLines} = await import('../../render/summary.js')
  const {summaryLines} = await import('../../summary/aggregate.js')
  const rendered = await renderTable(tableLines(summaryLines(summary)), summaryColumns(), ctx.io)
  ctx.out(rendered.text)
  const note = fitNote(rendered, ctx.io.columns)
  if (note) ctx.note(note)
  if (!chart.terminal) return
  const {terminalBarChart} = await import('../../summary/chart.js')
  const width = Number.isFinite(ctx.io.columns) ? ctx.io.columns : CHART_WIDTH
  ctx.out()
  ctx.out(`Amount paid per day (${summary.timeZone})`)
  for (const line of terminalBarChart(summary.days, {width, color: ctx.io.color})) ctx.out(line)
}

export default class DepositsSummary extends BaseCommand<typeof DepositsSummary> {
  static override summary = 'Totals of deposits by day and status, with a chart of the daily paid amount.'

  static override description = `Walks every page of one snapshot of the deposits that match the filters (the same filters as deposits list) and adds them up by day, in your time zone (TZ), and by status: count, amount, amount paid, refunded and fees, each day's total (the table shows it for days with more than one status), and a grand total. Only the totals are kept, however many deposits there are; --concurrency pages are fetched at once.

The table shows BRL, right-aligned; after it, a bar chart of the amount paid each day fits the terminal's width (80 columns when stdout is not a terminal). --chart png FILE writes the same chart as a PNG image too (the path is checked before anything is fetched); --chart none leaves the terminal chart out.

--output csv gives one line per day and status, day totals and the grand total (kind, day, status, count, amount, amountPaid, refundAmount, feeAmount; amounts in integer cents); --output json (or --json) gives the filters sent, the snapshot, the rows, the days and the total.

--from and --to take an ISO date-time, a date (that whole day in your time zone) or a time before now (30m, 24h, 7d, 2w).`

  static override examples = [
    {description: 'Last week, by day and status, with the chart', command: '<%= config.bin %> <%= command.id %> --from 7d'},
    {description: 'November in Sao Paulo time, and the chart as an image', command: 'TZ=America/Sao_Paulo <%= config.bin %> <%= command.id %> --from 2026-11-01 --to 2026-11-30 --chart png november.png'},
    {description: 'Paid and refunded deposits by PIX key, for a spreadsheet', command: '<%= config.bin %> <%= command.id %> --status PAID --status REFUNDED --origin PIX_KEY --output csv > summary.csv'},
    {description: 'The grand total paid, for a script', command: '<%= config.bin %> <%= command.id %> --from 24h --json | jq .total.amountPaid'},
  ]

  static override flags = {
    json: jsonFlag('the totals: {timeZone, filters, snapshot, rows (day and status), days, total}, amounts in cents'),
    ...flagsOf(depositFilterFields({now: 0})),
    output: Flags.string({description: 'Format: table (with the chart, the default), csv, json or xlsx (a workbook: to --output-file or a pipe).', options: [...SUMMARY_FORMATS]}),
    chart: Flags.string({
      description: 'png FILE: write the chart of the daily paid amount as a PNG image as well; none: leave the terminal chart out.',
      helpValue: 'png FILE|none',
      multiple: true,
    }),
    concurrency: Flags.integer({description: 'Pages fetched at once (1 to 16).', default: 4, min: 1, max: 16}),
    'output-file': outputFileFlag('the summary (a new file is 0644: totals only)'),
  }

  async run(): Promise<SummaryDocument | undefined> {
    const {output, chart, concurrency, 'output-file': outputFile, ...fields} = this.flags
    return toOutputFile(this.ctx, outputFile, {mode: 0o644, json: this.jsonEnabled()}, async () => {
      const document = await depositsSummary({fields, output, chart, concurrency}, this.ctx)
      return this.ctx.globals.json && !output ? document : undefined
    })
  }
}
