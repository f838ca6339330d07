// A command's life cycle, for both ways a command runs: the oclif base command (src/base-command.ts)
// and the fast path (src/fast/hot.ts) both call runCommand, so the two read the same line the same
// way and end it the same way: the global flags, --json, the failure report and error envelope, the
// exit code, a closed stdout. The command line is read by oclif's own parser (its parser module,
// which bundles without the rest of oclif) with the command's own flag definitions.
import {boolean} from '@oclif/core/flags'
import type {ArgInput, FlagInput, ParserOutput} from '@oclif/core/interfaces'
import {parse} from '@oclif/core/parser'

import {processContext, type CommandContext} from './context.js'
import {ExitCode, UsageError} from './errors.js'
import {commandGlobals, givesFlag, type GlobalFlags, guardStdout, printResult, reportFailure, typedFlag} from './outcome.js'

/** oclif's flag builders, taken by name: a namespace import of a CommonJS module would copy the whole module when loaded. */
const Flags = {boolean}

/** What a command declares of its command line, as an oclif command class does. */
export interface CommandDefinition {
  flags?: FlagInput
  baseFlags?: FlagInput
  args?: ArgInput
  strict?: boolean
  enableJsonFlag?: boolean
}

/** The command line as read: the flags and arguments as the command gets them. */
export type CommandLine = ParserOutput<Record<string, unknown>, Record<string, unknown>, Record<string, unknown>>

/** oclif's own --json, which oclif adds first to the flags of a command that takes it (as its Command.parse does); a command's own --json replaces it. */
const OCLIF_JSON = Flags.boolean({description: 'Format output as json.', helpGroup: 'GLOBAL'})

/** Every flag oclif reads for the command, in the order it reads them. */
export function commandFlags(definition: CommandDefinition): FlagInput {
  const flags = {...definition.baseFlags, ...definition.flags}
  return definition.enableJsonFlag ? {json: OCLIF_JSON, ...flags} : flags
}

/**
 * Reads the words after the command with oclif's parser and the command's definitions; throws
 * the parser's own error for a line it refuses. `context` is what the parser hands a flag's own
 * reader (the oclif command, when there is one).
 */
export function readCommandLine(definition: CommandDefinition, argv: readonly string[], context?: unknown): Promise<CommandLine> {
  return parse([...argv], {context: context as never, flags: commandFlags(definition), args: definition.args ?? {}, strict: definition.strict}) as Promise<CommandLine>
}

/**
 * Whether the run answers with one JSON document: oclif's rule (a command that takes --json, given
 * before any `--`, or GATEWAY_CONTENT_TYPE=json), or --fields, which picks from the same document,
 * where the command has it.
 */
export function jsonRequested(definition: CommandDefinition, argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  if (definition.flags?.fields !== undefined && givesFlag(argv, 'fields')) return true
  if (!definition.enableJsonFlag) return false
  if (env.GATEWAY_CONTENT_TYPE && env.GATEWAY_CONTENT_TYPE.toLowerCase() === 'json') return true
  const end = argv.indexOf('--')
  const json = argv.indexOf('--json')
  return json !== -1 && (end === -1 || json < end)
}

/** A line oclif's parser refused, as a usage error in the CLI's one style, naming a variable the operator set rather than a flag never typed. */
async function refusal(error: unknown, definition: CommandDefinition, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<Error> {
  const flags = {...definition.baseFlags, ...definition.flags}
  const {usageErrorFromParse} = await import('./parse-errors.js')
  const refused = usageErrorFromParse(error, [...Object.keys(flags), 'json'])
  for (const [name, flag] of Object.entries(flags) as Array<[string, {env?: string}]>) {
    if (flag.env && !typedFlag(argv, name) && env[flag.env] !== undefined && refused.message.startsWith(`--${name} `)) {
      return new UsageError(`${flag.env}${refused.message.slice(name.length + 2)}`)
    }
  }
  return refused
}

/** oclif's ExitError (`this.exit(code)`), known by its code: the fast path does not load oclif's errors. */
function exitRequested(error: unknown): number | undefined {
  const exit = error as {code?: unknown; oclif?: {exit?: unknown}} | undefined
  return exit?.code === 'EEXIT' ? (typeof exit.oclif?.exit === 'number' ? exit.oclif.exit : ExitCode.Unexpected) : undefined
}

export interface CommandRun {
  definition: CommandDefinition
  /** The words after the command's. */
  argv: readonly string[]
  /** The program's name, for the context of a process. */
  bin: string
  /** A context the caller chose (tests run commands in-process this way); without one the command runs as this process. */
  given?: CommandContext
  /** The line, when the caller has read it already (the fast path reads it to decide whether to run). */
  line?: CommandLine
  /** What the parser hands a flag's own reader. */
  parserContext?: unknown
  /** The command's logic, from its flags and arguments as read: what it answers is its --json document. */
  run(flags: Record<string, unknown>, args: Record<string, unknown>, ctx: CommandContext): Promise<unknown>
}

/**
 * Runs a command, start to end: reads its line (unless read already), sets the run's globals,
 * runs its logic, reports a failure (the error envelope under --json, the stderr lines, the exit
 * code of its kind), prints the --json document of a result. A command run as its own process
 * ends quietly when the reader of its stdout goes away (and says so in one line when stdout cannot
 * be written: src/cli/outcome.ts, guardStdout), and leaves its HTTP client to the
 * process's end (undici lets an idle connection hold no process; closing it first took a lookup
 * some 0.7 ms before its answer); one run in a caller's context closes it.
 */
export async function runCommand(command: CommandRun): Promise<unknown> {
  const asProcess = command.given === undefined
  const json = jsonRequested(command.definition, command.argv)
  let ctx = command.given
  let result: unknown
  let fields: string | undefined
  const setExitCode = (code: number) => {
    ctx!.exitCode = code
    if (asProcess) process.exitCode = code
  }
  try {
    if (!ctx) {
      ctx = await processContext(command.bin)
      // Run as its own process: a closed stdout ends the run quietly, one that cannot be written says so.
      guardStdout(ctx)
    }
    let line = command.line
    if (!line) {
      try {
        line = await readCommandLine(command.definition, command.argv, command.parserContext)
      } catch (error) {
        throw await refusal(error, command.definition, command.argv, ctx.env)
      }
    }
    fields = line.flags.fields as string | undefined
    ctx.globals = commandGlobals(line.flags as GlobalFlags, command.argv, ctx.env, json)
    result = await command.run(line.flags, line.args, ctx)
  } catch (error) {
    ctx ??= await processContext(command.bin)
    const exit = exitRequested(error)
    if (exit === undefined) await reportFailure(ctx, error as Error, json, setExitCode)
    else setExitCode(exit)
  }
  if (result && json) printResult(ctx, result, fields)
  if (!asProcess) await ctx.close()
  return result
}
