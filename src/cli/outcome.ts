// The start and the end of every command run, without oclif: the global settings read from the
// parsed flags, the --json document of a result, and the report of a failure (the error envelope,
// the stderr lines and the exit code). runCommand (src/cli/life-cycle.ts), which the oclif base
// class and the fast path both run, ends every run with these, so the two say the same things.
import {readlinkSync} from 'node:fs'

import {scrub} from '../api/redact.js'
import {UUID_PATTERN} from '../schemas/enums.js'
import {jsonDocument, type CommandContext, type Globals} from './context.js'
import {describeError, ExitCode, printable, ReportedError, UsageError} from './errors.js'
import {terminalText} from './terminal.js'

/** Whether the operator typed the flag (`--name VALUE` or `--name=VALUE`), rather than it taking its default or its variable. */
export function typedFlag(argv: readonly string[], name: string): boolean {
  return argv.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`))
}

/** Whether argv gives the flag (`--name`, `--name=VALUE`) before any `--`. */
export function givesFlag(argv: readonly string[], name: string): boolean {
  const end = argv.indexOf('--')
  return (end === -1 ? argv : argv.slice(0, end)).some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`))
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

/** Refuses an id that is not a UUID before anything is sent (the gateway would answer 422); sends it in lower case (ids are case-insensitive). */
export function requireTransactionId(id: string): string {
  if (!UUID_PATTERN.test(id)) throw new UsageError(`ID must be a UUID, e.g. 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11; got "${id}"`)
  return id.toLowerCase()
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

/** The global flags as parsed. */
export interface GlobalFlags {
  profile?: string
  'base-url'?: string
  timeout?: number
  debug?: boolean
  quiet?: boolean
  retries?: number
}

/** The run's global settings, from the parsed flags, the words typed (argv) and the environment. */
export function commandGlobals(flags: GlobalFlags, argv: readonly string[], env: NodeJS.ProcessEnv, json: boolean): Globals {
  const profileTyped = typedFlag(argv, 'profile')
  return {
    profile: checkProfileName(flags.profile ?? 'default', profileTyped || !env.GATEWAY_PROFILE ? '--profile' : 'GATEWAY_PROFILE'),
    profileChosen: profileTyped || Boolean(env.GATEWAY_PROFILE),
    baseUrl: flags['base-url'],
    timeoutMs: flags.timeout ?? 30_000,
    retries: flags.retries ?? 3,
    debug: flags.debug ?? false,
    quiet: flags.quiet ?? false,
    json,
  }
}

/** A command's result as the --json document: whole, or the fields --fields picked. */
export function printResult(ctx: CommandContext, result: unknown, fields: string | undefined): void {
  ctx.json(fields ? pickFields(result, fields.split(',')) : result)
}

/** Sets the run's exit code: on the context, and on the process when the command runs as one. */
export type SetExitCode = (code: number) => void

/**
 * Reports a failed run: under --json the error document on stdout (on stderr while a stream is
 * under way there), else the lines the error carries; then one stderr line per problem, and the
 * exit code of the error's kind.
 */
export async function reportFailure(ctx: CommandContext, error: Error, json: boolean, setExitCode: SetExitCode): Promise<void> {
  const {exitCode, payload, message, hint} = describeError(error)
  const report = error instanceof ReportedError ? error.report : undefined
  const secrets = await ctx.secrets()
  // oclif exits 1 on any error under --json; the exit code is set here, once, for both modes.
  setExitCode(exitCode)
  if (exitCode === ExitCode.Interrupted || exitCode === ExitCode.Terminated) return
  // Under --quiet, what the run would have said (notes, summaries), now that it failed: before the error.
  const held = ctx.io.held?.splice(0) ?? []
  if (held.length > 0) ctx.io.stderr.write(scrub(held.join(''), secrets))
  if (json) {
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

/**
 * For a command run as its own process, what a failed write to stdout means, at once (nothing more
 * can be said there). The reader went away (EPIPE, `| head`): no one is left to write for, and the
 * run stops quietly with exit 0, as Unix tools do. Any other failure (a full disk, an I/O error):
 * one line on stderr naming the output, the cause and the records a charge or payout made, exit 1.
 * Ahead of oclif's own listener, which would throw it.
 */
export function guardStdout(ctx: CommandContext): void {
  process.stdout.prependListener('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(ExitCode.Ok)
    ctx.io.stderr.write(outputFailureLine(ctx, error, stdoutName()))
    process.exit(ExitCode.Unexpected)
  })
}

/**
 * The line for output that could not be written: where, why, and what the run's charges and
 * payouts made (the journal holds them), so that nothing made goes unsaid.
 */
export function outputFailureLine(ctx: CommandContext, error: NodeJS.ErrnoException, output: string): string {
  const label = ctx.io.stampErrors ? `${new Date(ctx.now()).toISOString()} Error:` : ctx.paint('red', 'Error:')
  let line = `cannot write the output to ${printable(output)}: ${systemErrorText(error)}`
  const {made} = ctx
  const last = made.at(-1)
  if (made.length === 1 && last) {
    line += `. The ${last.one} ${last.id} was made, idempotency key ${last.idempotencyKey}; \`${ctx.bin} journal list\` shows it`
  } else if (made.length > 1 && last) {
    line += `. ${made.length} records were made before it, the last the ${last.one} ${last.id} (idempotency key ${last.idempotencyKey}); \`${ctx.bin} journal list\` shows them`
  }
  if (ctx.sending > 0) {
    // Rows of a batch still out at the gateway: their fate is unknown, their entries pending.
    const more = ctx.sending === 1 ? '1 more was being sent' : `${ctx.sending} more were being sent`
    line += `${made.length > 0 ? ';' : '.'} ${more}, pending in the journal: \`${ctx.bin} journal retry --yes\` settles ${ctx.sending === 1 ? 'it under its key' : 'them under their keys'}, sending nothing twice`
  }
  return terminalText(`${label} ${line}\n`, {lines: true, color: ctx.io.color})
}

/** "no space left on device (ENOSPC)": a system error in words, from Node's "ENOSPC: no space left on device, write". */
function systemErrorText(error: NodeJS.ErrnoException): string {
  const {code} = error
  const words = (code && error.message.startsWith(`${code}: `) ? error.message.slice(code.length + 2) : error.message).replace(/, (write|writev)$/, '')
  return code && !words.includes(code) ? `${words} (${code})` : words
}

/** What stdout is, for a person: the file it writes to, else a pipe or a socket. */
function stdoutName(): string {
  try {
    const target = readlinkSync('/proc/self/fd/1')
    if (target.startsWith('/')) return `standard output (${target})`
    if (target.startsWith('pipe:')) return 'standard output (a pipe)'
    if (target.startsWith('socket:')) return 'standard output (a socket)'
  } catch {
    // No /proc (not Linux): the stream alone is named.
  }
  return 'standard output'
}
