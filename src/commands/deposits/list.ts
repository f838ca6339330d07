import {Flags} from '@oclif/core'

import {RejectedError} from '../../api/errors.js'
import type {DepositListQuery, GatewayApi} from '../../api/gateway.js'
import type {DepositPage} from '../../api/types.js'
import {terminalText} from '../../cli/terminal.js'
import {asciiText} from '../../output/printable.js'
import {BaseCommand, jsonFlag} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'
import {InterruptedError, UsageError} from '../../cli/errors.js'
import {buildDepositQuery, depositFields, pageCommand} from '../../input/deposits.js'
import {flagsOf} from '../../input/flag-definitions.js'
import {refuse} from '../../input/fields.js'
import {outputFileFlag, toOutputFile} from '../../output/file.js'
import {OUTPUT_FORMATS, outputFormat, type OutputFormat} from '../../output/printer.js'

export interface DepositsListOptions {
  /** The filter and paging flags of depositFields, as parsed. */
  fields: Record<string, unknown>
  all?: boolean
  output?: string
  interactive: boolean
  /** Pages fetched at once by --all. */
  concurrency: number
}

/** `deposits list`: one page as a table (or a pager), or with --all every page of one snapshot, streamed. */
export async function depositsList(options: DepositsListOptions, ctx: CommandContext): Promise<DepositPage | undefined> {
  const {query, table, fromFlags} = buildDepositQuery(options.fields, {now: ctx.now(), zone: ctx.env.TZ}, {all: options.all})
  if (options.all && options.fields.page !== undefined) throw new UsageError('--all walks every page: leave out --page')
  const {checkDepositQuery} = await import('../../schemas/deposit.js')
  const checked = checkDepositQuery(query, {side: 'client'})
  if (!checked.ok) refuse(table, checked.issues, {fromFlags, fromBody: new Set(), body: query})
  const api = await ctx.api()

  if (options.all) {
    const format = outputFormat(ctx, options.output, 'ndjson')
    if (format === 'table') throw new UsageError('--output table shows one page: use ndjson, csv or json with --all')
    await exportAll(api, query, format, options.concurrency, ctx)
    return undefined
  }
  const format = outputFormat(ctx, options.output)
  // A page for the pager fits the terminal's height, header included (and a line for a note on
  // columns left out), unless --per-page (or a snapshot, bound to its own) says otherwise.
  if (format === 'table' && options.interactive && ctx.io.prompt && options.fields['per-page'] === undefined && options.fields.snapshot === undefined) {
    const {linesThatFit, statusLines} = await import('../../output/pager.js')
    const {fitNote, TABLE_CHROME_LINES} = await import('../../output/table.js')
    const {depositColumns} = await import('../../render/deposits.js')
    // Room for the longest status line a page can have (a snapshot id is a UUID), and for the
    // longest note on columns left out that the table can need at this width.
    const status = statusLines(`Page 100 of 100 · snapshot ${'0'.repeat(36)}`, '', ctx.io.columns).length
    // The most a table of deposits leaves out is every column but the id and the amount; or it
    // keeps the creation time as its date alone.
    const columns = depositColumns()
    const droppable = columns.slice(1).filter((column) => !column.whole || column.priority)
    const noteLines = Math.max(
      ...[
        {dropped: droppable, compacted: []},
        {dropped: droppable.filter((column) => !column.compact), compacted: columns.filter((column) => column.compact)},
      ].map(({dropped, compacted}) => fitNote({text: '', dropped: dropped.map((column) => column.header), compacted: compacted.map((column) => column.header)}, ctx.io.columns)?.split('\n').length ?? 0),
    )
    const fit = linesThatFit(ctx.io.rows, TABLE_CHROME_LINES + noteLines, status)
    if (fit !== undefined) query.perPage = Math.min(query.perPage ?? 20, fit)
  }
  const page = await fetchPage(api, query)
  if (ctx.globals.json && !options.output) return page
  const {DEPOSIT_CSV, depositColumns} = await import('../../render/deposits.js')
  if (format !== 'table') {
    const {printList} = await import('../../output/printer.js')
    await printList(ctx, format, page.data, {columns: depositColumns(ctx.env.TZ), csv: DEPOSIT_CSV})
    ctx.note(footer(query, page, ctx, options.output))
    return undefined
  }
  const render = async (shown: DepositPage) => {
    if (shown.data.length === 0) return ''
    const {fitNote, renderTable} = await import('../../output/table.js')
    const rendered = await renderTable(shown.data, depositColumns(ctx.env.TZ), ctx.io)
    const note = fitNote(rendered, ctx.io.columns)
    return `${rendered.text}\n${note ? `${note}\n` : ''}`
  }
  if (options.interactive && ctx.io.prompt && page.totalPages > 1 && page.data.length > 0) {
    const pinned = onSnapshotOf(query, page)
    const {page: pager} = await import('../../output/pager.js')
    await pager(ctx, page, {
      render,
      status: (shown) => `Page ${shown.currentPage} of ${shown.totalPages}${shown.snapshot ? ` · snapshot ${asciiText(shown.snapshot)}` : ''}`,
      fetch: (number) => fetchPage(api, {...pinned, page: number}),
    })
    return undefined
  }
  ctx.io.stdout.write(terminalText(await render(page), {lines: true, color: ctx.io.color}))
  ctx.note(footer(query, page, ctx, options.output))
  return undefined
}

/** One page; a 422 on a page of a snapshot is explained as the snapshot's. */
async function fetchPage(api: GatewayApi, query: DepositListQuery): Promise<DepositPage> {
  try {
    return await api.listDeposits(query)
  } catch (error) {
    if (error instanceof RejectedError && query.snapshot && /snapshot/i.test(error.messages.join(' '))) {
      throw new RejectedError(
        `the snapshot ${query.snapshot} belongs to other filters or another --per-page, or has expired: ${error.messages.join('; ')}`,
        {status: error.status, body: error.body, messages: error.messages, hint: 'Run the first page again without --snapshot, or repeat its exact filters.'},
      )
    }
    throw error
  }
}

/** The footer on stderr: where this page stands, and the exact command for the next one. */
function footer(query: DepositListQuery, page: DepositPage, ctx: CommandContext, output?: string): string {
  if (page.totalPages === 0 || (page.data.length === 0 && page.currentPage === 1)) return 'No deposits match.'
  if (page.currentPage > page.totalPages) {
    return `Page ${page.currentPage} is past the last page, ${page.totalPages}${page.snapshot ? ` · snapshot ${asciiText(page.snapshot)}` : ''}`
  }
  const parts = [`Page ${page.currentPage} of ${page.totalPages}`]
  if (page.snapshot) parts.push(`snapshot ${asciiText(page.snapshot)}`)
  let text = parts.join(' · ')
  if (page.currentPage < page.totalPages) {
    const next = pageCommand(onSnapshotOf(query, page), page.currentPage + 1, {
      bin: ctx.bin,
      profile: ctx.globals.profile,
      baseUrl: ctx.globals.baseUrl,
      output,
    })
    text += `\nNext page: ${next}`
  }
  return text
}

/** --all: every page of one snapshot, each record written as it arrives, in order. */
async function exportAll(api: GatewayApi, query: DepositListQuery, format: Exclude<OutputFormat, 'table'>, concurrency: number, ctx: CommandContext): Promise<void> {
  const {leanHeapForLongWalk, RecordWriter} = await import('../../output/stream.js')
  const {DEPOSIT_CSV} = await import('../../render/deposits.js')
  const {walkPages} = await import('../../api/paging.js')
  await leanHeapForLongWalk()
  const writer = new RecordWriter(ctx.io.stdout, format, DEPOSIT_CSV)
  // Progress is for a person watching stderr, whatever stdout is connected to.
  const progress = ctx.io.spinner
  // A signal stops the export between pages, and the log says what was written: a cron job's
  // output is then known to be partial, and how far it got.
  let signal: NodeJS.Signals | undefined
  void ctx.interrupted().then((name) => {
    signal = name
  })
  let pages = 0
  let total = 0
  // Each page becomes its text as soon as it arrives: a page waiting its turn holds one string.
  for await (const page of walkPages(api, query, {concurrency, prepare: (records) => writer.prepare(records)})) {
    if (page.currentPage === 1) ctx.streaming = true
    await writer.prepared(page.records)
    pages = page.currentPage
    total = page.totalPages
    if (progress) ctx.io.stderr.write(`\r\u001B[2KExported page ${page.currentPage} of ${page.totalPages} (${writer.written} deposits)`)
    if (signal) break
  }
  if (progress) ctx.io.stderr.write('\n')
  if (signal) {
    ctx.note(
      `Interrupted (${signal}): the export stopped after page ${pages} of ${total}, with ${writer.written} deposits written. The output is incomplete${format === 'json' ? ' (and not a whole JSON array)' : ''}: run the export again.`,
    )
    throw new InterruptedError(signal)
  }
  await writer.end()
}

/** The query for the other pages of a page's snapshot: the same filters and perPage, with its snapshot. */
function onSnapshotOf(query: DepositListQuery, page: DepositPage): DepositListQuery {
  return {...query, snapshot: page.snapshot ?? query.snapshot}
}

export default class DepositsList extends BaseCommand<typeof DepositsList> {
  static override summary = 'List deposits by status, origin, date and amount; page through them or export them all.'

  static override description = `Lists deposits (GET /core/deposit), newest first, one page at a time as a table that fits the terminal. The first page makes a snapshot: later pages of that snapshot see exactly the same set, even while new deposits arrive. The footer gives the snapshot and the exact command for the next page. In a terminal, n and p move between pages and q quits (--no-interactive turns this off).

--all walks every page of one snapshot and streams each record as it arrives, as NDJSON (default), CSV or one JSON array (--output), fetching --concurrency pages at once and writing them in order. Memory stays flat however many pages there are; progress goes to stderr when it is a terminal. A streamed export that exits non-zero is incomplete.

--from and --to take an ISO date-time (2026-11-20T00:00:00-03:00), a date (2026-11-20: that whole day in your time zone, TZ), or a time before now (30m, 24h, 7d, 2w). --status and --origin take any case. Amounts are integer cents. With --snapshot, give the filters and --per-page of the first page: the snapshot is bound to them.`

  static override examples = [
    {description: 'Paid deposits, newest first', command: '<%= config.bin %> <%= command.id %> --status PAID'},
    {description: 'Deposits by PIX key of the last 24 hours, over R$ 100,00', command: '<%= config.bin %> <%= command.id %> --origin PIX_KEY --from 24h --min-amount 10000'},
    {description: 'Export every refunded deposit of the last week to CSV', command: '<%= config.bin %> <%= command.id %> --status REFUNDED --from 7d --all --output csv > refunds.csv'},
    {description: 'The next page of a snapshot', command: '<%= config.bin %> <%= command.id %> --status PAID --per-page 20 --snapshot 8c1f... --page 2'},
  ]

  static override flags = {
    json: jsonFlag('the page as the gateway returned it (with --all, one array of every deposit)'),
    ...flagsOf(depositFields({now: 0})),
    all: Flags.boolean({description: 'Walk every page of one snapshot and stream every record.'}),
    output: Flags.string({
      description: 'Format: table (one page, the default), or ndjson, csv, json. With --all: ndjson (default), csv or json (one array).',
      options: [...OUTPUT_FORMATS],
    }),
    concurrency: Flags.integer({description: 'Pages fetched at once by --all (1 to 16).', default: 4, min: 1, max: 16}),
    interactive: Flags.boolean({description: 'Page with n/p/q in a terminal.', default: true, allowNo: true}),
    'output-file': outputFileFlag('the deposits (a new file is 0600: it holds payers\' names and documents)'),
  }

  async run(): Promise<DepositPage | undefined> {
    const {all, output, interactive, concurrency, 'output-file': outputFile, ...fields} = this.flags
    return toOutputFile(this.ctx, outputFile, {mode: 0o600, json: this.jsonEnabled()}, () => depositsList({fields, all, output, interactive, concurrency}, this.ctx))
  }
}
