import {BaseCommand} from '../../base-command.js'

export default class AuthToken extends BaseCommand<typeof AuthToken> {
  static override summary = 'Print a valid access token, renewing it if needed.'

  static override description = `Prints the profile's access token on stdout, and nothing else, so a script can call the gateway's API directly. The token is renewed first when it is close to expiry. Treat the output as a secret.`

  static override examples = [
    'curl -H "Authorization: Bearer $(<%= config.bin %> <%= command.id %>)" http://127.0.0.1:4010/core/transaction/ID',
    '<%= config.bin %> <%= command.id %> --json',
  ]

  async run(): Promise<{accessToken: string; expiresAt: string; scopes: string[]}> {
    const session = await this.openSession()
    const token = await session.client.accessToken()
    if (!this.jsonEnabled()) this.out(token.accessToken)
    return {accessToken: token.accessToken, expiresAt: new Date(token.expiresAt).toISOString(), scopes: token.scopes}
  }
}
