import type {CommandContext} from '../cli/context.js'
import type {CsvColumn} from './csv.js'
import {fitNote, renderTable, type Column} from './table.js'

/** How a command prints what it found: a table (or lines) for people, or data for programs. */
export type OutputFormat = 'table' | 'json' | 'ndjson' | 'csv'
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson', 'csv']

/** The format asked for: --output, else json under --json, else the command's default. */
export function outputFormat(ctx: CommandContext, output: string | undefined, fallback: OutputFormat = 'table'): OutputFormat {
  if (output) return output as OutputFormat
  return ctx.globals.json ? 'json' : fallback
}

export interface ListSpec<T> {
  columns: Column<T>[]
  csv: readonly CsvColumn<T>[]
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
  const {RecordWriter} = await import('./stream.js')
  const writer = new RecordWriter(ctx.io.stdout, format, spec.csv)
  await writer.records(rows)
  await writer.end()
}
