import type {CommandContext} from '../cli/context.js'
import {CliError, ExitCode, InterruptedError, ReportedError, UsageError} from '../cli/errors.js'
import {buildDepositQuery, depositFilterFields, type DateContext} from '../input/deposits.js'
import type {FlagTable} from '../input/fields.js'
import type {OutputFormat} from '../output/printer.js'
import type {BatchInput} from '../batch/read.js'
import {ATTENTION, Reconciler, type ReconcileRow, type ReconcileSummary} from './match.js'

/**
 * `deposits reconcile`: the expected charges of a file against the deposits of a window, by
 * external code. The file is read and checked whole before anything is fetched; the deposits are
 * walked page by page, as `deposits list --all` walks them, and only what matching needs is kept
 * of each; the expected side is held once, indexed by code.
 */

/** The filters that choose the deposits: those of `deposits list` that select by date, status and origin. */
const WINDOW_FLAGS = new Set(['status', 'origin', 'from', 'to'])
export const reconcileFilterFields = (dates: DateContext): FlagTable => depositFilterFields(dates).filter((field) => WINDOW_FLAGS.has(field.flag))

/** The most rows an expected file may have unless --max-rows says otherwise. */
export const MAX_EXPECTED_ROWS = 1_000_000

/** Rows written to the output at once. */
const CHUNK = 1000

/** Reconciled, but not everything matched: exit 10, so a cron job tells it from a run that could not reconcile. */
export class DiscrepanciesError extends CliError {
  readonly exitCode = ExitCode.Discrepancies
  readonly code = 'DISCREPANCIES'
}

export interface ReconcileOptions {
  /** The file of expected charges, or - for stdin. */
  expected: string
  /** The window flags, as parsed (status, origin, from, to). */
  fields: Record<string, unknown>
  output?: string
  /** Pages fetched at once. */
  concurrency: number
  maxRows?: number
  /** Of a workbook: the sheet to read (default the first). */
  sheet?: string
}

export interface ReconcileDocument {
  summary: ReconcileSummary
  rows: ReconcileRow[]
}

/** The file as bytes, or stdin; a path that cannot be read is refused before anything else. */
async function openExpected(file: string, ctx: CommandContext): Promise<BatchInput> {
  if (file === '-') return ctx.io.stdin
  const {stat} = await import('node:fs/promises')
  const {createReadStream} = await import('node:fs')
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`--expected ${file} cannot be read: ${error.code === 'ENOENT' ? 'no such file' : error.code === 'EACCES' ? 'permission denied' : error.message}`)
  })
  if (info.isDirectory()) throw new UsageError(`--expected ${file} is a folder, not a file`)
  return createReadStream(file)
}

export async function depositsReconcile(options: ReconcileOptions, ctx: CommandContext): Promise<ReconcileDocument | undefined> {
  if (options.output === 'xlsx') {
    const {refuseWorkbookToTerminal} = await import('../output/printer.js')
    refuseWorkbookToTerminal(ctx, 'xlsx')
  }
  // 1. The window, checked as `deposits list` checks it.
  const dates = {now: ctx.now(), zone: ctx.env.TZ}
  const {query, table, fromFlags} = buildDepositQuery(options.fields, dates, {all: true})
  const {checkDepositQuery} = await import('../schemas/deposit.js')
  const checked = checkDepositQuery(query, {side: 'client'})
  if (!checked.ok) {
    const {refuse} = await import('../input/fields.js')
    refuse(table, checked.issues, {fromFlags, fromBody: new Set(), body: query})
  }

  // 2. The file, every row checked, before anything is fetched. The walk below is that of
  // `deposits list --all`, with the same settings of V8 for a long walk, set from here: reading a
  // large file with them took less time and left a smaller heap (a young generation kept small).
  const {leanHeapForLongWalk} = await import('../output/stream.js')
  leanHeapForLongWalk()
  const {readExpected} = await import('./expected.js')
  const input = await openExpected(options.expected, ctx)
  let file: Awaited<ReturnType<typeof readExpected>>
  try {
    file = await readExpected(input, {zone: ctx.env.TZ, maxRows: options.maxRows ?? MAX_EXPECTED_ROWS, sheet: options.sheet, flag: `--expected ${options.expected}`, note: (text) => ctx.note(text)})
  } catch (error) {
    if (error instanceof CliError) throw error
    throw new UsageError(`--expected ${options.expected} cannot be read: ${(error as Error).message}`)
  }
  if (file.problems.length > 0) {
    const {problemLine} = await import('../batch/run.js')
    const lines = file.problems.map(problemLine)
    const bad = new Set(file.problems.map((problem) => problem.line)).size
    throw new UsageError(lines.join('\n'), {
      messages: lines,
      hint: `${bad === 1 ? '1 line has' : `${bad} lines have`} problems in --expected ${options.expected}: nothing was fetched. Every row needs external-code and amount (integer cents) or amount-brl (reais: 781,62); due-date and document are optional.`,
      body: {problems: file.problems},
    })
  }
  if (file.rows.length === 0) throw new UsageError(`--expected ${options.expected} holds no rows: nothing to reconcile`)

  const asDocument = ctx.globals.json && !options.output
  const format: OutputFormat = asDocument ? 'json' : ((options.output as OutputFormat | undefined) ?? 'table')

  // 3. Every deposit of the window, page by page, each matched as it comes.
  const api = await ctx.api()
  const {walkPages} = await import('../api/paging.js')
  const reconciler = new Reconciler(file.rows, file.byCode, ctx.now())
  const progress = ctx.io.spinner
  let signal: NodeJS.Signals | undefined
  void ctx.interrupted().then((name) => {
    signal = name
  })
  // Each page is made what matching keeps of it as soon as it arrives.
  for await (const page of walkPages(api, query, {concurrency: options.concurrency, prepare: (records) => reconciler.prepare(records)})) {
    reconciler.take(page.records)
    if (progress) ctx.io.stderr.write(`\r\u001B[2KFetched page ${page.currentPage} of ${page.totalPages} (${reconciler.deposits} deposits)`)
    if (signal) break
  }
  if (progress) ctx.io.stderr.write('\n')
  if (signal) {
    ctx.note(`Interrupted (${signal}) before every deposit was fetched: nothing was reconciled. Run it again.`)
    throw new InterruptedError(signal)
  }
  if (reconciler.repeated > 0) ctx.note(`${reconciler.repeated} ${reconciler.repeated === 1 ? 'deposit was' : 'deposits were'} listed more than once by the gateway: each was counted once.`)

  // 4. The result. Written as data, each line is counted into the summary as it is written.
  const {verdict} = await import('./render.js')
  let document: ReconcileDocument | undefined
  let summary: ReconcileSummary
  if (asDocument) {
    const rows = [...reconciler.all()]
    const tally = reconciler.tally()
    for (const row of rows) tally.add(row)
    summary = tally.summary()
    document = {summary, rows}
  } else if (format === 'table') {
    summary = reconciler.summary()
    await printTables(reconciler, summary, ctx)
  } else {
    const {recordSink} = await import('../output/stream.js')
    const {RECONCILE_CSV, RECONCILE_WORKBOOK} = await import('./render.js')
    const writer = await recordSink<ReconcileRow>(ctx.io.stdout, format, RECONCILE_CSV, {...RECONCILE_WORKBOOK, zone: ctx.env.TZ})
    ctx.streaming = true
    const tally = reconciler.tally()
    let chunk: ReconcileRow[] = []
    for (const row of reconciler.all()) {
      tally.add(row)
      chunk.push(row)
      if (chunk.length >= CHUNK) {
        await writer.records(chunk)
        chunk = []
      }
    }
    await writer.records(chunk)
    await writer.end()
    summary = tally.summary()
  }
  ctx.note(countsLine(summary))
  if (summary.reconciled) {
    ctx.note(verdict(summary))
    return document
  }
  const error = new DiscrepanciesError(verdict(summary), {
    hint: format === 'table' ? undefined : 'Every row carries its class; --output table shows a table per class that needs attention.',
  })
  if (document) throw new ReportedError(error, {lines: [], json: {...document}})
  throw error
}

/** The counts per class, one line for stderr (and a cron job's log). */
function countsLine(summary: ReconcileSummary): string {
  const parts = (['paid', ...ATTENTION] as const).map((name) => `${name} ${summary.classes[name].count}`)
  return `${summary.rows} expected, ${summary.deposits} deposits in the window: ${parts.join(', ')}${summary.overdue > 0 ? ` (${summary.overdue} overdue)` : ''}.`
}

/** For a person: a table per class that needs attention, then one summary with counts and amounts per class. */
async function printTables(reconciler: Reconciler, summary: ReconcileSummary, ctx: CommandContext): Promise<void> {
  const {renderTable, fitNote} = await import('../output/table.js')
  const {CLASS_TITLES, classColumns, summaryLines, SUMMARY_COLUMNS} = await import('./render.js')
  const {brl} = await import('../render/money.js')
  const byClass = new Map<string, ReconcileRow[]>()
  for (const row of reconciler.all()) {
    if (row.class === 'paid') continue
    const list = byClass.get(row.class)
    if (list) list.push(row)
    else byClass.set(row.class, [row])
  }
  const notes = new Set<string>()
  for (const name of ATTENTION) {
    const rows = byClass.get(name)
    if (!rows) continue
    const total = summary.classes[name]
    const amounts = name === 'unknown' ? `${brl(total.paid)} paid` : `${brl(total.expected)} expected${total.paid > 0 ? `, ${brl(total.paid)} paid` : ''}`
    ctx.out(ctx.paint('bold', `${CLASS_TITLES[name]} (${name}): ${rows.length}, ${amounts}`))
    const table = await renderTable(rows, classColumns(name), ctx.io)
    ctx.out(table.text)
    ctx.out()
    const note = fitNote(table, ctx.io.columns)
    if (note) notes.add(note)
  }
  ctx.out(ctx.paint('bold', `Summary: ${summary.rows} expected ${summary.rows === 1 ? 'charge' : 'charges'}, ${summary.deposits} ${summary.deposits === 1 ? 'deposit' : 'deposits'} in the window`))
  const table = await renderTable(summaryLines(summary), SUMMARY_COLUMNS, ctx.io)
  ctx.out(table.text)
  const note = fitNote(table, ctx.io.columns)
  if (note) notes.add(note)
  for (const line of notes) ctx.note(line)
}
