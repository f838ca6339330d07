import {Flags} from '@oclif/core'

import {RejectedError, UsageError} from '../../api/errors.js'
import type {DepositListQuery, GatewayApi} from '../../api/gateway.js'
import type {DepositPage} from '../../api/types.js'
import {BaseCommand} from '../../base-command.js'
import {buildDepositQuery, DEPOSIT_FLAG_OF, pageCommand} from '../../input/deposits.js'
import {DEPOSIT_ORIGINS, DEPOSIT_STATUSES} from '../../schemas/enums.js'

export default class DepositsList extends BaseCommand<typeof DepositsList> {
  static override summary = 'List deposits by status, origin, date and amount; page through them or export them all.'

  static override description = `Lists deposits (GET /core/deposit), newest first, one page at a time as a table that fits the terminal. The first page makes a snapshot: later pages of that snapshot see exactly the same set, even while new deposits arrive. The footer gives the snapshot and the exact command for the next page. In a terminal, n and p move between pages and q quits (--no-interactive turns this off).

--all walks every page of one snapshot and streams each record as it arrives, as NDJSON (default), CSV or one JSON array (--output). Memory stays flat however many pages there are; progress goes to stderr in a terminal only.

--from and --to take an ISO date-time (2026-11-20T00:00:00-03:00) or a time before now (30m, 24h, 7d, 2w). Amounts are integer cents. With --snapshot, give the filters and --per-page of the first page: the snapshot is bound to them.`

  static override examples = [
    {description: 'Paid deposits, newest first', command: '<%= config.bin %> <%= command.id %> --status PAID'},
    {description: 'Deposits by PIX key of the last 24 hours, over R$ 100,00', command: '<%= config.bin %> <%= command.id %> --origin PIX_KEY --from 24h --min-amount 10000'},
    {description: 'Export every refunded deposit of the last week to CSV', command: '<%= config.bin %> <%= command.id %> --status REFUNDED --from 7d --all --output csv > refunds.csv'},
    {description: 'The next page of a snapshot', command: '<%= config.bin %> <%= command.id %> --status PAID --per-page 20 --snapshot 8c1f... --page 2'},
  ]

  static override flags = {
    status: Flags.string({description: 'Deposit status. Repeatable.', options: [...DEPOSIT_STATUSES], multiple: true}),
    origin: Flags.string({description: 'Deposit origin. Repeatable.', options: [...DEPOSIT_ORIGINS], multiple: true}),
    from: Flags.string({description: 'Created at or after: ISO date-time, or 30m/24h/7d/2w ago.'}),
    to: Flags.string({description: 'Created at or before: ISO date-time, or 30m/24h/7d/2w ago.'}),
    'min-amount': Flags.string({description: 'Smallest amount, integer cents.', helpValue: '<cents>'}),
    'max-amount': Flags.string({description: 'Largest amount, integer cents.', helpValue: '<cents>'}),
    page: Flags.integer({description: 'Page to show (default 1).', min: 1}),
    'per-page': Flags.integer({description: 'Deposits per page (default 20; the gateway allows up to 100).', min: 1}),
    snapshot: Flags.string({description: 'Snapshot of an earlier first page, to page through the same set.'}),
    all: Flags.boolean({description: 'Walk every page of one snapshot and stream every record.', exclusive: ['page']}),
    output: Flags.string({description: 'Format of --all: ndjson, csv, or json (one array).', options: ['ndjson', 'csv', 'json'], dependsOn: ['all']}),
    interactive: Flags.boolean({description: 'Page with n/p/q in a terminal.', default: true, allowNo: true}),
  }

  private streaming = false

  /** Once --all has started streaming, an error can no longer join the document: it goes to stderr. */
  public override jsonEnabled(): boolean {
    return super.jsonEnabled() && !this.streaming
  }

  async run(): Promise<DepositPage | undefined> {
    const {flags} = this
    const query = buildDepositQuery(flags)
    const {checkDepositQuery} = await import('../../schemas/deposit.js')
    const checked = checkDepositQuery(query, {side: 'client'})
    if (!checked.ok) {
      const problems = checked.issues.map((issue) => `${DEPOSIT_FLAG_OF[issue.path.split('.')[0]] ?? issue.path} ${issue.message}`)
      throw new UsageError(problems.join('\n'), {messages: problems})
    }
    const session = await this.openSession()
    const {GatewayApi} = await import('../../api/gateway.js')
    const api = new GatewayApi(session.client)

    if (flags.all) {
      await this.exportAll(api, query, (flags.output ?? (super.jsonEnabled() ? 'json' : 'ndjson')) as 'ndjson' | 'csv' | 'json')
      return undefined
    }
    const page = await this.fetchPage(api, query)
    if (this.jsonEnabled()) return page
    if (flags.interactive && this.term.prompt && page.totalPages > 1) {
      await this.browse(api, query, page)
      return undefined
    }
    process.stdout.write(await this.pageText(page))
    this.note(this.footer(query, page))
    return undefined
  }

  /** One page; a 422 on a page of a snapshot is explained as the snapshot's. */
  private async fetchPage(api: GatewayApi, query: DepositListQuery): Promise<DepositPage> {
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

  private async pageText(page: DepositPage): Promise<string> {
    if (page.data.length === 0) return 'No deposits match.\n'
    const {renderTable} = await import('../../render/table.js')
    const {depositColumns} = await import('../../render/deposits.js')
    return `${await renderTable(page.data, depositColumns(), this.term)}\n`
  }

  private footer(query: DepositListQuery, page: DepositPage): string {
    const parts = [`Page ${page.currentPage} of ${page.totalPages}`]
    if (page.snapshot) parts.push(`snapshot ${page.snapshot}`)
    let text = parts.join(' · ')
    if (page.currentPage < page.totalPages) {
      const next = pageCommand(onSnapshotOf(query, page), page.currentPage + 1, {
        bin: this.config.bin,
        profile: this.flags.profile,
        baseUrl: this.flags['base-url'],
      })
      text += `\nNext page: ${next}`
    }
    return text
  }

  /** The interactive pager: n next, p previous, q quit. Pages reuse the first page's snapshot and filters. */
  private async browse(api: GatewayApi, query: DepositListQuery, first: DepositPage): Promise<void> {
    const {readKeys} = await import('../../render/keys.js')
    const pinned = onSnapshotOf(query, first)
    let page = first
    const draw = async (notice = '') => {
      process.stdout.write('\u001B[2J\u001B[H')
      process.stdout.write(await this.pageText(page))
      const help = this.paint('dim', '[n] next  [p] previous  [q] quit')
      process.stdout.write(`Page ${page.currentPage} of ${page.totalPages}${page.snapshot ? ` · snapshot ${page.snapshot}` : ''}  ${help}${notice ? `  ${notice}` : ''}\n`)
    }
    await draw()
    for await (const key of readKeys()) {
      if (key === 'q' || key === '\u0003' || key === '\u001B') break
      const next = key === 'n' || key === ' ' || key === '\u001B[C'
      const previous = key === 'p' || key === '\u001B[D'
      const target = next ? page.currentPage + 1 : previous ? page.currentPage - 1 : undefined
      if (target === undefined) continue
      if (target < 1 || target > page.totalPages) {
        await draw(target < 1 ? '(first page)' : '(last page)')
        continue
      }
      page = await this.fetchPage(api, {...pinned, page: target})
      await draw()
    }
  }

  /** --all: every page of one snapshot, each record written as it arrives. */
  private async exportAll(api: GatewayApi, query: DepositListQuery, format: 'ndjson' | 'csv' | 'json'): Promise<void> {
    const {RecordWriter} = await import('../../render/deposits.js')
    const writer = new RecordWriter(process.stdout, format)
    const progress = this.term.spinner && process.stderr.isTTY
    let page = await this.fetchPage(api, {...query, page: 1})
    const pinned = onSnapshotOf(query, page)
    this.streaming = true
    await writer.begin()
    for (;;) {
      await writer.records(page.data)
      if (progress) process.stderr.write(`\rExported page ${page.currentPage} of ${page.totalPages} (${writer.written} deposits)`)
      if (page.currentPage >= page.totalPages || page.data.length === 0) break
      page = await this.fetchPage(api, {...pinned, page: page.currentPage + 1})
    }
    await writer.end()
    if (progress) process.stderr.write('\n')
  }
}

/** The query for the other pages of a page's snapshot: the same filters and perPage, with its snapshot. */
function onSnapshotOf(query: DepositListQuery, page: DepositPage): DepositListQuery {
  return {...query, snapshot: page.snapshot ?? query.snapshot}
}
