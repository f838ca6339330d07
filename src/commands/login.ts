import {Flags} from '@oclif/core'

import {checkBaseUrl, checkEndpointPath, DEFAULT_BASE_URL} from '../api/base-url.js'
import {BaseCommand, jsonFlag} from '../base-command.js'
import type {CommandContext} from '../cli/context.js'
import {UsageError} from '../cli/errors.js'
import {printable} from '../output/printable.js'
import {loginLines, loginView, type LoginView} from '../render/auth.js'

export interface LoginOptions {
  clientId?: string
  secretFromStdin?: boolean
  /** Where this gateway serves withdrawals, when not at /core/withdraw. */
  withdrawPath?: string
}

/** `login`: exchanges the client credentials for a token and stores all three in the profile. */
export async function login(options: LoginOptions, ctx: CommandContext): Promise<LoginView> {
  const {profile} = ctx.globals
  const store = await ctx.store()
  const previous = await store.profile(profile)
  const baseUrl = checkBaseUrl(ctx.globals.baseUrl ?? previous?.baseUrl ?? DEFAULT_BASE_URL)
  const withdrawPath = options.withdrawPath === undefined ? undefined : checkEndpointPath(options.withdrawPath, '--withdraw-path')
  const {prompt} = await import('../output/prompt.js')

  let clientId = options.clientId ?? previous?.clientId
  if (!clientId && ctx.io.prompt) clientId = await prompt(ctx.io, 'Client ID: ')
  if (!clientId?.trim()) throw new UsageError('--client-id is required (or set GATEWAY_CLIENT_ID)')
  if (/[\u0000-\u001f\u007f]/.test(clientId)) throw new UsageError('--client-id must not hold control characters or line breaks')

  const clientSecret = await readSecret(options, ctx)
  ctx.handled(clientSecret)

  const {GatewayClient} = await import('../api/client.js')
  const client = new GatewayClient({baseUrl, timeoutMs: ctx.globals.timeoutMs, trace: ctx.trace})
  try {
    const {withSpinner} = await import('../output/spinner.js')
    const token = await withSpinner(ctx.io, `Logging in to ${baseUrl}`, () => client.fetchToken({clientId: clientId!, clientSecret}))
    // What cannot be shown is not saved: the view is made first, and any failure leaves the profile as it was.
    const view = loginView(profile, token)
    const lines = loginLines(view, ctx.paint)
    await store.saveLogin(profile, {baseUrl, clientId, ...(withdrawPath === undefined ? {} : {withdrawPath})}, clientSecret, token)
    // A token without a usable lifetime served this login only: the next command asks for its own.
    if (token.commandOnly) await store.locked(() => store.setToken(profile, undefined))
    if (!ctx.globals.json) {
      ctx.out(`${ctx.paint('green', '✓')} Logged in to ${printable(baseUrl)} as ${printable(clientId)}`)
      for (const line of lines) ctx.out(line)
    }
    return view
  } finally {
    await client.close()
  }
}

async function readSecret(options: LoginOptions, ctx: CommandContext): Promise<string> {
  if (options.secretFromStdin) {
    const {readStdin} = await import('../output/prompt.js')
    const secret = await readStdin(ctx.io)
    if (!secret) throw new UsageError('--client-secret-stdin: stdin held no secret')
    return secret
  }
  if (ctx.env.GATEWAY_CLIENT_SECRET) return ctx.env.GATEWAY_CLIENT_SECRET
  if (ctx.io.prompt) {
    const {prompt} = await import('../output/prompt.js')
    const secret = await prompt(ctx.io, 'Client secret: ', {hidden: true})
    if (secret) return secret
  }
  throw new UsageError('no client secret: pipe it with --client-secret-stdin, set GATEWAY_CLIENT_SECRET, or run in a terminal to be prompted')
}

export default class Login extends BaseCommand<typeof Login> {
  static override summary = 'Log in to the gateway with client credentials and cache the token.'

  static override description = `Exchanges a client id and secret for an access token at {base}/auth/token, and stores the base URL, the credentials and the token in the profile (files of mode 0600), so later commands and cron jobs renew the token without asking.

The secret never comes from a flag's value: it is read from a hidden prompt in a terminal, from GATEWAY_CLIENT_SECRET, or from stdin with --client-secret-stdin. Plain http is refused unless the host is loopback.`

  static override examples = [
    {description: 'Log in to the local sandbox (started with `gateway sandbox start`)', command: '<%= config.bin %> <%= command.id %> --client-id sandbox'},
    {
      description: 'Log in from a script, the secret on stdin',
      command: 'printf %s "$SECRET" | <%= config.bin %> <%= command.id %> --base-url https://api.example.com --client-id my-client --client-secret-stdin',
    },
    {description: 'Log in a second profile', command: 'GATEWAY_CLIENT_SECRET=... <%= config.bin %> <%= command.id %> --profile prod --base-url https://api.example.com --client-id prod-client'},
  ]

  static override flags = {
    json: jsonFlag('the login: profile, baseUrl, clientId, scopes and expiresAt (never the token)'),
    'client-id': Flags.string({description: 'Client id of the credentials.', env: 'GATEWAY_CLIENT_ID'}),
    'client-secret-stdin': Flags.boolean({description: 'Read the client secret from stdin.'}),
    'withdraw-path': Flags.string({
      description: 'Path of this gateway\'s withdrawal endpoint, when it is not /core/withdraw (GATEWAY_WITHDRAW_PATH overrides it).',
      helpValue: '<path>',
    }),
  }

  async run(): Promise<LoginView> {
    return login({clientId: this.flags['client-id'], secretFromStdin: this.flags['client-secret-stdin'], withdrawPath: this.flags['withdraw-path']}, this.ctx)
  }
}
