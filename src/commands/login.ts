import {Flags} from '@oclif/core'

import {checkBaseUrl, DEFAULT_BASE_URL} from '../api/base-url.js'
import {UsageError} from '../api/errors.js'
import {BaseCommand} from '../base-command.js'
import {loginLines, loginView, type LoginView} from '../render/auth.js'

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
    'client-id': Flags.string({description: 'Client id of the credentials.', env: 'GATEWAY_CLIENT_ID'}),
    'client-secret-stdin': Flags.boolean({description: 'Read the client secret from stdin.'}),
  }

  async run(): Promise<LoginView> {
    const {flags} = this
    const {ProfileStore} = await import('../api/store.js')
    const store = new ProfileStore()
    const previous = await store.profile(flags.profile)
    const baseUrl = checkBaseUrl(flags['base-url'] ?? previous?.baseUrl ?? DEFAULT_BASE_URL)

    let clientId = flags['client-id'] ?? previous?.clientId
    if (!clientId && this.term.prompt) {
      const {prompt} = await import('../render/prompt.js')
      clientId = await prompt('Client ID: ')
    }
    if (!clientId) throw new UsageError('--client-id is required (or set GATEWAY_CLIENT_ID)')

    const clientSecret = await this.readSecret()

    const {GatewayClient} = await import('../api/client.js')
    const client = new GatewayClient({
      baseUrl,
      timeoutMs: flags.timeout,
      trace: flags.debug ? (line) => process.stderr.write(`${line}\n`) : undefined,
    })
    try {
      const {withSpinner} = await import('../render/spinner.js')
      const token = await withSpinner(this.term, `Logging in to ${baseUrl}`, () => client.fetchToken({clientId: clientId!, clientSecret}))
      await store.saveLogin(flags.profile, {baseUrl, clientId}, clientSecret, token)
      const view = loginView(flags.profile, token)
      if (!this.jsonEnabled()) {
        this.out(`${this.paint('green', '✓')} Logged in to ${baseUrl} as ${clientId}`)
        for (const line of loginLines(view, this.paint)) this.out(line)
      }
      return view
    } finally {
      await client.close()
    }
  }

  private async readSecret(): Promise<string> {
    if (this.flags['client-secret-stdin']) {
      const {readStdin} = await import('../input/stdin.js')
      const secret = await readStdin()
      if (!secret) throw new UsageError('--client-secret-stdin: stdin held no secret')
      return secret
    }
    if (process.env.GATEWAY_CLIENT_SECRET) return process.env.GATEWAY_CLIENT_SECRET
    if (this.term.prompt) {
      const {prompt} = await import('../render/prompt.js')
      const secret = await prompt('Client secret: ', {hidden: true})
      if (secret) return secret
    }
    throw new UsageError(
      'no client secret: pipe it with --client-secret-stdin, set GATEWAY_CLIENT_SECRET, or run in a terminal to be prompted',
    )
  }
}
