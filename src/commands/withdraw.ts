import {Flags} from '@oclif/core'

import type {WithdrawResponse} from '../api/types.js'
import {BaseCommand, fieldsFlag, jsonFlag} from '../base-command.js'
import type {CommandContext} from '../cli/context.js'
import {UsageError} from '../cli/errors.js'
import {batchFlags, batchHelp} from '../batch/flags.js'
import {WITHDRAW_MAX_TOTAL} from '../batch/limits.js'
import {flagsOf} from '../input/flag-definitions.js'
import {refuse} from '../input/fields.js'
import {WITHDRAW_FIELDS} from '../input/withdraw.js'
import {WITHDRAW_RECORD_FIELDS} from '../output/fields.js'
import {OUTPUT_FORMATS, type OutputFormat} from '../output/printer.js'
import type {WithdrawBody} from '../schemas/withdraw.js'
import {unsettled} from '../send/unsettled.js'

export const WITHDRAW_OUTPUTS = ['table', 'json'] as const

export interface WithdrawOptions {
  /** The flags of WITHDRAW_FIELDS, as parsed. */
  fields: Record<string, unknown>
  /** --body: a file, or - for stdin. */
  body?: string
  yes?: boolean
  dryRun?: boolean
  output?: (typeof WITHDRAW_OUTPUTS)[number]
  /** Send even when the journal shows the same withdrawal (by external code) sent under another key. */
  allowRepeats?: boolean
}

export type WithdrawResult = WithdrawResponse & {idempotencyKey: string; replayed: boolean}

export interface DryRunResult {
  dryRun: true
  request: {method: 'POST'; url: string; body: WithdrawBody}
  /** Only when the operator gave one: a key made for a dry run would not be the real run's. */
  idempotencyKey?: string
}

/**
 * `withdraw`: checks every field offline, puts the PIX key in its registered form (inferring its
 * type when none is given), asks for confirmation (a prompt in a terminal, --yes elsewhere), and
 * sends the withdrawal with an idempotency key, made when none is given, so that no retry ever
 * pays twice.
 */
export async function withdraw(options: WithdrawOptions, ctx: CommandContext): Promise<WithdrawResult | DryRunResult | undefined> {
  const {readJsonBody} = await import('../input/body.js')
  const base = options.body === undefined ? {} : await readJsonBody(options.body, ctx.io)
  const {prepareWithdraw} = await import('../input/withdraw.js')
  // node:crypto loads only when a key is made.
  const prepared = await prepareWithdraw(options.fields, base, async () => (await import('node:crypto')).randomUUID())
  if (!prepared.value) refuse(WITHDRAW_FIELDS, prepared.issues, prepared)
  const body = prepared.value
  const asJson = options.output === 'json' || (options.output === undefined && ctx.globals.json)
  if (prepared.inferredType) ctx.note(`PIX key type: ${prepared.inferredType}, inferred from the key (--pix-key-type sets it).`)

  const session = await ctx.session()
  const {withdrawalSend, withdrawPath} = await import('../send/requests.js')
  const path = await withdrawPath(ctx)
  const {maskKey} = await import('../input/pix-key.js')

  if (options.dryRun) {
    // A key made here would not be the real run's (each run makes its own): only a key the operator gave is shown.
    const {idempotencyKey, ...rest} = body
    const shown = prepared.generatedKey ? rest : {...rest, idempotencyKey}
    const redacted = {...shown, pixKey: maskKey(body.pixKey)}
    const result: DryRunResult = {
      dryRun: true,
      request: {method: 'POST', url: session.client.url(path).href, body: redacted},
      ...(prepared.generatedKey ? {} : {idempotencyKey}),
    }
    ctx.note('Dry run: nothing was sent. This is the request a run without --dry-run would send (the PIX key masked):')
    if (prepared.generatedKey) ctx.note('The real run makes its own idempotency key (or pass --idempotency-key to choose one).')
    if (asJson) return emit(result, options, ctx)
    ctx.out(`POST ${result.request.url}`)
    ctx.out(JSON.stringify(redacted, null, 2))
    return undefined
  }

  const {sendMoney} = await import('../send/money.js')
  const {withSpinner} = await import('../output/spinner.js')
  const sending = sendMoney(ctx, withdrawalSend(body, path, 'withdraw'), {
    allowRepeats: options.allowRepeats,
    // Asked, and the key shown, only once every check has passed: a refusal shows no key.
    beforeSend: async () => {
      await confirm(body, options, ctx)
      if (prepared.generatedKey && !asJson) {
        ctx.note(`Idempotency key: ${body.idempotencyKey} (to retry this exact withdrawal safely, pass --idempotency-key ${body.idempotencyKey})`)
      }
    },
    around: (work) => withSpinner(ctx.io, 'Sending the withdrawal', work),
  })
  const {record: created, replayed} = await sending.catch(async (error: unknown) => {
    throw await unsettled(error, body.idempotencyKey, ctx, (key, bin) =>
      `The withdrawal may or may not have been made: it is pending in the journal. Settle it with \`${bin} journal retry\` ` +
      `(or send it again with --idempotency-key ${key} and the same fields: the gateway answers the payout it made, and pays nothing twice); ` +
      `once you have checked it with the gateway, \`${bin} journal resolve ${key} --as done|failed\` closes it.`,
    )
  })
  const result: WithdrawResult = {...created, idempotencyKey: body.idempotencyKey, replayed}
  if (replayed) {
    ctx.note(`This withdrawal was created earlier with the idempotency key ${body.idempotencyKey}: the gateway answered it again, and nothing new was sent out.`)
    ctx.note(`Its current status cannot be looked up (the gateway has no withdrawal lookup): ${created.status} is the status the gateway answered; its notifications say where it went since.`)
  }
  if (asJson) return emit(result, options, ctx)
  const {withdrawalLines} = await import('../render/withdrawal.js')
  for (const line of withdrawalLines(created, {pixKey: maskKey(body.pixKey), pixKeyType: body.pixKeyType}, ctx.paint, {replayed})) ctx.out(line)
  return undefined
}

/** JSON on stdout: returned for --json's single document, written here for --output json. */
function emit<T>(result: T, options: WithdrawOptions, ctx: CommandContext): T | undefined {
  if (ctx.globals.json) return result
  ctx.json(result)
  return undefined
}

/**
 * Money leaves only when the operator said so: --yes, or "y" at a prompt in a terminal (the default
 * is no). Without a terminal and without --yes, nothing is sent.
 */
async function confirm(body: WithdrawBody, options: WithdrawOptions, ctx: CommandContext): Promise<void> {
  if (options.yes) return
  if (options.body === '-') {
    throw new UsageError('--body - reads the request from stdin, which leaves no terminal to ask in: confirm the withdrawal with --yes (nothing was sent)')
  }
  if (!(ctx.io.stdinTTY && ctx.io.stderrTTY)) {
    throw new UsageError('a withdrawal sends money: confirm it with --yes when there is no terminal to ask in (nothing was sent)', {
      hint: 'Check the request first with --dry-run.',
    })
  }
  const {confirmQuestion} = await import('../render/withdrawal.js')
  const {confirm: ask} = await import('../output/prompt.js')
  if (!(await ask(ctx.io, confirmQuestion(body, ctx.paint)))) throw new UsageError('not confirmed: nothing was sent')
}

export default class Withdraw extends BaseCommand<typeof Withdraw> {
  static override summary = 'Send money out by PIX to a PIX key, after a confirmation.'

  static override description = `Sends a PIX withdrawal (POST {base}/core/withdraw; another path per profile with \`login --withdraw-path\`, or with GATEWAY_WITHDRAW_PATH). Every field is checked offline first: a violation exits 2, names the flag and the rule, and sends nothing.

The PIX key is checked against its type and sent in the form the DICT registers: CPF and CNPJ without punctuation (CNPJ letters upper case, so a lower-case alphanumeric CNPJ is accepted), e-mail in lower case, a mobile phone as +55 + DDD + number, a random key (EVP) as a lower-case UUID. Without --pix-key-type the type is inferred from the key, and said on stderr; an 11-digit number that is a valid CPF is read as a CPF (give a phone as +55...).

Before anything is sent, the amount in BRL, the key and its type are shown for confirmation: in a terminal a prompt that defaults to no; without one, --yes is required, else exit 2 and nothing is sent. --dry-run prints the request that would be sent, the key masked, and sends nothing; it shows an idempotency key only when --idempotency-key gives one, since each real run makes its own.

An idempotency key is always sent; one is made when none is given and shown on stderr (idempotencyKey in --json), so a run that failed half-way can be retried with --idempotency-key without paying twice. When the gateway answers with an earlier withdrawal of the same key (Idempotent-Replayed: true), the CLI says so.

${batchHelp({
  command: 'withdraw',
  one: 'withdrawal',
  many: 'withdrawals',
  fields: 'amount, pix-key, pix-key-type, webhook-url, external-code, idempotency-key',
  defaultMaxTotal: WITHDRAW_MAX_TOTAL,
  brl: 'R$ 100.000,00',
  extra: 'The key type is inferred from each key when the row gives none.',
})}

A CSV batch:
  amount,pix-key,external-code
  15000,529.982.247-25,payout-2026-11-0001
  990,maria@example.com,payout-2026-11-0002`

  /** Written out: oclif's own would nest the single withdrawal's flags under --concurrency. */
  static override usage = [
    '<%= command.id %> (--amount <cents> --pix-key <key> | --body <file>) [--pix-key-type <type>] [--webhook-url <url>] [--external-code <value>] [--idempotency-key <value>] [-y] [--dry-run] [--output table|json] [--fields <list>] [--allow-repeats] [GLOBAL FLAGS]',
    '<%= command.id %> --batch <file> [--sheet <name>] [--concurrency <value>] [--max-rows <rows>] [--max-total <cents>] [-y] [--dry-run] [--output table|json|ndjson|csv] [--allow-repeats] [GLOBAL FLAGS]',
  ]

  static override examples = [
    {description: 'Withdraw R$ 150,00 to a CPF key, confirming at the prompt', command: '<%= config.bin %> <%= command.id %> --amount 15000 --pix-key 529.982.247-25'},
    {
      description: 'From a script: no prompt, a key of your own for safe retries',
      command: '<%= config.bin %> <%= command.id %> --amount 990 --pix-key maria@example.com --idempotency-key payout-4711 --yes --json',
    },
    {description: 'See the request without sending it', command: '<%= config.bin %> <%= command.id %> --amount 5000 --pix-key +5511987654321 --dry-run'},
    {description: 'From a JSON body on stdin', command: "echo '{\"amount\":1000,\"pixKey\":\"12ABC34501DE35\"}' | <%= config.bin %> <%= command.id %> --body - --yes"},
    {description: 'A payout batch: check it, then send it (each row once, however often it is run)', command: '<%= config.bin %> <%= command.id %> --batch payouts.csv --dry-run'},
    {description: 'The same batch from a script, results as CSV', command: '<%= config.bin %> <%= command.id %> --batch payouts.csv --yes --output csv > results.csv'},
  ]

  static override flags = {
    json: jsonFlag(
      'the withdraw response (id, externalCode, amount, status) plus idempotencyKey and replayed; with --dry-run, the request that would be sent; with --batch, {summary, results, tally}',
    ),
    fields: fieldsFlag('the withdrawal', WITHDRAW_RECORD_FIELDS),
    ...flagsOf(WITHDRAW_FIELDS),
    body: Flags.string({description: 'A JSON request body from a file, or - for stdin; flags override its fields.', helpValue: '<file>'}),
    yes: Flags.boolean({char: 'y', description: 'Send without asking; required when there is no terminal.'}),
    'dry-run': Flags.boolean({description: 'Print the request that would be sent, the key masked, and send nothing; with --batch, stop after the summary.'}),
    output: Flags.string({
      description: 'table: lines for a person (default); json: the response plus idempotencyKey. With --batch: table (default in a terminal), ndjson (default otherwise), csv or json.',
      options: [...OUTPUT_FORMATS],
    }),
    ...batchFlags(WITHDRAW_FIELDS, {one: 'withdrawal', defaultMaxTotal: WITHDRAW_MAX_TOTAL, brl: 'R$ 100.000,00', single: ['body']}),
  }

  async run(): Promise<unknown> {
    const {body, yes, 'dry-run': dryRun, output, batch, concurrency, sheet, 'max-rows': maxRows, 'max-total': maxTotal, 'allow-repeats': allowRepeats, fields: picked, ...fields} = this.flags
    if (picked !== undefined) {
      const other = batch === undefined ? (dryRun ? '--dry-run' : output !== undefined && output !== 'json' ? `--output ${output}` : undefined) : '--batch'
      if (other) throw new UsageError(`--fields picks from the withdrawal's record, and does not go with ${other}`)
    }
    if (batch !== undefined) {
      const {runBatch} = await import('../batch/run.js')
      const {withdrawBatch} = await import('../batch/commands.js')
      return runBatch(
        withdrawBatch(),
        {file: batch, yes, dryRun, output: output as OutputFormat | undefined, concurrency, maxRows, maxTotal, allowRepeats, sheet},
        this.ctx,
      )
    }
    if (output !== undefined && !(WITHDRAW_OUTPUTS as readonly string[]).includes(output)) {
      throw new UsageError(`--output ${output} goes with --batch; a single withdrawal prints table or json`)
    }
    return withdraw({fields, body, yes, dryRun, output: output as WithdrawOptions['output'], allowRepeats}, this.ctx)
  }
}
