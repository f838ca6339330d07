import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'
import type {JournalEntry} from '../../journal/journal.js'

export interface JournalListOptions {
  /** Only the entries whose outcome is unknown. */
  pending?: boolean
  output?: string
}

export const JOURNAL_OUTPUTS = ['table', 'json', 'ndjson'] as const

/** `journal list`: the money-moving requests this config folder sent, oldest first, with what became of them. */
export async function journalList(options: JournalListOptions, ctx: CommandContext): Promise<Record<string, unknown>[] | undefined> {
  const {journalOf} = await import('../../journal/journaled.js')
  const {entryView} = await import('../../journal/view.js')
  const journal = await journalOf(ctx)
  const entries = (await journal.entries()).filter((entry) => !options.pending || entry.state === 'pending')
  const views = entries.map(entryView)
  if (ctx.globals.json && !options.output) return views
  const {outputFormat, printList} = await import('../../output/printer.js')
  const format = outputFormat(ctx, options.output)
  if (format !== 'table') {
    const {RecordWriter} = await import('../../output/stream.js')
    const writer = new RecordWriter<Record<string, unknown>>(ctx.io.stdout, format as 'json' | 'ndjson')
    await writer.records(views)
    await writer.end()
    return undefined
  }
  const {brl} = await import('../../render/money.js')
  const {replayDestination} = await import('../../journal/replay.js')
  const {localTime} = await import('../../output/time.js')
  await printList(ctx, 'table', entries, {
    columns: [
      {header: 'Time', value: (entry: JournalEntry) => localTime(entry.at, ctx.env.TZ)},
      {header: 'State', value: (entry) => stateText(entry, ctx), painted: true},
      {header: 'Command', value: (entry) => entry.command},
      // What a replay would send: read from the recorded body.
      {header: 'Amount', value: (entry) => amountText(entry, brl), align: 'right'},
      {header: 'Idempotency key', value: (entry) => entry.idempotencyKey, whole: true},
      {header: 'Result', value: (entry) => resultText(entry), maxWidth: 60},
      {header: 'Destination', value: (entry) => replayDestination(entry) ?? '', priority: 2},
      {header: 'External code', value: (entry) => entry.externalCode ?? '', priority: 3},
      {header: 'Profile', value: (entry) => entry.profile, priority: 4},
    ],
    csv: [],
    empty: options.pending ? 'Nothing is pending: every request in the journal has an outcome.' : `The journal is empty (${journal.path}).`,
  })
  const pending = entries.filter((entry) => entry.state === 'pending').length
  if (pending > 0) {
    const [it, its] = pending === 1 ? ['it', 'its original idempotency key'] : ['them', 'their original idempotency keys']
    ctx.note(`${pending} pending: nobody knows yet whether ${pending === 1 ? 'it' : 'they'} moved money. \`${ctx.bin} journal retry\` settles ${it} under ${its}.`)
  }
  return undefined
}

/** The amount of the body a replay sends; a body without a whole amount says so. */
export function amountText(entry: JournalEntry, brl: (cents: number) => string): string {
  const amount = entry.request?.body?.amount
  return typeof amount === 'number' && Number.isSafeInteger(amount) ? brl(amount) : 'no valid amount'
}

function stateText(entry: JournalEntry, ctx: CommandContext): string {
  if (entry.state === 'done') return ctx.paint('green', 'done')
  if (entry.state === 'failed') return ctx.paint('red', 'failed')
  if (entry.state === 'not-sent') return 'not sent'
  return ctx.paint('yellow', 'pending')
}

function resultText(entry: JournalEntry): string {
  const {outcome} = entry
  if (!outcome) return 'no answer recorded'
  if (outcome.by === 'journal resolve') return `resolved by hand${outcome.id ? `: ${outcome.id}` : ''}${outcome.note ? ` (${outcome.note})` : ''}`
  if (outcome.error) return `${outcome.error.status ?? outcome.error.code}: ${outcome.error.message}`
  return `${outcome.id ?? '-'} ${outcome.status ?? ''}${outcome.replayed ? ' (created earlier)' : ''}`.trim()
}

export default class JournalList extends BaseCommand<typeof JournalList> {
  static override summary = 'List the money-moving requests sent from this config folder, and what became of them.'

  static override description = `Every tx create (and withdraw) is written to the journal (journal.jsonl in the config folder) before it is sent, and its outcome after the answer. An entry is done (the gateway answered with a record), failed (the gateway refused it: no money moved), not sent (it provably never left this machine: the connection was refused or the host not found) or pending (no answer: the process died, or the network failed after sending, so nobody knows whether money moved). \`journal retry\` settles pending entries; \`journal resolve\` closes one by hand.

--pending shows only the pending ones. PIX keys are shown masked.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {description: 'Only what is unsettled, for a script', command: '<%= config.bin %> <%= command.id %> --pending --json'},
  ]

  static override flags = {
    pending: Flags.boolean({description: 'Only the entries whose outcome is unknown.'}),
    output: Flags.string({description: 'Format: table (default), json (one array) or ndjson.', options: [...JOURNAL_OUTPUTS]}),
  }

  async run(): Promise<Record<string, unknown>[] | undefined> {
    const result = await journalList({pending: this.flags.pending, output: this.flags.output}, this.ctx)
    return this.ctx.globals.json && !this.flags.output ? result : undefined
  }
}
