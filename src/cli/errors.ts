import {printable} from '../output/printable.js'
import {
  AuthError,
  ConfigError,
  GatewayError,
  InternalError,
  NotFoundError,
  RateLimitError,
  RejectedError,
  UnavailableError,
} from '../api/errors.js'

/**
 * The exit codes, in one place (the README's table is the same list):
 *   0 ok · 1 unexpected · 2 usage or validation, nothing sent · 3 authentication or permission
 *   4 not found · 5 rejected by the gateway · 6 rate limited after retries · 7 gateway or network failure
 *   8 `--watch` timed out · 9 `--watch` saw the record settle in another final status
 */
export const ExitCode = {
  Ok: 0,
  Unexpected: 1,
  Usage: 2,
  Auth: 3,
  NotFound: 4,
  Rejected: 5,
  RateLimited: 6,
  Unavailable: 7,
  WatchTimeout: 8,
  WatchSettled: 9,
  /** `deposits reconcile` reconciled, and found rows or deposits that do not match. */ Discrepancies: 10,
  /** Ctrl-C at a prompt or in the pager, as the signal would have ended the process. */
  Interrupted: 130,
  /** SIGTERM, as the signal would have ended the process. */
  Terminated: 143,
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

export interface CliErrorOptions {
  messages?: string[]
  hint?: string
  body?: unknown
  cause?: unknown
}

/**
 * What a command had already found when it failed, shown with the error: lines on stdout for a
 * person, fields beside `error` in the --json document.
 */
export interface Report {
  lines: string[]
  json: Record<string, unknown>
}

/** Attaches a report to an error, so the error and what the command found go out together. */
export class ReportedError extends Error {
  constructor(
    readonly error: unknown,
    readonly report: Report,
  ) {
    super(error instanceof Error ? error.message : String(error))
  }
}

/** An error of the CLI itself, with the exit code it ends the process with. */
export abstract class CliError extends Error {
  abstract readonly exitCode: ExitCode
  abstract readonly code: string
  readonly messages: string[]
  readonly hint?: string
  readonly body?: unknown

  constructor(message: string, options: CliErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : {cause: options.cause})
    this.name = new.target.name
    this.messages = options.messages ?? []
    this.hint = options.hint
    this.body = options.body
  }
}

/** Bad input: caught before anything was sent. */
export class UsageError extends CliError {
  readonly exitCode = ExitCode.Usage
  readonly code = 'USAGE'
}

/** A file the CLI writes could not be written whole (a full disk, an I/O error): the target was left as it was. */
export class WriteError extends CliError {
  readonly exitCode = ExitCode.Unexpected
  readonly code = 'WRITE_FAILED'
}

/** A file or folder the CLI must not touch: another user's, refused before anything is read or sent. */
export class PermissionError extends CliError {
  readonly exitCode = ExitCode.Auth
  readonly code = 'PERMISSION'
}

/** A watch ran out of time before the record reached the awaited status. */
export class WatchTimeoutError extends CliError {
  readonly exitCode = ExitCode.WatchTimeout
  readonly code = 'WATCH_TIMEOUT'
}

/** A watched record settled in a final status other than the awaited one. */
export class WatchSettledError extends CliError {
  readonly exitCode = ExitCode.WatchSettled
  readonly code = 'WATCH_SETTLED'
}

/** Ctrl-C (or SIGTERM): ends quietly with 130 (143), what was cut short having been said already. */
export class InterruptedError extends CliError {
  readonly exitCode: ExitCode
  readonly code = 'INTERRUPTED'

  constructor(signal: NodeJS.Signals = 'SIGINT') {
    super('interrupted')
    this.exitCode = signal === 'SIGTERM' ? ExitCode.Terminated : ExitCode.Interrupted
  }
}

/** The gateway client's error classes, each with the exit code it means. Subclasses first. */
const GATEWAY_EXIT: Array<[new (...args: never[]) => GatewayError, ExitCode, string?]> = [
  // A setting refused before anything was sent is a usage error to the operator.
  [ConfigError, ExitCode.Usage, 'USAGE'],
  // An error of the CLI's own (a bug), never the gateway being unavailable.
  [InternalError, ExitCode.Unexpected],
  [AuthError, ExitCode.Auth],
  [NotFoundError, ExitCode.NotFound],
  [RejectedError, ExitCode.Rejected],
  [RateLimitError, ExitCode.RateLimited],
  [UnavailableError, ExitCode.Unavailable],
]

export interface DescribedError {
  exitCode: ExitCode
  /** The `error` member of the --json document. */
  payload: Record<string, unknown>
  /** One line per problem. */
  message: string
  hint?: string
}

/** oclif's own parse errors (unknown flags, missing or invalid values): all usage errors. */
interface OclifError extends Error {
  oclif?: {exit?: number}
}


export {printable}

/** One line per problem: a CLI error's own list when it has one, else its message, each made printable. */
function problemLines(error: CliError): string {
  const problems = error.messages.length > 0 ? error.messages : [error.message]
  return problems.map(printable).join('\n')
}

/** Every error the CLI can meet, mapped to its exit code and its --json payload: the one map. */
export function describeError(error: unknown): DescribedError {
  if (error instanceof ReportedError) return describeError(error.error)
  if (error instanceof CliError) {
    return {exitCode: error.exitCode, payload: payloadOf(error.code, error.exitCode, error), message: problemLines(error), hint: error.hint}
  }
  if (error instanceof GatewayError) {
    const [, exitCode, code] = GATEWAY_EXIT.find(([type]) => error instanceof type) ?? [GatewayError, ExitCode.Unexpected]
    return {exitCode, payload: payloadOf(code ?? error.code, exitCode, error), message: printable(error.message), hint: error.hint}
  }
  const oclif = (error as OclifError | undefined)?.oclif
  if (error instanceof Error && oclif) {
    const message = oneLine(error.message)
    const exitCode = (oclif.exit === undefined || oclif.exit === 1 ? ExitCode.Usage : oclif.exit) as ExitCode
    return {exitCode, payload: {code: 'USAGE', exitCode, message}, message}
  }
  const message = error instanceof Error ? error.message : String(error)
  return {exitCode: ExitCode.Unexpected, payload: {code: 'UNEXPECTED', exitCode: ExitCode.Unexpected, message}, message}
}

function payloadOf(
  code: string,
  exitCode: ExitCode,
  error: {message: string; messages: string[]; hint?: string; body?: unknown; status?: number},
): Record<string, unknown> {
  return {
    code,
    exitCode,
    message: error.message,
    ...(error.status === undefined ? {} : {status: error.status}),
    ...(error.messages.length > 0 ? {messages: error.messages} : {}),
    ...(error.hint === undefined ? {} : {hint: error.hint}),
    ...(error.body === undefined ? {} : {body: error.body}),
  }
}

function oneLine(message: string): string {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !/^See more help with/.test(line))
    .join(' ')
}
