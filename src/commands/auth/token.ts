import {BaseCommand, jsonFlag} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'

export type TokenView = {accessToken: string; expiresAt: string; scopes: string[]}

/** `auth token`: a valid access token on stdout, renewed first when it is close to expiry. */
export async function authToken(ctx: CommandContext): Promise<TokenView> {
  const session = await ctx.session()
  const token = await session.client.accessToken()
  if (!ctx.globals.json) ctx.out(token.accessToken)
  return {accessToken: token.accessToken, expiresAt: new Date(token.expiresAt).toISOString(), scopes: token.scopes}
}

export default class AuthToken extends BaseCommand<typeof AuthToken> {
  static override summary = 'Print a valid access token, renewing it if needed.'

  static override description = `Prints the profile's access token on stdout, and nothing else, so a script can call the gateway's API directly. The token is renewed first when it is close to expiry. Treat the output as a secret.`

  static override examples = [
    'curl -H "Authorization: Bearer $(<%= config.bin %> <%= command.id %>)" http://127.0.0.1:4010/core/transaction/ID',
    '<%= config.bin %> <%= command.id %> --json',
  ]

  static override flags = {
    json: jsonFlag('accessToken, expiresAt and scopes'),
  }

  async run(): Promise<TokenView | undefined> {
    const view = await authToken(this.ctx)
    return this.ctx.globals.json ? view : undefined
  }
}
