import {AuthError, GatewayError} from '../../api/errors.js'
import {BaseCommand, describeError} from '../../base-command.js'
import {loginLines, loginView, type LoginView} from '../../render/auth.js'

export default class AuthStatus extends BaseCommand<typeof AuthStatus> {
  static override summary = 'Show the profile\'s login and whether its token is valid.'

  static override description = `Shows the profile, base URL, client id, scopes and token expiry, renewing the token first when it is close to expiry. Never shows the token.

Exits 3 when the profile has no login, or when its token has expired and cannot be renewed.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile prod --json',
  ]

  async run(): Promise<LoginView | undefined> {
    const session = await this.openSession()
    const cached = await session.store.token(session.profile)
    if (!session.settings && !(await session.credentials())) {
      throw new AuthError(`not logged in: profile "${session.profile}" has no login`, {hint: 'Run `gateway login`.'})
    }
    try {
      const token = await session.client.accessToken()
      const view = loginView(session.profile, token, true)
      if (!this.jsonEnabled()) for (const line of loginLines(view, this.paint)) this.out(line)
      return view
    } catch (error) {
      if (!(error instanceof AuthError) || !cached) throw error
      // The stored login no longer works: show what it was, say why, and exit 3.
      const view = loginView(session.profile, cached, false)
      const {exitCode, payload} = describeError(error)
      process.exitCode = exitCode
      if (this.jsonEnabled()) {
        this.logJson({...view, error: payload})
      } else {
        for (const line of loginLines(view, this.paint)) this.out(line)
        this.note(`${this.paint('red', 'Error:')} ${(error as GatewayError).message}`)
        this.note('Run `gateway login` again.')
      }
      return undefined
    }
  }
}
