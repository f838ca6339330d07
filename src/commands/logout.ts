import {BaseCommand} from '../base-command.js'

export default class Logout extends BaseCommand<typeof Logout> {
  static override summary = 'Forget the profile\'s token and credentials.'

  static override description = `Removes the profile's base URL, client credentials and cached token from the config folder. Succeeds when there was nothing to forget, so scripts can call it unconditionally. Credentials given through GATEWAY_CLIENT_ID and GATEWAY_CLIENT_SECRET are not touched.`

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --profile prod']

  async run(): Promise<{profile: string; loggedOut: boolean}> {
    const {ProfileStore} = await import('../api/store.js')
    const forgot = await new ProfileStore().forget(this.flags.profile)
    if (!this.jsonEnabled()) {
      this.out(forgot ? `Logged out of profile "${this.flags.profile}".` : `Profile "${this.flags.profile}" was not logged in.`)
    }
    if (process.env.GATEWAY_CLIENT_SECRET) this.note('Note: GATEWAY_CLIENT_SECRET is still set in this environment.')
    return {profile: this.flags.profile, loggedOut: forgot}
  }
}
