import {BaseCommand, jsonFlag} from '../base-command.js'
import type {CommandContext} from '../cli/context.js'

/** `logout`: forgets the profile's settings, secret and token; succeeds when there was nothing to forget. */
export async function logout(ctx: CommandContext): Promise<{profile: string; loggedOut: boolean}> {
  const {profile} = ctx.globals
  const forgot = await (await ctx.store()).forget(profile)
  if (!ctx.globals.json) ctx.out(forgot ? `Logged out of profile "${profile}".` : `Profile "${profile}" was not logged in.`)
  if (ctx.env.GATEWAY_CLIENT_SECRET) ctx.note('Note: GATEWAY_CLIENT_SECRET is still set in this environment.')
  return {profile, loggedOut: forgot}
}

export default class Logout extends BaseCommand<typeof Logout> {
  static override summary = 'Forget the profile\'s token and credentials.'

  static override description = `Removes the profile's base URL, client credentials and cached token from the config folder. Succeeds when there was nothing to forget, so scripts can call it unconditionally. Credentials given through GATEWAY_CLIENT_ID and GATEWAY_CLIENT_SECRET are not touched.`

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --profile prod']

  static override flags = {
    json: jsonFlag('the profile and whether anything was forgotten'),
  }

  async run(): Promise<{profile: string; loggedOut: boolean} | undefined> {
    const result = await logout(this.ctx)
    return this.ctx.globals.json ? result : undefined
  }
}
