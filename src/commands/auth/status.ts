import {Flags} from '@oclif/core'

import {AuthError, NotFoundError, PermissionError} from '../../api/errors.js'
import {BaseCommand, jsonFlag} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'
import {ReportedError} from '../../cli/errors.js'
import type {Session} from '../../api/profile.js'
import {printable} from '../../output/printable.js'
import {loginLines, loginView, type LoginView} from '../../render/auth.js'

/** A transaction id no record has: looking it up costs the gateway nothing and tells whether the token works. */
const PROBE_ID = '00000000-0000-4000-8000-000000000000'

export interface AuthStatusOptions {
  /** Ask the gateway whether the login works, not only the local expiry. */
  check?: boolean
  /** Every profile, without renewing anything. */
  all?: boolean
}

export type ProfileRow = {profile: string; baseUrl?: string; clientId?: string; valid: boolean; expiresAt?: string}

/** `auth status`: the login of one profile (renewing its token when due), or of every profile. */
export async function authStatus(options: AuthStatusOptions, ctx: CommandContext): Promise<LoginView | ProfileRow[]> {
  if (options.all) return allProfiles(ctx)
  const session = await ctx.session()
  const cached = await session.store.token(session.profile)
  if (!session.settings && !(await session.credentials())) {
    throw new AuthError(`not logged in: profile "${session.profile}" has no login`, {hint: 'Run `gateway login`.'})
  }
  try {
    let token = await session.client.accessToken()
    if (options.check) {
      const {GatewayApi} = await import('../../api/gateway.js')
      // A 404 (or 403) means the gateway took the token; a 401 is renewed once by the client, then fails.
      await new GatewayApi(session.client).getTransaction(PROBE_ID).catch((error: unknown) => {
        if (error instanceof NotFoundError || (error instanceof PermissionError && error.status === 403)) return
        throw error
      })
      token = await session.client.accessToken()
    }
    const view: LoginView & NetworkView = {...loginView(session.profile, token, true), ...(await networkView(session))}
    if (!ctx.globals.json) for (const line of [...loginLines(view, ctx.paint), ...networkLines(view)]) ctx.out(line)
    return view
  } catch (error) {
    if (!(error instanceof AuthError) || !cached) throw error
    // The stored login no longer works: show what it was beside the error, and exit 3.
    const view = loginView(session.profile, cached, false)
    throw new ReportedError(
      new AuthError(error.message, {status: error.status, body: error.body, messages: error.messages, hint: 'Run `gateway login` again.'}),
      {lines: loginLines(view, ctx.paint), json: {...view}},
    )
  }
}

/** The way to the gateway: the proxy (or why none), the CA file and the client certificate. */
interface NetworkView {
  proxy: string | null
  proxyFrom?: string
  direct?: string
  caFile?: string
  clientCertificate?: string
}

async function networkView(session: Session): Promise<NetworkView> {
  const route = await session.client.route()
  const {tls} = session
  const certificate = tls.p12 ?? (tls.cert ? `${tls.cert} (key ${tls.key ?? 'missing'})` : undefined)
  return {
    proxy: route.proxy ?? null,
    ...(route.proxyVariable ? {proxyFrom: route.proxyVariable} : {}),
    ...(route.direct ? {direct: route.direct} : {}),
    ...(tls.caFile ? {caFile: tls.caFile} : {}),
    ...(certificate ? {clientCertificate: certificate} : {}),
  }
}

function networkLines(view: NetworkView): string[] {
  const lines = [`  Proxy:     ${view.proxy ? `${printable(view.proxy)} (from ${view.proxyFrom})` : `none (${view.direct})`}`]
  if (view.caFile) lines.push(`  CA file:   ${printable(view.caFile)}`)
  if (view.clientCertificate) lines.push(`  Client certificate: ${printable(view.clientCertificate)}`)
  return lines
}

async function allProfiles(ctx: CommandContext): Promise<ProfileRow[]> {
  const store = await ctx.store()
  const rows: ProfileRow[] = []
  for (const profile of await store.names()) {
    const settings = await store.profile(profile)
    const token = await store.token(profile)
    rows.push({
      profile,
      baseUrl: settings?.baseUrl ?? token?.baseUrl,
      clientId: settings?.clientId ?? token?.clientId,
      valid: token !== undefined && token.expiresAt > ctx.now(),
      expiresAt: token ? new Date(token.expiresAt).toISOString() : undefined,
    })
  }
  if (ctx.globals.json) return rows
  if (rows.length === 0) {
    ctx.note('No profile has a login. Run `gateway login`.')
    return rows
  }
  const {renderTable} = await import('../../output/table.js')
  const {localTime} = await import('../../output/time.js')
  const table = await renderTable(
    rows,
    [
      {header: 'Profile', value: (row) => row.profile, whole: true},
      {header: 'Base URL', value: (row) => row.baseUrl ?? '-'},
      {header: 'Client ID', value: (row) => row.clientId ?? '-'},
      {header: 'Token', value: (row) => (row.valid ? 'valid' : row.expiresAt ? 'expired' : 'none')},
      {header: 'Expires', value: (row) => localTime(row.expiresAt, ctx.env.TZ), priority: 1},
    ],
    ctx.io,
  )
  ctx.out(table.text)
  return rows
}

export default class AuthStatus extends BaseCommand<typeof AuthStatus> {
  static override summary = 'Show the profile\'s login and whether its token is valid.'

  static override description = `Shows the profile, base URL, client id, scopes and token expiry, renewing the token first when it is close to expiry. Never shows the token.

--check also asks the gateway whether it takes the token (a revoked token is renewed once with the stored credentials). --all lists every profile with its token's local validity and expiry, renewing nothing.

Exits 3 when the profile has no login, or when its token has expired (or was revoked) and cannot be renewed.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile prod --json',
    {description: 'Ask the gateway, from a cron job', command: '<%= config.bin %> <%= command.id %> --check'},
    {description: 'Every profile', command: '<%= config.bin %> <%= command.id %> --all'},
  ]

  static override flags = {
    json: jsonFlag('the login (profile, baseUrl, clientId, scopes, expiresAt, valid), or with --all every profile'),
    check: Flags.boolean({description: 'Ask the gateway whether the login works, not only the local expiry.'}),
    all: Flags.boolean({description: 'List every profile: base URL, client id, token validity and expiry.', exclusive: ['check']}),
  }

  async run(): Promise<LoginView | ProfileRow[] | undefined> {
    const result = await authStatus({check: this.flags.check, all: this.flags.all}, this.ctx)
    return this.ctx.globals.json ? result : undefined
  }
}
