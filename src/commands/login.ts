import {Flags} from '@oclif/core'

import {baseUrlSource, checkBaseUrl, checkEndpointPath} from '../api/base-url.js'
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
  /** A client certificate (PEM certificate and key, or PKCS#12) and a CA file, kept in the profile as paths. */
  cert?: string
  key?: string
  p12?: string
  caFile?: string
  /** Read the certificate's passphrase from stdin (after the client secret's line, when that comes from stdin too). */
  passphraseFromStdin?: boolean
}

/** `login`: exchanges the client credentials for a token and stores all three in the profile. */
export async function login(options: LoginOptions, ctx: CommandContext): Promise<LoginView> {
  const {profile} = ctx.globals
  const store = await ctx.store()
  const previous = await store.profile(profile)
  // No default gateway: the secret goes only where the operator said (a flag, the variable, a profile).
  const chosen = ctx.globals.baseUrl ?? previous?.baseUrl
  if (!chosen) {
    throw new UsageError(`login needs the gateway to log in to: give --base-url URL (or set GATEWAY_BASE_URL), or use a profile that has one (--profile NAME); profile "${profile}" has none, and there is no default`, {
      hint: 'For the local sandbox, `gateway sandbox start` prints the line that logs in to it.',
    })
  }
  const baseUrl = checkBaseUrl(chosen, baseUrlSource(ctx.globals.baseUrl, ctx.env))
  const withdrawPath = options.withdrawPath === undefined ? undefined : checkEndpointPath(options.withdrawPath, '--withdraw-path')
  const {prompt} = await import('../output/prompt.js')

  let clientId = options.clientId ?? previous?.clientId
  if (!clientId && ctx.io.prompt) clientId = await prompt(ctx.io, 'Client ID: ')
  if (!clientId?.trim()) throw new UsageError('--client-id is required (or set GATEWAY_CLIENT_ID)')
  if (/[\u0000-\u001f\u007f]/.test(clientId)) throw new UsageError('--client-id must not hold control characters or line breaks')

  await checkFlagFiles(options)
  const stdin = options.secretFromStdin || options.passphraseFromStdin ? await stdinLines(options, ctx) : {}
  const clientSecret = await readSecret(options, ctx, stdin.secret)
  ctx.handled(clientSecret)
  const {network, passphrase, kept} = await networkSettings(options, ctx, previous?.baseUrl === baseUrl ? previous : undefined, stdin.passphrase)
  if (passphrase) ctx.handled(passphrase)

  const {GatewayClient} = await import('../api/client.js')
  const {tlsSettings} = await import('../api/tls.js')
  const client = new GatewayClient({baseUrl, timeoutMs: ctx.globals.timeoutMs, trace: ctx.trace, env: ctx.env, tls: tlsSettings({}, {...network, passphrase})})
  try {
    const {withSpinner} = await import('../output/spinner.js')
    const token = await withSpinner(ctx.io, `Logging in to ${baseUrl}`, () => client.fetchToken({clientId: clientId!, clientSecret}))
    // What cannot be shown is not saved: the view is made first, and any failure leaves the profile as it was.
    const view = loginView(profile, token)
    const lines = loginLines(view, ctx.paint)
    await store.saveLogin(profile, {baseUrl, clientId, ...(withdrawPath === undefined ? {} : {withdrawPath}), ...network}, clientSecret, token, stdin.passphrase ?? kept)
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

/**
 * A flag's file that is not there (or no file at all) is a usage error, named by its flag, before
 * anything is read or sent; one that others could read or change is refused later, as the
 * environment's would be (exit 3).
 */
async function checkFlagFiles(options: LoginOptions): Promise<void> {
  const {statSync} = await import('node:fs')
  for (const [flag, value] of [['--cert', options.cert], ['--key', options.key], ['--p12', options.p12], ['--ca-file', options.caFile]] as const) {
    if (value === undefined) continue
    if (!value.trim()) throw new UsageError(`${flag} needs a file`)
    let problem: string | undefined
    try {
      if (!statSync(value).isFile()) problem = 'not a file'
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      problem = code === 'ENOENT' ? 'no such file' : code === 'ENAMETOOLONG' ? 'name too long' : code === 'ENOTDIR' ? 'a part of the path is not a folder' : (code ?? 'cannot be read')
    }
    if (problem) throw new UsageError(`${flag} ${value.length > 200 ? `${value.slice(0, 200)}…` : value}: ${problem}`)
  }
}

/** What stdin holds: the client secret, the passphrase, or both, one a line (the secret first). */
async function stdinLines(options: LoginOptions, ctx: CommandContext): Promise<{secret?: string; passphrase?: string}> {
  const {readStdin} = await import('../output/prompt.js')
  const text = await readStdin(ctx.io)
  if (options.secretFromStdin && options.passphraseFromStdin) {
    const [secret, ...rest] = text.split(/\r?\n/)
    const passphrase = rest.join('\n')
    if (!passphrase) throw new UsageError('--client-secret-stdin with --cert-passphrase-stdin: stdin must hold the secret on its first line and the passphrase on the second')
    return {secret, passphrase}
  }
  if (options.passphraseFromStdin) {
    if (!text) throw new UsageError('--cert-passphrase-stdin: stdin held no passphrase')
    return {passphrase: text}
  }
  return {secret: text}
}

/**
 * The profile's CA file and client certificate: the flags', else the environment's (GATEWAY_CA_FILE,
 * GATEWAY_CERT, GATEWAY_KEY, GATEWAY_P12), else what the profile kept for the same gateway. Paths
 * are kept absolute; every file is checked (the user's, a key readable by nobody else) before
 * anything is sent.
 */
async function networkSettings(
  options: LoginOptions,
  ctx: CommandContext,
  previous: {caFile?: string; cert?: string; key?: string; p12?: string} | undefined,
  passphraseFromStdin: string | undefined,
): Promise<{network: {caFile?: string; cert?: string; key?: string; p12?: string}; passphrase?: string; kept?: string}> {
  const {resolve} = await import('node:path')
  const {checkTlsFiles, tlsSettings} = await import('../api/tls.js')

  const fromEnv = tlsSettings(ctx.env)
  const given = options.cert !== undefined || options.key !== undefined || options.p12 !== undefined
  const certificate = given
    ? {cert: options.cert, key: options.key, p12: options.p12}
    : fromEnv.cert || fromEnv.p12
      ? {cert: fromEnv.cert, key: fromEnv.key, p12: fromEnv.p12}
      : {cert: previous?.cert, key: previous?.key, p12: previous?.p12}
  const caFile = options.caFile ?? fromEnv.caFile ?? previous?.caFile
  const absolute = (path: string | undefined) => (path ? resolve(path) : undefined)
  const network = Object.fromEntries(
    Object.entries({caFile: absolute(caFile), cert: absolute(certificate.cert), key: absolute(certificate.key), p12: absolute(certificate.p12)}).filter(([, value]) => value !== undefined),
  ) as {caFile?: string; cert?: string; key?: string; p12?: string}
  checkTlsFiles(network)
  const passphrase = passphraseFromStdin || ctx.env.GATEWAY_CERT_PASSPHRASE
  // The passphrase stored with the same certificate at an earlier login is kept.
  const kept = !passphrase && !given && (network.p12 || network.key) ? await (await ctx.store()).certPassphrase(ctx.globals.profile) : undefined
  return {network, passphrase: passphrase || kept || undefined, kept}
}

async function readSecret(options: LoginOptions, ctx: CommandContext, fromStdin: string | undefined): Promise<string> {
  if (options.secretFromStdin) {
    if (!fromStdin) throw new UsageError('--client-secret-stdin: stdin held no secret')
    return fromStdin
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

The secret never comes from a flag's value: it is read from a hidden prompt in a terminal, from GATEWAY_CLIENT_SECRET, or from stdin with --client-secret-stdin. Plain http is refused unless the host is loopback. There is no default gateway: --base-url (or GATEWAY_BASE_URL) names it, else the profile's own; gateway sandbox start prints the line that logs in to the local sandbox.

A gateway that requires mutual TLS takes a client certificate: --cert and --key (PEM files), or --p12 (PKCS#12), whose passphrase comes from GATEWAY_CERT_PASSPHRASE or from stdin with --cert-passphrase-stdin (after the secret's line when both are on stdin). --ca-file trusts a private CA for this gateway. The profile keeps the paths (never a key); each file must be yours, and a key or .p12 readable by you alone (chmod 600). GATEWAY_CERT, GATEWAY_KEY, GATEWAY_P12 and GATEWAY_CA_FILE do the same for any command.`

  static override examples = [
    {description: 'Log in to the local sandbox (`gateway sandbox start` prints this line with its address)', command: 'GATEWAY_CLIENT_SECRET=sandbox-secret <%= config.bin %> <%= command.id %> --base-url http://127.0.0.1:4010 --client-id sandbox'},
    {
      description: 'Log in from a script, the secret on stdin',
      command: 'printf %s "$SECRET" | <%= config.bin %> <%= command.id %> --base-url https://api.example.com --client-id my-client --client-secret-stdin',
    },
    {description: 'Log in a second profile', command: 'GATEWAY_CLIENT_SECRET=... <%= config.bin %> <%= command.id %> --profile prod --base-url https://api.example.com --client-id prod-client'},
    {
      description: 'Log in to a PIX provider that requires a client certificate (.p12), the passphrase from the environment',
      command: 'GATEWAY_CERT_PASSPHRASE=... GATEWAY_CLIENT_SECRET=... <%= config.bin %> <%= command.id %> --profile pix --base-url https://pix.example.com --client-id my-client --p12 ~/certs/client.p12',
    },
  ]

  static override flags = {
    json: jsonFlag('the login: profile, baseUrl, clientId, scopes and expiresAt (never the token)'),
    'client-id': Flags.string({description: 'Client id of the credentials.', env: 'GATEWAY_CLIENT_ID'}),
    'client-secret-stdin': Flags.boolean({description: 'Read the client secret from stdin.'}),
    cert: Flags.string({description: 'Client certificate (PEM) for a gateway that requires mutual TLS; with --key. GATEWAY_CERT too.', helpValue: '<file>'}),
    key: Flags.string({description: 'Private key (PEM) of --cert, readable by you alone. GATEWAY_KEY too.', helpValue: '<file>'}),
    p12: Flags.string({description: 'Client certificate and key as one PKCS#12 file, readable by you alone. GATEWAY_P12 too.', helpValue: '<file>', exclusive: ['cert', 'key']}),
    'cert-passphrase-stdin': Flags.boolean({description: 'Read the passphrase of --p12 (or of an encrypted --key) from stdin; else GATEWAY_CERT_PASSPHRASE.'}),
    'ca-file': Flags.string({description: 'PEM file of CAs to trust for this gateway, beside the system\'s. GATEWAY_CA_FILE too.', helpValue: '<file>'}),
    'withdraw-path': Flags.string({
      description: 'Path of this gateway\'s withdrawal endpoint, when it is not /core/withdraw (GATEWAY_WITHDRAW_PATH overrides it).',
      helpValue: '<path>',
    }),
  }

  async run(): Promise<LoginView> {
    return login(
      {
        clientId: this.flags['client-id'],
        secretFromStdin: this.flags['client-secret-stdin'],
        withdrawPath: this.flags['withdraw-path'],
        cert: this.flags.cert,
        key: this.flags.key,
        p12: this.flags.p12,
        caFile: this.flags['ca-file'],
        passphraseFromStdin: this.flags['cert-passphrase-stdin'],
      },
      this.ctx,
    )
  }
}
