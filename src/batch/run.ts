import type {CommandContext} from '../cli/context.js'
import {CliError, ExitCode, UsageError} from '../cli/errors.js'
import {fieldOfPath, type FlagTable} from '../input/fields.js'
import type {CsvColumn} from '../output/csv.js'
import type {OutputFormat} from '../output/printer.js'
import type {Column} from '../output/table.js'
import {brl} from '../render/money.js'
import type {Issue} from '../schemas/rules.js'
import type {SendOptions} from '../send/money.js'
import {DEFAULT_CONCURRENCY, MAX_BATCH_ROWS} from './limits.js'
import type {BatchFormat, BatchProblem} from './read.js'

/**
 * The one batch runner behind `withdraw --batch` and `tx create --batch`: read the file, check
 * every row offline by the single command's rules, sum it up and ask, then send the rows with
 * bounded concurrency, each through the journal under a key derived from the file (or its own),
 * and report one result per row, a tally, and the exit code of the worst failure.
 */

/** What each row's body carries, whatever the command. */
export interface RowBody {
  amount: number
  idempotencyKey: string
  externalCode?: string
}

/** A row that passed every check, ready to send. */
export interface PreparedRow<B extends RowBody> {
  line: number
  row: number
  /** Whether the idempotency key was derived from the file (false: the row's own). */
  derived: boolean
  body: B
}

/** What the gateway answered to one row. */
export interface SentRow {
  id: string
  status?: string
  replayed: boolean
  /** Fields of the command's own for the results (a charge's copy-and-paste code). */
  extra?: Record<string, unknown>
}

/** The result of one row, as printed: one line per row. */
export interface RowResult {
  line: number
  externalCode: string | null
  idempotencyKey: string
  amount: number
  id: string | null
  /** The status the gateway answered; null when the row failed or was not sent. */
  status: string | null
  /** The gateway answered with the record an earlier run made: nothing new was sent out. */
  replayed: boolean
  /** done (made now), replayed (made before), failed, or not-sent (the run was interrupted first). */
  outcome: 'done' | 'replayed' | 'failed' | 'not-sent'
  /** 0 when done or replayed; the exit code the single command would have ended with otherwise. */
  exitCode: number
  /** What went wrong, when the row failed. */
  error: string | null
  [extra: string]: unknown
}

/** The summary shown before anything is sent. */
export interface BatchSummaryView {
  command: string
  file: string
  format: BatchFormat
  rows: number
  totalCents: number
  largest: {amount: number; line: number}
  /** Rows by PIX key type (withdrawals). */
  byKeyType?: Record<string, number>
  /** The first 16 hex digits of the content hash: the batch's name, in its derived keys. */
  batch: string
  keys: {derived: number; own: number}
  destination: string
  profile: string
  limits: {maxRows: number; maxTotal: number}
}

export interface Tally {
  rows: number
  done: number
  replayed: number
  failed: number
  notSent: number
}

/** One command's part in a batch: its fields, how a row is checked and sent, and what it adds to the output. */
export interface BatchCommand<B extends RowBody> {
  /** As typed: "withdraw", "tx create". */
  command: string
  /** The record, one and many: "withdrawal", "withdrawals". */
  one: string
  many: string
  table: FlagTable
  /** Derived keys start with this: `payout-<hash>-<row>`. */
  keyPrefix: string
  defaultMaxTotal: number
  /** Checks one row's flags by the single command's rules; names each refused field by its flag (`--amount ...`). */
  prepare(flags: Record<string, unknown>): Promise<{body?: B; issues: Array<Issue & {text: string}>}>
  /** Where the rows are sent, for the summary. */
  destination(ctx: CommandContext): Promise<string>
  /** Rows by key type, for withdrawals. */
  byKeyType?(bodies: B[]): Record<string, number>
  /** Sends one row through the one send path (the rows were checked for repeats up front). */
  send(ctx: CommandContext, row: PreparedRow<B>, options: SendOptions): Promise<SentRow>
  /** Fields of the command's own in every result (e.g. the masked PIX key), beside what send adds. */
  resultFields?(body: B): Record<string, unknown>
  /** The command's own result columns, for CSV, and the table's. */
  csv?: ReadonlyArray<readonly [string, (result: RowResult) => unknown]>
  columns?: Column<RowResult>[]
}

export interface BatchOptions {
  /** The file, or - for stdin. */
  file: string
  yes?: boolean
  dryRun?: boolean
  output?: OutputFormat
  /** Rows sent at once (default 4). */
  concurrency?: number
  /** Default 10000. */
  maxRows?: number
  maxTotal?: number
  /** Send rows the journal shows were sent before under another key (see refuseRepeats). */
  allowRepeats?: boolean
  /** Of a workbook: the sheet to read (default the first). */
  sheet?: string
}

/** The batch ended with rows that failed: its exit code is the worst of theirs. */
export class BatchFailedError extends CliError {
  readonly code = 'BATCH_FAILED'

  constructor(
    readonly exitCode: ExitCode,
    message: string,
    options: {hint?: string} = {},
  ) {
    super(message, options)
  }
}

/**
 * Which failure is worst, first to last: the outcome unknown (7 gateway or network failure, 6 rate
 * limited, 1 unexpected: those rows are pending, and money may have moved), then the refusals, in
 * which nothing moved (3 authentication, 5 rejected, 4 not found). The batch exits with the first
 * of these that any row met.
 */
export const SEVERITY: readonly number[] = [ExitCode.Unavailable, ExitCode.RateLimited, ExitCode.Unexpected, ExitCode.Auth, ExitCode.Rejected, ExitCode.NotFound]

export function worstExit(codes: Iterable<number>): number {
  let worst: number | undefined
  const rank = (code: number) => {
    const index = SEVERITY.indexOf(code)
    return index === -1 ? SEVERITY.length : index
  }
  for (const code of codes) if (code !== 0 && (worst === undefined || rank(code) < rank(worst))) worst = code
  return worst ?? 0
}

/** The batch's problems, one line each: "line 7: amount must be ...". */
export function problemLine(problem: BatchProblem): string {
  return /^(has|is|must|names) /.test(problem.message) ? `line ${problem.line} ${problem.message}` : `line ${problem.line}: ${problem.message}`
}

const BASE_CSV: ReadonlyArray<readonly [string, (result: RowResult) => unknown]> = [
  ['line', (result) => result.line],
  ['externalCode', (result) => result.externalCode],
  ['idempotencyKey', (result) => result.idempotencyKey],
  ['amount', (result) => result.amount],
  ['id', (result) => result.id],
  ['status', (result) => result.status],
  ['replayed', (result) => result.replayed],
  ['outcome', (result) => result.outcome],
  ['exitCode', (result) => result.exitCode],
  ['error', (result) => result.error],
]

/** Reads, checks and sends a batch; see the module's comment. */
export async function runBatch<B extends RowBody>(spec: BatchCommand<B>, options: BatchOptions, ctx: CommandContext): Promise<unknown> {
  const {readBatch, rowIdempotencyKeys, BatchTooLargeError} = await import('./read.js')
  const {rowFlags, parseProblems, unflagged} = await import('./rows.js')

  const maxRows = options.maxRows ?? MAX_BATCH_ROWS
  // 1. Read the file, every row checked offline by the single command's rules.
  const input = await openInput(options.file, ctx)
  let file: Awaited<ReturnType<typeof readBatch>>
  try {
    file = await readBatch(input, {maxRows, sheet: options.sheet, flag: `--batch ${options.file}`, note: (text) => ctx.note(text)})
  } catch (error) {
    if (error instanceof BatchTooLargeError) {
      throw new UsageError(`the batch file has more than ${maxRows} rows: nothing was sent`, {
        hint: `A batch that large is refused unless you raise the limit: --max-rows N (default 10000).`,
      })
    }
    if (error instanceof CliError) throw error
    throw new UsageError(`--batch ${options.file} cannot be read: ${(error as Error).message}`)
  }
  const problems: BatchProblem[] = [...file.problems]
  const {keys, problems: keyProblems} = rowIdempotencyKeys(file, {prefix: spec.keyPrefix})
  for (const problem of keyProblems) problems.push({...problem, message: `${problem.field} ${problem.message}`})
  const keyOf = new Map(keys.map((key) => [key.row, key]))
  const unknown = new Set<string>()
  const prepared: Array<PreparedRow<B>> = []
  for (const row of file.rows) {
    const read = rowFlags(spec.table, row, spec.command, unknown)
    problems.push(...read.problems)
    const key = keyOf.get(row.row)
    // A row whose own key was refused is checked without it, so its other problems are said too.
    read.flags['idempotency-key'] = key?.key ?? `${spec.keyPrefix}-placeholder-${row.row}`
    const parsed = parseProblems(spec.table, read, row.line)
    problems.push(...parsed)
    // A field already refused (null, of the wrong kind, or by its parser) is not said to be missing too.
    const said = new Set([...read.problems, ...parsed].map((problem) => problem.field).concat([...read.meant]))
    const {body, issues} = await spec.prepare(read.flags)
    for (const issue of issues) {
      const field = fieldOfPath(spec.table, issue.path)?.flag ?? issue.path
      if (!said.has(field)) problems.push({line: row.line, field, message: unflagged(spec.table, issue.text)})
    }
    if (body && key && read.problems.length === 0) prepared.push({line: row.line, row: row.row, derived: key.derived, body})
  }
  if (problems.length > 0) {
    problems.sort((a, b) => a.line - b.line)
    const lines = problems.map(problemLine)
    const bad = new Set(problems.map((problem) => problem.line)).size
    throw new UsageError(lines.join('\n'), {
      messages: lines,
      hint: `${bad === 1 ? '1 line has' : `${bad} lines have`} problems in --batch ${options.file}: nothing was sent. Every row is checked before any is sent.`,
      body: {problems},
    })
  }
  if (prepared.length === 0) throw new UsageError(`--batch ${options.file} holds no rows: nothing to send`)

  // 2. The summary, the limits, and the operator's word.
  const session = await ctx.session()
  if (!options.allowRepeats) await refuseRepeats(spec, prepared, {profile: session.profile, baseUrl: session.baseUrl, clientId: session.clientId}, ctx)
  const maxTotal = options.maxTotal ?? spec.defaultMaxTotal
  const summary = summarize(spec, prepared, file, {...options, maxRows}, maxTotal, await spec.destination(ctx), session.profile)
  for (const line of summaryLines(spec, summary)) ctx.note(line)
  for (const line of rowAmountLines(prepared)) ctx.note(line)
  if (summary.totalCents > maxTotal) {
    throw new UsageError(
      `the batch totals ${brl(summary.totalCents)} (${summary.totalCents} cents), over the limit of ${brl(maxTotal)} (--max-total ${maxTotal}): nothing was sent`,
      {hint: `If that total is meant, raise the limit: --max-total ${summary.totalCents}.`, body: {summary}},
    )
  }
  if (options.dryRun) {
    ctx.note('Dry run: nothing was sent.')
    return ctx.globals.json ? {dryRun: true, summary} : undefined
  }
  // The journal is written before each row is sent: a config folder that cannot be written refuses the batch first.
  const {writableJournal} = await import('../journal/journaled.js')
  await writableJournal(ctx, spec.command)
  await confirm(spec, summary, options, ctx)

  // 3. Send: the login first (a batch that cannot authenticate sends nothing), then the rows.
  await session.client.accessToken()
  return send(spec, prepared, summary, options, ctx)
}

/**
 * The repeat guard, over every row before anything is sent (see src/send/repeats.ts): a batch with
 * rows the journal shows were sent before under other keys is refused whole, naming each row,
 * unless --allow-repeats says they are meant.
 */
async function refuseRepeats<B extends RowBody>(
  spec: BatchCommand<B>,
  rows: Array<PreparedRow<B>>,
  target: {profile: string; baseUrl: string; clientId?: string},
  ctx: CommandContext,
): Promise<void> {
  const {journalOf} = await import('../journal/journaled.js')
  const {findRepeats, repeatLine} = await import('../send/repeats.js')
  const repeats = await findRepeats(await journalOf(ctx), target, spec.command, rows as Array<PreparedRow<B> & {body: Record<string, unknown>}>)
  if (repeats.length === 0) return
  const problems: BatchProblem[] = repeats.map(({request, earlier}) => ({
    line: request.line,
    field: 'external-code',
    message: repeatLine(spec.one, earlier, request.body.idempotencyKey, 'external-code').replace("this one's key", "this row's key"),
  }))
  const lines = problems.map(problemLine)
  throw new UsageError(lines.join('\n'), {
    messages: lines,
    hint: `Nothing was sent. ${problems.length === 1 ? 'This row was' : 'These rows were'} sent before under ${problems.length === 1 ? 'its' : 'their'} external code, from a file with other content (a changed file is a new batch, with new keys), so sending ${problems.length === 1 ? 'it' : 'them'} again would move the money twice. Run the file that was sent, unchanged, to finish it; or, if ${problems.length === 1 ? 'it is' : 'they are'} meant as new ${spec.many}, give --allow-repeats.`,
    body: {problems},
  })
}

/** The file as a stream of bytes, or stdin; a path that cannot be read is refused before anything else. */
async function openInput(file: string, ctx: CommandContext): Promise<AsyncIterable<Uint8Array | string>> {
  if (file === '-') return ctx.io.stdin
  const {stat} = await import('node:fs/promises')
  const {createReadStream} = await import('node:fs')
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`--batch ${file} cannot be read: ${error.code === 'ENOENT' ? 'no such file' : error.code === 'EACCES' ? 'permission denied' : error.message}`)
  })
  if (info.isDirectory()) throw new UsageError(`--batch ${file} is a folder, not a file`)
  return createReadStream(file)
}

function summarize<B extends RowBody>(
  spec: BatchCommand<B>,
  rows: Array<PreparedRow<B>>,
  file: {format: BatchFormat; sha256: string},
  options: BatchOptions & {maxRows: number},
  maxTotal: number,
  destination: string,
  profile: string,
): BatchSummaryView {
  let totalCents = 0
  let largest = {amount: -1, line: 0}
  for (const {body, line} of rows) {
    totalCents += body.amount
    if (body.amount > largest.amount) largest = {amount: body.amount, line}
  }
  const derived = rows.filter((row) => row.derived).length
  return {
    command: spec.command,
    file: options.file,
    format: file.format,
    rows: rows.length,
    totalCents,
    largest,
    ...(spec.byKeyType ? {byKeyType: spec.byKeyType(rows.map((row) => row.body))} : {}),
    batch: file.sha256.slice(0, 16),
    keys: {derived, own: rows.length - derived},
    destination,
    profile,
    limits: {maxRows: options.maxRows, maxTotal},
  }
}

/** Rows listed one by one before the operator is asked; past this, the first ones and a count. */
const ROWS_LISTED = 50

/**
 * Each row's amount, in cents as sent and in reais as a person reads it (an amount read from
 * amount-brl is checked here by eye before anything moves): `line 2: 78162 cents (R$ 781,62)`.
 */
function rowAmountLines<B extends RowBody>(rows: Array<PreparedRow<B>>): string[] {
  if (rows.length === 0) return []
  const listed = rows.length <= ROWS_LISTED ? rows : rows.slice(0, 20)
  const lines = ['  Rows:', ...listed.map(({line, body}) => `    line ${line}: ${body.amount} cents (${brl(body.amount)})`)]
  if (listed.length < rows.length) {
    const rest = rows.slice(listed.length).reduce((sum, {body}) => sum + body.amount, 0)
    lines.push(`    and ${rows.length - listed.length} rows more: ${rest} cents (${brl(rest)})`)
  }
  return lines
}

function summaryLines<B extends RowBody>(spec: BatchCommand<B>, summary: BatchSummaryView): string[] {
  const {rows, keys} = summary
  const source = summary.file === '-' ? 'stdin' : summary.file
  const lines = [
    `Batch ${summary.batch} from ${source} (${summary.format.toUpperCase()}): ${rows} ${rows === 1 ? spec.one : spec.many}`,
    `  Total:      ${brl(summary.totalCents)}`,
    `  Largest:    ${brl(summary.largest.amount)} (line ${summary.largest.line})`,
  ]
  if (summary.byKeyType) {
    const types = Object.entries(summary.byKeyType)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([type, count]) => `${type} ${count}`)
    lines.push(`  Key types:  ${types.join(', ')}`)
  }
  const keyText =
    keys.own === 0
      ? `derived from the file's content (${spec.keyPrefix}-<hash>-<row>)`
      : keys.derived === 0
        ? 'every row carries its own (idempotency-key)'
        : `${keys.derived} derived from the file's content, ${keys.own} the rows' own`
  lines.push(`  Keys:       ${keyText}`)
  lines.push(`  To:         ${summary.destination} (profile ${summary.profile})`)
  return lines
}

/** Money moves only when the operator said so: --yes, or "y" at a prompt in a terminal (default no). */
async function confirm<B extends RowBody>(
  spec: BatchCommand<B>,
  summary: BatchSummaryView,
  options: BatchOptions,
  ctx: CommandContext,
): Promise<void> {
  if (options.yes) return
  const what = `${summary.rows} ${summary.rows === 1 ? spec.one : spec.many}`
  if (options.file === '-') {
    throw new UsageError(`--batch - reads the rows from stdin, which leaves no terminal to ask in: confirm the ${what} with --yes (nothing was sent)`)
  }
  if (!(ctx.io.stdinTTY && ctx.io.stderrTTY)) {
    throw new UsageError(`a batch of ${what} needs a confirmation: give --yes when there is no terminal to ask in (nothing was sent)`, {
      hint: 'Check the batch first with --dry-run.',
    })
  }
  const {confirm: ask} = await import('../output/prompt.js')
  const question = `Send ${what}, ${brl(summary.totalCents)} in all, to ${summary.destination}?`
  if (!(await ask(ctx.io, ctx.paint('bold', question)))) throw new UsageError('not confirmed: nothing was sent')
}

/** Sends the rows, `concurrency` at a time, and writes each result in file order as soon as it can. */
async function send<B extends RowBody>(
  spec: BatchCommand<B>,
  rows: Array<PreparedRow<B>>,
  summary: BatchSummaryView,
  options: BatchOptions,
  ctx: CommandContext,
): Promise<unknown> {
  const {describeError} = await import('../cli/errors.js')
  const {scrub} = await import('../api/redact.js')
  const {statusLine} = await import('../output/status-line.js')
  const format: OutputFormat = ctx.globals.json && !options.output ? 'json' : (options.output ?? (ctx.io.stdoutTTY ? 'table' : 'ndjson'))
  const asDocument = ctx.globals.json && !options.output
  const csv: Array<CsvColumn<RowResult>> = [...BASE_CSV, ...(spec.csv ?? [])].map(([header, value]) => [header, value] as const)
  const {RecordWriter} = await import('../output/stream.js')
  const writer = format === 'ndjson' || format === 'csv' ? new RecordWriter<RowResult>(ctx.io.stdout, format, csv) : undefined
  const secrets = await ctx.secrets()
  const status = statusLine(ctx.io)
  const results: Array<RowResult | undefined> = new Array<RowResult | undefined>(rows.length)
  const tally: Tally = {rows: rows.length, done: 0, replayed: 0, failed: 0, notSent: 0}
  let next = 0
  let written = 0
  // A signal: no row starts, and the rows out are abandoned at once (their entries stay pending).
  let interrupted: NodeJS.Signals | undefined
  let cut = 0
  void ctx.interrupted().then((signal) => {
    interrupted = signal
  })

  const base = (row: PreparedRow<B>) => ({
    line: row.line,
    externalCode: row.body.externalCode ?? null,
    idempotencyKey: row.body.idempotencyKey,
    amount: row.body.amount,
  })
  const progress = () => {
    const finished = tally.done + tally.replayed + tally.failed
    const width = 24
    const filled = Math.round((finished / rows.length) * width)
    status.set(`${'█'.repeat(filled)}${'░'.repeat(width - filled)} ${finished}/${rows.length}  done ${tally.done} · replayed ${tally.replayed} · failed ${tally.failed}`)
  }
  // Results go out in file order: whatever is finished from the first one not yet written.
  let flushing = Promise.resolve()
  const flush = () => {
    flushing = flushing.then(async () => {
      const ready: RowResult[] = []
      while (written < rows.length && results[written]) ready.push(results[written++]!)
      if (writer && ready.length > 0) {
        ctx.streaming = true
        await writer.records(ready)
      }
    })
    return flushing
  }

  async function one(row: PreparedRow<B>): Promise<RowResult> {
    try {
      const sent = await spec.send(ctx, row, {guarded: true, allowRepeats: options.allowRepeats, interruptNote: false})
      if (sent.replayed) tally.replayed += 1
      else tally.done += 1
      return {
        ...base(row),
        id: sent.id,
        status: sent.status ?? null,
        replayed: sent.replayed,
        outcome: sent.replayed ? 'replayed' : 'done',
        exitCode: 0,
        error: null,
        ...spec.resultFields?.(row.body),
        ...sent.extra,
      }
    } catch (error) {
      tally.failed += 1
      const described = describeError(error)
      const abandoned = described.exitCode === ExitCode.Interrupted || described.exitCode === ExitCode.Terminated
      if (abandoned) cut += 1
      return {
        ...base(row),
        id: null,
        status: null,
        replayed: false,
        outcome: 'failed',
        exitCode: described.exitCode,
        error: abandoned
          ? `interrupted (${interrupted ?? 'SIGINT'}) while out: it may or may not have reached the gateway, and is pending in the journal`
          : scrub(described.message.split('\n').join('; '), secrets),
        ...spec.resultFields?.(row.body),
      }
    }
  }

  async function worker(): Promise<void> {
    while (!interrupted && next < rows.length) {
      const index = next++
      results[index] = await one(rows[index])
      progress()
      await flush()
    }
  }

  progress()
  await Promise.all(Array.from({length: Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, rows.length)}, worker))
  // Interrupted: the rows never started are said so; running the same file again sends them.
  for (const [index, row] of rows.entries()) {
    if (results[index]) continue
    tally.notSent += 1
    results[index] = {...base(row), id: null, status: null, replayed: false, outcome: 'not-sent', exitCode: interrupted === 'SIGTERM' ? ExitCode.Terminated : ExitCode.Interrupted, error: 'not sent: interrupted', ...spec.resultFields?.(row.body)}
  }
  await flush()
  status.clear()
  const all = results as RowResult[]
  if (writer) await writer.end()
  else if (!asDocument) {
    const {printList} = await import('../output/printer.js')
    await printList(ctx, format, all, {columns: tableColumns(spec), csv})
  }

  ctx.note(tallyLine(spec, tally))
  const failed = all.filter((result) => result.outcome === 'failed')
  const document = {summary, results: all, tally}
  if (interrupted) {
    const out =
      cut === 0
        ? ''
        : ` ${cut} ${cut === 1 ? 'row was' : 'rows were'} out and may or may not have reached the gateway: pending in the journal, \`${ctx.bin} journal retry\` settles ${cut === 1 ? 'it' : 'them'} with the same ${cut === 1 ? 'key' : 'keys'}.`
    ctx.note(`Interrupted (${interrupted}):${out} ${tally.notSent} ${tally.notSent === 1 ? 'row was' : 'rows were'} not sent. Run the same file again, unchanged, to send them: the rows already sent come back as replays.`)
    if (asDocument) ctx.json(document)
    throw new (await import('../cli/errors.js')).InterruptedError(interrupted)
  }
  if (failed.length === 0) return asDocument ? document : undefined
  const error = failedError(spec, failed, tally)
  if (!asDocument) throw error
  const {ReportedError} = await import('../cli/errors.js')
  throw new ReportedError(error, {lines: [], json: document})
}

function tallyLine<B extends RowBody>(spec: BatchCommand<B>, tally: Tally): string {
  const parts = [`${tally.done} done`, `${tally.replayed} replayed`, `${tally.failed} failed`]
  if (tally.notSent > 0) parts.push(`${tally.notSent} not sent`)
  const line = `${tally.rows} ${tally.rows === 1 ? spec.one : spec.many}: ${parts.join(', ')}.`
  return tally.replayed === 0 ? line : `${line} The replayed ones were sent by an earlier run: the gateway answered with their records, and nothing new went out for them.`
}

/** The error a batch with failed rows ends with: the worst exit code, the lines to look at, and what to do. */
function failedError<B extends RowBody>(spec: BatchCommand<B>, failed: RowResult[], tally: Tally): BatchFailedError {
  const exitCode = worstExit(failed.map((result) => result.exitCode)) as ExitCode
  const named = (results: RowResult[]) => {
    const shown = results.slice(0, 20).map((result) => `${result.line}`)
    return `${results.length === 1 ? 'line' : 'lines'} ${shown.join(', ')}${results.length > 20 ? ` and ${results.length - 20} more` : ''}`
  }
  const unknown = failed.filter((result) => [ExitCode.Unavailable, ExitCode.RateLimited, ExitCode.Unexpected].includes(result.exitCode as never))
  const refused = failed.filter((result) => !unknown.includes(result))
  const hints: string[] = []
  if (unknown.length > 0) {
    hints.push(
      `The outcome of ${named(unknown)} is unknown (they are pending in the journal): run the same file again, unchanged. The rows already sent come back as replays, and nothing is sent twice.`,
    )
  }
  if (refused.length > 0) {
    hints.push(
      `${named(refused)} ${refused.length === 1 ? 'was' : 'were'} refused and sent nothing. To send ${refused.length === 1 ? 'it' : 'them'} once corrected, put ${refused.length === 1 ? 'it' : 'them'} in a new file of ${refused.length === 1 ? 'its' : 'their'} own: editing this file gives every row a new derived key, and would send the rows already done again.`,
    )
  }
  const first = failed[0]
  return new BatchFailedError(
    exitCode,
    `${failed.length} of ${tally.rows} ${tally.rows === 1 ? spec.one : spec.many} failed (${named(failed)}; the results say why). First, line ${first.line}: ${first.error}`,
    {hint: hints.join('\n')},
  )
}

function tableColumns<B extends RowBody>(spec: BatchCommand<B>): Column<RowResult>[] {
  const outcome = (result: RowResult) => {
    if (result.outcome === 'failed') return `exit ${result.exitCode}: ${result.error}`
    if (result.outcome === 'not-sent') return 'not sent'
    return result.status ?? ''
  }
  return [
    {header: 'Line', value: (result) => String(result.line), align: 'right'},
    {header: 'External code', value: (result) => result.externalCode ?? '', priority: 3, maxWidth: 24},
    {header: 'Idempotency key', value: (result) => result.idempotencyKey, priority: 4, ascii: true},
    ...(spec.columns ?? []),
    {header: 'Amount', value: (result) => brl(result.amount), align: 'right', priority: 1},
    {header: 'ID', value: (result) => result.id ?? '', whole: true, ascii: true},
    {header: 'Status or error', value: outcome, maxWidth: 70},
    {header: 'Replayed', value: (result) => (result.replayed ? 'yes' : ''), priority: 2},
  ]
}
