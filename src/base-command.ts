import {Args, Command, Errors, Flags, Interfaces} from '@oclif/core'

import {ExitCode, GatewayError, UsageError} from './api/errors.js'
import type {Session} from './api/profile.js'
import {scrub} from './api/redact.js'
import {parseDuration} from './render/duration.js'
import {detectTerminal, jsonText, painter, type Terminal} from './render/output.js'
import {UUID_PATTERN} from './schemas/enums.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/** A duration flag: "500ms", "30s", "10m", "2h", or a bare number of seconds. Parsed to milliseconds. */
export const durationFlag = Flags.custom<number>({
  helpValue: '<duration>',
  async parse(input) {
    const ms = parseDuration(input)
    if (ms === undefined || ms <= 0) throw new Error(`expected a positive duration such as 500ms, 30s or 10m, got "${input}"`)
    return ms
  },
})

/** The ID argument of the commands that name one transaction. */
export const transactionIdArg = Args.string({description: 'Transaction id (a UUID).', required: true})

/** Refuses an id that is not a UUID before anything is sent (the gateway would answer 422). */
export function requireTransactionId(id: string): string {
  if (!UUID_PATTERN.test(id)) throw new UsageError(`ID must be a UUID, e.g. 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11; got "${id}"`)
  return id
}

/**
 * The exit codes, in one place (the README's table is the same list):
 *   0 ok · 1 unexpected · 2 usage or validation, nothing sent · 3 authentication or permission
 *   4 not found · 5 rejected by the gateway · 6 rate limited after retries · 7 gateway or network failure
 *   8 `--watch` timed out · 9 `--watch` saw the record settle in another final status
 */
export function describeError(error: unknown): {exitCode: number; payload: Record<string, unknown>; message: string; hint?: string} {
  if (error instanceof GatewayError) {
    return {exitCode: error.exitCode, payload: error.toJSON(), message: error.message, hint: error.hint}
  }
  if (error instanceof Errors.CLIError) {
    // oclif's own parse errors: unknown flags, missing or invalid values. All are usage errors.
    const message = oneLine(error.message)
    const exitCode = error.oclif?.exit === undefined || error.oclif.exit === 1 ? ExitCode.Usage : error.oclif.exit
    return {exitCode, payload: {code: 'USAGE', exitCode, message}, message}
  }
  const message = error instanceof Error ? error.message : String(error)
  return {exitCode: ExitCode.Unexpected, payload: {code: 'UNEXPECTED', exitCode: ExitCode.Unexpected, message}, message}
}

function oneLine(message: string): string {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !/^See more help with/.test(line))
    .join(' ')
}

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true

  static override baseFlags = {
    profile: Flags.string({
      description: 'Profile to use: its base URL, credentials and token cache.',
      env: 'GATEWAY_PROFILE',
      default: 'default',
      helpGroup: 'GLOBAL',
    }),
    'base-url': Flags.string({
      description: 'Gateway base URL (https, or http on loopback). Default: the profile\'s, else http://127.0.0.1:4010.',
      env: 'GATEWAY_BASE_URL',
      helpGroup: 'GLOBAL',
    }),
    timeout: durationFlag({
      description: 'How long to wait for each answer from the gateway.',
      default: 30_000,
      defaultHelp: async () => '30s',
      helpGroup: 'GLOBAL',
    }),
    debug: Flags.boolean({
      description: 'Print each HTTP exchange to stderr, with secrets redacted.',
      helpGroup: 'GLOBAL',
    }),
  }

  protected flags!: BaseFlags<T>
  protected args!: BaseArgs<T>
  protected term!: Terminal
  protected paint!: ReturnType<typeof painter>
  private session?: Session

  public override async init(): Promise<void> {
    await super.init()
    // The reader of stdout went away (`| head`): there is no one left to write for. Stop quietly,
    // as Unix tools do, instead of failing with EPIPE.
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(ExitCode.Ok)
      throw error
    })
    this.term = detectTerminal()
    this.paint = painter(this.term.color)
    const {args, flags} = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    })
    this.flags = flags as BaseFlags<T>
    this.args = args as BaseArgs<T>
  }

  /** The profile named by --profile, with a client for its gateway. Opened once per command. */
  protected async openSession(options: {timeoutMs?: number} = {}): Promise<Session> {
    if (!this.session) {
      const {openSession} = await import('./api/profile.js')
      this.session = await openSession({
        profile: this.flags.profile,
        baseUrl: this.flags['base-url'],
        timeoutMs: options.timeoutMs ?? this.flags.timeout,
        trace: this.flags.debug ? (line) => process.stderr.write(`${line}\n`) : undefined,
      })
    }
    return this.session
  }

  /** Human output: goes to stdout. */
  protected out(text = ''): void {
    process.stdout.write(`${text}\n`)
  }

  /** Notes, progress and warnings: stderr, so stdout stays data only. */
  protected note(text: string): void {
    process.stderr.write(`${text}\n`)
  }

  public override logJson(json: unknown): void {
    process.stdout.write(jsonText(json))
  }

  protected override async catch(error: Error & {oclif?: {exit?: number}}): Promise<void> {
    if (error instanceof Errors.ExitError) {
      process.exitCode = error.oclif.exit
      return
    }
    // A command whose flags were refused did try to parse them: spare the user oclif's warning
    // that it "did not parse its arguments".
    this.parsed = true
    const {exitCode, payload, message, hint} = describeError(error)
    const secrets = [process.env.GATEWAY_CLIENT_SECRET, ...(this.session?.client.secrets() ?? [])]
    // oclif exits 1 on any error under --json; the exit code is set here, once, for both modes.
    process.exitCode = exitCode
    if (this.jsonEnabled()) {
      process.stdout.write(scrub(jsonText({error: payload}), secrets))
      return
    }
    const paint = this.paint ?? painter(false)
    // One line per problem, each naming what is wrong.
    const lines = message.split('\n').map((line) => `${paint('red', 'Error:')} ${line}\n`)
    process.stderr.write(scrub(lines.join(''), secrets))
    if (hint) process.stderr.write(scrub(`${hint}\n`, secrets))
    if (exitCode === ExitCode.Unexpected && this.flags?.debug && error.stack) process.stderr.write(`${error.stack}\n`)
  }

  protected override async finally(error: Error | undefined): Promise<void> {
    await this.session?.client.close()
    await super.finally(error)
  }
}
