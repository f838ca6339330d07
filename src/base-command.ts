import {Args, Command, Errors, Flags, Interfaces} from '@oclif/core'

import {scrub} from './api/redact.js'
import {CommandContext, jsonDocument, processContext} from './cli/context.js'
import {describeError, ExitCode, printable, ReportedError, UsageError} from './cli/errors.js'
import {retryFlag} from './cli/retry-flag.js'
import {contextStorage} from './cli/run.js'
import {parseDuration} from './input/duration.js'
import {terminalText} from './cli/terminal.js'
import {MAX_TIMER_MS, UUID_PATTERN} from './schemas/enums.js'

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

/** Whether the operator typed the flag (`--name VALUE` or `--name=VALUE`), rather than it taking its default or its variable. */
function typedFlag(argv: readonly string[], name: string): boolean {
  return argv.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`))
}

/** A profile's name: letters, digits, - and _, and none of the names objects are made of. */
const PROFILE_NAME = /^[A-Za-z0-9_-]{1,64}$/
const RESERVED_PROFILES = new Set(['__proto__', 'constructor', 'prototype'])

/** Refuses a profile name that could not be stored safely, naming where it came from. */
export function checkProfileName(name: string, from: string): string {
  if (!PROFILE_NAME.test(name) || RESERVED_PROFILES.has(name)) {
    throw new UsageError(`${from} must be 1 to 64 letters, digits, - or _, and not __proto__, constructor or prototype; got "${printable(name.slice(0, 80))}${name.length > 80 ? '…' : ''}"`)
  }
  return name
}

/** The ID argument of the commands that name one transaction. */
export const transactionIdArg = Args.string({description: 'Transaction id (a UUID).', required: true})

/** Refuses an id that is not a UUID before anything is sent (the gateway would answer 422); sends it in lower case (ids are case-insensitive). */
export function requireTransactionId(id: string): string {
  if (!UUID_PATTERN.test(id)) throw new UsageError(`ID must be a UUID, e.g. 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11; got "${id}"`)
  return id.toLowerCase()
}

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

/**
 * The chosen fields of a record, in the order given; a field it lacks is null, so every line of a
 * log has the same keys. `a.b` picks b inside a, and stays nested: {"a": {"b": ...}}.
 */
export function pickFields(record: unknown, fields: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {}
  for (const path of fields) {
    const names = path.split('.')
    let value: unknown = record
    for (const name of names) {
      value = value && typeof value === 'object' && Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : null
    }
    let target = picked
    for (const name of names.slice(0, -1)) {
      if (!target[name] || typeof target[name] !== 'object') target[name] = {}
      target = target[name] as Record<string, unknown>
    }
    target[names.at(-1)!] = value ?? null
  }
  return picked
}

/** Whether argv gives the flag (`--name`, `--name=VALUE`) before any `--`. */
function givesFlag(argv: readonly string[], name: string): boolean {
  const end = argv.indexOf('--')
  return (end === -1 ? argv : argv.slice(0, end)).some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`))
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
    if (!given) {
      // The reader of stdout went away (`| head`): there is no one left to write for. Stop quietly,
      // as Unix tools do, instead of failing with EPIPE.
      process.stdout.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'EPIPE') process.exit(ExitCode.Ok)
        throw error
      })
    }
    this.ctx = given ?? (await processContext(this.config.bin))
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
    const global = flags as {profile?: string; 'base-url'?: string; timeout?: number; debug?: boolean; retries?: number}
    const profileTyped = typedFlag(this.argv, 'profile')
    this.ctx.globals = {
      profile: checkProfileName(global.profile ?? 'default', profileTyped || !this.ctx.env.GATEWAY_PROFILE ? '--profile' : 'GATEWAY_PROFILE'),
      profileChosen: profileTyped || Boolean(this.ctx.env.GATEWAY_PROFILE),
      baseUrl: global['base-url'],
      timeoutMs: global.timeout ?? 30_000,
      retries: global.retries ?? 3,
      debug: global.debug ?? false,
      json: this.jsonEnabled(),
    }
  }

  /** --json, or --fields (which picks from the same document) where the command has it. */
  public override jsonEnabled(): boolean {
    return super.jsonEnabled() || (this.ctor.flags?.fields !== undefined && givesFlag(this.argv, 'fields'))
  }

  public override logJson(json: unknown): void {
    const fields = (this.flags as {fields?: string} | undefined)?.fields
    this.ctx.json(fields ? pickFields(json, fields.split(',')) : json)
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
    const {exitCode, payload, message, hint} = describeError(error)
    const report = error instanceof ReportedError ? error.report : undefined
    const secrets = await ctx.secrets()
    // oclif exits 1 on any error under --json; the exit code is set here, once, for both modes.
    this.setExitCode(ctx, exitCode)
    if (exitCode === ExitCode.Interrupted || exitCode === ExitCode.Terminated) return
    if (this.jsonEnabled()) {
      const document = {...report?.json, error: payload}
      // A stream under way on stdout: the document goes to stderr, and is all that goes there.
      if (ctx.streaming) {
        ctx.io.stderr.write(scrub(jsonDocument(document, ctx.io.stderrTTY), secrets))
        return
      }
      ctx.io.stdout.write(scrub(jsonDocument(document, ctx.io.stdoutTTY), secrets))
    } else {
      for (const line of report?.lines ?? []) ctx.out(line)
    }
    // One line per problem, each naming what is wrong; under --json too, so a log of stderr holds
    // every failure while stdout holds the document. Without a terminal each line says when (and
    // gets no colour, even when stdout is a terminal). The message was escaped (describeError); the
    // painter's mark on "Error:" becomes colour here.
    const label = ctx.io.stampErrors ? `${new Date(ctx.now()).toISOString()} Error:` : ctx.paint('red', 'Error:')
    const lines = message.split('\n').map((line) => `${label} ${line}\n`)
    ctx.io.stderr.write(terminalText(scrub(lines.join(''), secrets), {lines: true, color: ctx.io.color}))
    if (hint) ctx.io.stderr.write(terminalText(scrub(`${hint}\n`, secrets), {lines: true, color: ctx.io.color}))
    if (exitCode === ExitCode.Unexpected && ctx.globals.debug && error.stack) ctx.io.stderr.write(`${error.stack}\n`)
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
