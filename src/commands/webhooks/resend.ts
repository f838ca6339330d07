import {PermissionError} from '../../api/errors.js'
import {BaseCommand, jsonFlag} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'
import {UsageError} from '../../cli/errors.js'
import {flagsOf} from '../../input/flag-definitions.js'
import {nameIssue} from '../../input/fields.js'
import {resendFields} from '../../input/resend.js'
import type {ResendBody} from '../../schemas/resend.js'

/** The scope the resend endpoint demands. */
export const RESEND_SCOPE = 'resend_dispatcher'

export interface WebhooksResendOptions {
  /** The flags of resendFields, as parsed. */
  fields: Record<string, unknown>
}

export interface ResendResult {
  accepted: true
  /** How many notifications matched: never known, since the gateway's 201 has no body. */
  matched: null
  request: ResendBody
}

const SCOPE_HINT = `Log in with a client that has the ${RESEND_SCOPE} scope: gateway login --base-url <url> --client-id <client> (in the sandbox, the client "sandbox" has it; "sandbox-limited" does not).`

/**
 * `webhooks resend`: asks the gateway to send stored notifications again, selected by a date range
 * or a reference id and narrowed by status and tags. Everything is checked offline first, the
 * token's scopes included; a 201 means the request was accepted, not that anything was delivered.
 */
export async function webhooksResend(options: WebhooksResendOptions, ctx: CommandContext): Promise<ResendResult> {
  const dates = {now: ctx.now(), zone: ctx.env.TZ}
  const {prepareResend} = await import('../../input/resend.js')
  const prepared = await prepareResend(options.fields, dates)
  if (!prepared.value) {
    const table = resendFields(dates)
    const problems = prepared.issues.map((issue) => (issue.path === '' ? issue.message : nameIssue(table, issue, prepared)))
    throw new UsageError(problems.join('\n'), {messages: problems})
  }
  const body = prepared.value
  for (const note of prepared.notes) ctx.note(note)

  const session = await ctx.session()
  const token = await session.client.accessToken()
  // A token whose scopes are listed and lack the resend's is refused here, before anything is sent;
  // a gateway that lists no scopes is left to answer for itself.
  if (token.scopes.length > 0 && !token.scopes.includes(RESEND_SCOPE)) {
    throw new PermissionError(
      `the token of profile "${session.profile}" (client ${token.clientId}) lacks the ${RESEND_SCOPE} scope that the resend needs; nothing was sent. Its scopes: ${token.scopes.join(', ')}`,
      {hint: SCOPE_HINT},
    )
  }
  const api = await ctx.api()
  try {
    await api.resend(body)
  } catch (error) {
    if (error instanceof PermissionError && error.status === 403) {
      throw new PermissionError(`the gateway refused the resend (403): the token needs the ${RESEND_SCOPE} scope`, {
        status: 403,
        body: error.body,
        messages: error.messages,
        hint: SCOPE_HINT,
      })
    }
    throw error
  }
  const result: ResendResult = {accepted: true, matched: null, request: body}
  if (ctx.globals.json) return result
  const selection = body.referenceId ? `with reference id ${body.referenceId}` : `created from ${body.startDate} to ${body.endDate}`
  const narrowed = [body.status ? `status ${body.status.join(' or ')}` : '', body.tags ? `tag ${body.tags.join(' or ')}` : ''].filter(Boolean).join(', ')
  ctx.out(`${ctx.paint('green', '✓')} Resend ${ctx.paint('bold', 'ACCEPTED')}: notifications ${selection}${narrowed ? `, ${narrowed}` : ''}`)
  if (body.overrideURL) ctx.out(`  To: ${body.overrideURL} (instead of each notification's own URL)`)
  ctx.note(`Accepted is not delivered, and the gateway does not say how many notifications matched (its 201 has no body): none may match. It sends them on its own time. Watch them arrive with \`${ctx.bin} webhooks listen\`.`)
  return result
}

export default class WebhooksResend extends BaseCommand<typeof WebhooksResend> {
  static override summary = 'Have the gateway send stored notifications again, by date range or reference id.'

  static override description = `Asks the gateway to deliver stored webhook notifications again (POST /dispatcher/request/resend). Choose the notifications with exactly one of:
  --reference-id ID         one notification, or every notification of one transaction or withdrawal;
  --from [--to]             those created in a date range (--to defaults to now).
Narrow them with --status (RECEIVED, SENT, FAILED, ERROR; repeatable, any case) and --tag (repeatable, at most 10; a notification matches with any of them). --override-url sends this resend to another HTTPS URL.

--from and --to take an ISO date-time, a date (that day's start or end in your time zone, TZ), or a time before now (30m, 24h, 7d). Everything is checked before anything is sent: both selections or neither, a date in the future, or --from after --to exit 2.

The endpoint needs the ${RESEND_SCOPE} scope: when the cached token lacks it, the command exits 3 before sending and says how to get it. The gateway answers 201 when it accepts the request, with no body: acceptance, not delivery, and it does not say how many notifications matched (none may have).`

  static override examples = [
    {description: 'Every FAILED notification of the last 10 minutes', command: '<%= config.bin %> <%= command.id %> --status FAILED --from 10m'},
    {description: 'All notifications of one transaction', command: '<%= config.bin %> <%= command.id %> --reference-id 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11'},
    {
      description: 'Yesterday\'s failed and unreachable withdrawal notifications, to a new URL',
      command: '<%= config.bin %> <%= command.id %> --from 2026-11-20 --to 2026-11-20 --status FAILED --status ERROR --tag withdrawal --override-url https://hooks.example.com/pix',
    },
  ]

  static override flags = {
    json: jsonFlag('{accepted: true, matched: null, request}: the body that was sent; matched is null because the gateway does not say how many notifications matched'),
    ...flagsOf(resendFields({now: 0})),
  }

  async run(): Promise<ResendResult | undefined> {
    const result = await webhooksResend({fields: this.flags}, this.ctx)
    return this.ctx.globals.json ? result : undefined
  }
}
