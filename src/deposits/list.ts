// `deposits list`: one page as a table (or a pager), or with --all every page of one snapshot,
// streamed. Its oclif class (src/commands/deposits/list.ts) and the fast path
// (src/fast/deposits-list.ts) both run runDepositsList.
import type {DepositListQuery, GatewayApi} from '../api/gateway.js'
import {RejectedError} from '../api/errors.js'
import type {DepositPage} from '../api/types.js'
import type {CommandContext} from '../cli/context.js'
import {InterruptedError, UsageError} from '../cli/errors.js'
import {terminalText} from '../cli/terminal.js'
import {buildDepositQuery, pageCommand} from '../input/deposits.js'
import {refuse} from '../input/fields.js'
import {toOutputFile} from '../output/file.js'
import {asciiText} from '../output/printable.js'
import {outputFormat, refuseWorkbookToTerminal, type OutputFormat} from '../output/printer.js'
import type {DepositsListFlags} from './list-flags.js'

/** Runs `deposits list` with its flags as read: --output-file around the listing. */
export function runDepositsList(flags: DepositsListFlags, ctx: CommandContext): Promise<DepositPage | undefined> {
  const {all, output, interactive, concurrency, 'output-file': outputFile, ...fields} = flags
  return toOutputFile(ctx, outputFile, {mode: 0o600, json: ctx.globals.json}, () => depositsList({fields, all, output, interactive, concurrency}, ctx))
}

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
  const {checkDepositQuery} = await import('../schemas/deposit.js')
  const checked = checkDepositQuery(query, {side: 'client'})
  if (!checked.ok) refuse(table, checked.issues, {fromFlags, fromBody: new Set(), body: query})
  const api = await ctx.api()

  if (options.all) {
    const format = outputFormat(ctx, options.output, 'ndjson')
    if (format === 'table') throw new UsageError('--output table shows one page: use ndjson, csv, json or xlsx with --all')
    refuseWorkbookToTerminal(ctx, format)
    await exportAll(api, query, format, options.concurrency, ctx)
    return undefined
  }
  const format = outputFormat(ctx, options.output)
  // A page for the pager fits the terminal's height, header included (and a line for a note on
  // columns left out), unless --per-page (or a snapshot, bound to its own) says otherwise.
  if (format === 'table' && options.interactive && ctx.io.prompt && options.fields['per-page'] === undefined && options.fields.snapshot === undefined) {
    const {linesThatFit, statusLines} = await import('../output/pager.js')
    const {fitNote, TABLE_CHROME_LINES} = await import('../output/table.js')
    const {depositColumns} = await import('../render/deposits.js')
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
  const {DEPOSIT_CSV, depositColumns, depositWorkbook} = await import('../render/deposits.js')
  if (format !== 'table') {
    const {printList} = await import('../output/printer.js')
    await printList(ctx, format, page.data, {columns: depositColumns(ctx.env.TZ), csv: DEPOSIT_CSV, workbook: depositWorkbook(ctx.env.TZ)})
    ctx.note(footer(query, page, ctx, options.output))
    return undefined
  }
  const render = async (shown: DepositPage) => {
    if (shown.data.length === 0) return ''
    const {fitNote, renderTable} = await import('../output/table.js')
    const rendered = await renderTable(shown.data, depositColumns(ctx.env.TZ), ctx.io)
    const note = fitNote(rendered, ctx.io.columns)
    return `${rendered.text}\n${note ? `${note}\n` : ''}`
  }
  if (options.interactive && ctx.io.prompt && page.totalPages > 1 && page.data.length > 0) {
    const pinned = onSnapshotOf(query, page)
    const {page: pager} = await import('../output/pager.js')
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
  const {leanHeapForLongWalk, recordSink, settleCompilers, WARM_PAGES, youngGenerationGrown} = await import('../output/stream.js')
  const {DEPOSIT_CSV, depositWorkbook} = await import('../render/deposits.js')
  const {walkPages} = await import('../api/paging.js')
  const writer = await recordSink(ctx.io.stdout, format, DEPOSIT_CSV, depositWorkbook(ctx.env.TZ))
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
    if (page.currentPage === 1) {
      ctx.streaming = true
      // Once the first page is in, every bundle the walk reads is loaded (the HTTP client, the
      // CSV writer): V8 refuses the code cache of a bundle loaded after its flags change.
      leanHeapForLongWalk({growYoung: true})
    }
    if (page.currentPage === WARM_PAGES) settleCompilers()
    youngGenerationGrown()
    await writer.prepared(page.records)
    pages = page.currentPage
    total = page.totalPages
    if (progress) ctx.io.stderr.write(`\r\u001B[2KExported page ${page.currentPage} of ${page.totalPages} (${writer.written} deposits)`)
    if (signal) break
  }
  if (progress) ctx.io.stderr.write('\n')
  if (signal) {
    ctx.note(
      `Interrupted (${signal}): the export stopped after page ${pages} of ${total}, with ${writer.written} deposits written. The output is incomplete${format === 'json' ? ' (and not a whole JSON array)' : format === 'xlsx' ? ' (and not a workbook a spreadsheet opens)' : ''}: run the export again.`,
    )
    throw new InterruptedError(signal)
  }
  await writer.end()
}

/** The query for the other pages of a page's snapshot: the same filters and perPage, with its snapshot. */
function onSnapshotOf(query: DepositListQuery, page: DepositPage): DepositListQuery {
  return {...query, snapshot: page.snapshot ?? query.snapshot}
}
