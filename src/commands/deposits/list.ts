import type {DepositPage} from '../../api/types.js'
import {BaseCommand} from '../../base-command.js'
import {runDepositsList} from '../../deposits/list.js'
import {depositsListFlags} from '../../deposits/list-flags.js'

export {depositsList, type DepositsListOptions} from '../../deposits/list.js'

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

  static override flags = depositsListFlags

  async run(): Promise<DepositPage | undefined> {
    return runDepositsList(this.flags, this.ctx)
  }
}
