import {Args, Command, Errors, Flags, Interfaces} from '@oclif/core'

import {CommandContext, processContext} from './cli/context.js'
import {ExitCode, UsageError} from './cli/errors.js'
import {commandGlobals, givesFlag, type GlobalFlags, guardStdout, printResult, reportFailure, typedFlag} from './cli/outcome.js'
import {retryFlag} from './cli/retry-flag.js'
import {contextStorage} from './cli/run.js'
import {parseDuration} from './input/duration.js'
import {MAX_TIMER_MS} from './schemas/enums.js'

export {checkProfileName, pickFields, requireTransactionId} from './cli/outcome.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/** A duration flag: "500ms", "30s", "10m", "2h", or a bare number of seconds. Parsed to milliseconds. */
export const durationFlag = Flags.custom<number>({
  helpValue: '<duration>',
  async parse(input) {
    const ms = parseDuration(input)
    if (ms === undefined || ms <= 0) throw new Error(`expected a positive duration such as 500ms, 30s or 10m, got "${input}"`)
    // A timer cannot wait longer: Node would fire it at once.
    if (ms > MAX_TIMER_MS) throw new Error(`must be at most ${MAX_TIMER_MS} ms (about 24 days), got "${input}"`)
    return ms
  },
})

/** The ID argument of the commands that name one transaction. */
export const transactionIdArg = Args.string({description: 'Transaction id (a UUID).', required: true})

/** --json, saying what the one document on stdout holds for this command. */
export function jsonFlag(holds: string) {
  return Flags.boolean({description: `Print one JSON document on stdout: ${holds}. An error is {"error": {code, exitCode, message, ...}}.`, helpGroup: 'GLOBAL'})
}

/**
 * --fields: the fields of the record to print under --json (which it implies), comma-separated, in
 * that order. The names are checked offline against the record's fields: an unknown one exits 2,
 * naming the flag and the fields there are.
 */
export function fieldsFlag(record: string, names: readonly string[]) {
  const allowed = [...new Set(names)]
  return Flags.custom<string>({
    description: `Print only these fields of ${record} as one JSON document (implies --json), comma-separated, in this order; a field the record lacks is null. Fields: ${allowed.join(', ')}.`,
    helpValue: '<list>',
    async parse(input) {
      const picked = input.split(',').map((name) => name.trim())
      if (picked.some((name) => name === '')) throw new Error(`takes field names separated by commas, from ${allowed.join(', ')}; got "${input}"`)
      const unknown = picked.filter((name) => !allowed.includes(name))
      if (unknown.length > 0) {
        throw new Error(`does not know ${unknown.map((name) => `"${name}"`).join(', ')}: the fields are ${allowed.join(', ')}`)
      }
      return [...new Set(picked)].join(',')
    },
  })()
}

/** The global flags every command takes. */
export const globalFlags = {
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
  quiet: Flags.boolean({
    description: 'Nothing on stderr when the command succeeds (notes, summaries, progress); a failure still shows its error, after what was held back.',
    helpGroup: 'GLOBAL',
  }),
  ...retryFlag,
}

/**
 * Every command's base: it parses the flags, hands the command a context (IO, environment, clock,
 * config folder, gateway), and owns the end of every run: --json's single document, errors
 * included, and the exit code. Subclasses only declare flags and call their logic.
 */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true

  static override baseFlags: Interfaces.FlagInput = globalFlags

  protected flags!: BaseFlags<T>
  protected args!: BaseArgs<T>
  protected ctx!: CommandContext

  public override async init(): Promise<void> {
    await super.init()
    const given = contextStorage.getStore()
    this.ctx = given ?? (await processContext(this.config.bin))
    // Run as its own process: a closed stdout ends the run quietly, one that cannot be written says so.
    if (!given) guardStdout(this.ctx)
    const flagInput = {...(super.ctor as typeof BaseCommand).baseFlags, ...this.ctor.flags}
    let parsed: Awaited<ReturnType<typeof this.parse>>
    try {
      parsed = await this.parse({
        flags: this.ctor.flags,
        baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
        enableJsonFlag: this.ctor.enableJsonFlag,
        args: this.ctor.args,
        strict: this.ctor.strict,
      })
    } catch (error) {
      // Every error of the parser is a usage error, said in the CLI's one style.
      const {usageErrorFromParse} = await import('./cli/parse-errors.js')
      const refused = usageErrorFromParse(error, [...Object.keys(flagInput), 'json'])
      // A value from the environment is named by its variable, not by a flag the operator never typed.
      for (const [name, flag] of Object.entries(flagInput) as Array<[string, {env?: string}]>) {
        if (flag.env && !typedFlag(this.argv, name) && this.ctx.env[flag.env] !== undefined && refused.message.startsWith(`--${name} `)) {
          throw new UsageError(`${flag.env}${refused.message.slice(name.length + 2)}`)
        }
      }
      throw refused
    }
    const {args, flags} = parsed
    this.flags = flags as BaseFlags<T>
    this.args = args as BaseArgs<T>
    this.ctx.globals = commandGlobals(flags as GlobalFlags, this.argv, this.ctx.env, this.jsonEnabled())
  }

  /** --json, or --fields (which picks from the same document) where the command has it. */
  public override jsonEnabled(): boolean {
    return super.jsonEnabled() || (this.ctor.flags?.fields !== undefined && givesFlag(this.argv, 'fields'))
  }

  public override logJson(json: unknown): void {
    printResult(this.ctx, json, (this.flags as {fields?: string} | undefined)?.fields)
  }

  protected override async catch(error: Error & {oclif?: {exit?: number}}): Promise<void> {
    const ctx = this.ctx ?? contextStorage.getStore() ?? (await processContext(this.config.bin))
    if (error instanceof Errors.ExitError) {
      this.setExitCode(ctx, error.oclif.exit ?? ExitCode.Unexpected)
      return
    }
    // A command whose flags were refused did try to parse them: spare the user oclif's warning
    // that it "did not parse its arguments".
    this.parsed = true
    await reportFailure(ctx, error, this.jsonEnabled(), (code) => this.setExitCode(ctx, code))
  }

  private setExitCode(ctx: CommandContext, code: number): void {
    ctx.exitCode = code
    if (!contextStorage.getStore()) process.exitCode = code
  }

  protected override async finally(error: Error | undefined): Promise<void> {
    await this.ctx?.close()
    await super.finally(error)
  }
}
