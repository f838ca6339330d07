import type {CommandContext} from '../cli/context.js'
import {UsageError} from '../cli/errors.js'
import type {CsvColumn} from './csv.js'
import {fitNote, renderTable, type Column} from './table.js'

/** How a command prints what it found: a table (or lines) for people, or data for programs. */
export type OutputFormat = 'table' | 'json' | 'ndjson' | 'csv' | 'xlsx'
/** The formats of every list; the lists of deposits add WORKBOOK (see LIST_FORMATS). */
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson', 'csv']
/** A workbook (.xlsx): to a file or a pipe, never to a terminal. */
export const WORKBOOK = 'xlsx'
export const LIST_FORMATS: readonly OutputFormat[] = [...OUTPUT_FORMATS, WORKBOOK]

/** A workbook is bytes for a file: refused to a terminal (exit 2), where it would be noise. */
export function refuseWorkbookToTerminal(ctx: CommandContext, format: OutputFormat): void {
  if (format === WORKBOOK && ctx.io.stdoutTTY) throw new UsageError('--output xlsx writes a workbook, not text for a terminal: give --output-file FILE.xlsx, or redirect stdout to a file or a pipe')
}

/** The format asked for: --output, else json under --json, else the command's default. */
export function outputFormat(ctx: CommandContext, output: string | undefined, fallback: OutputFormat = 'table'): OutputFormat {
  if (output) return output as OutputFormat
  return ctx.globals.json ? 'json' : fallback
}

export interface ListSpec<T> {
  columns: Column<T>[]
  csv: readonly CsvColumn<T>[]
  /** How the rows become a workbook, for --output xlsx. */
  workbook?: import('./stream.js').WorkbookSpec
  /** Said on stderr when there is nothing to show in a table. */
  empty?: string
}

/**
 * Prints records in the format asked for: a table that fits the terminal (saying on stderr which
 * columns it left out), NDJSON, CSV, or one JSON array.
 */
export async function printList<T>(ctx: CommandContext, format: OutputFormat, rows: readonly T[], spec: ListSpec<T>): Promise<void> {
  if (format === 'table') {
    if (rows.length === 0) {
      ctx.note(spec.empty ?? 'Nothing to show.')
      return
    }
    const table = await renderTable([...rows], spec.columns, ctx.io)
    ctx.out(table.text)
    const note = fitNote(table, ctx.io.columns)
    if (note) ctx.note(note)
    return
  }
  refuseWorkbookToTerminal(ctx, format)
  const {recordSink} = await import('./stream.js')
  const writer = await recordSink(ctx.io.stdout, format, spec.csv, spec.workbook)
  await writer.records(rows)
  await writer.end()
}
