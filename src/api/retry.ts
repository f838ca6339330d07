import {parseRetryAfter, RETRYABLE_STATUSES} from './errors.js'
import {classifyFailure} from './network.js'

/**
 * When a request may be sent again:
 * - `safe`: after 429 (honouring Retry-After), 500, 502, 503, 504, and a connection that was
 *   reset, refused or timed out. For GETs, and for POSTs that carry an idempotency key, which the
 *   gateway answers with the original record however often they arrive.
 * - `before-send`: only when the connection failed before the request could have been sent
 *   (refused, no route, name lookup failed, connect timeout). For POSTs without an idempotency key.
 * - `never`.
 */
export type RetryMode = 'safe' | 'before-send' | 'never'

/**
 * Connection failures after which nothing reached the gateway, retried even without an idempotency
 * key. What a failure means (exit code, journal state) is decided by classifyFailure (network.ts).
 */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
])

/** Connection failures that may have happened after the request was sent: safe to repeat only when idempotent. */
export const RETRYABLE_CODES: ReadonlySet<string> = new Set([
  ...NOT_SENT_CODES,
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
])

/** The first error code found along an error's chain of causes. */
export function errorCode(error: unknown): string | undefined {
  const seen = new Set<unknown>()
  let current: unknown = error
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current)
    const {code} = current as {code?: unknown}
    if (typeof code === 'string' && code !== 'UND_ERR_REQ_RETRY' && code !== 'UND_ERR') return code
    current = (current as {cause?: unknown}).cause
  }
  return undefined
}

export interface RetryPolicyOptions {
  mode: RetryMode
  /** Retries after the first attempt. */
  retries: number
  /** Epoch milliseconds after which no new attempt starts. */
  deadline: number
  /** First backoff ceiling, milliseconds; it doubles with each retry up to `maxDelayMs`. */
  baseDelayMs: number
  maxDelayMs: number
  sleep: (ms: number) => Promise<void>
  random: () => number
  now: () => number
  /** One line per decision, for --debug. */
  trace?: (line: string) => void
  /** Describes a failure for the trace: "503", "connection reset". */
  describe: (failure: {status?: number; code?: string; error: unknown}) => string
}

/** What undici's retry handler hands the policy: a failed attempt's status and headers, or the network error. */
interface AttemptError {
  statusCode?: number
  headers?: Record<string, string | string[] | undefined>
}

/**
 * The retry policy, as the callback of undici's retry handler (the `retry` option of
 * `interceptors.retry`): undici re-dispatches the request and replays its body; this decides
 * whether to, and when. Exponential backoff with full jitter (a random wait between 0 and
 * base × 2^n, capped), Retry-After honoured, bounded by a number of retries and an overall deadline.
 */
export class RetryPolicy {
  /** Attempts started so far. */
  attempts = 1
  /** Why the policy stopped retrying, when it did (for the error message). */
  stopped?: string
  /**
   * Whether some attempt may have reached the gateway: it answered, or the connection failed under
   * it (a network failure that may come after sending). A failure to connect, and an error of this
   * program's own before the request left, reach nothing.
   */
  reached = false

  constructor(private readonly options: RetryPolicyOptions) {}

  /** Whether this failure may be retried at all under the mode. */
  eligible(status: number | undefined, code: string | undefined): boolean {
    const {mode} = this.options
    if (mode === 'never') return false
    if (mode === 'before-send') return status === undefined && code !== undefined && NOT_SENT_CODES.has(code)
    if (status !== undefined) return RETRYABLE_STATUSES.has(status)
    return code !== undefined && RETRYABLE_CODES.has(code)
  }

  /** The wait before the next attempt: Retry-After when the gateway gave one, else full jitter. */
  delay(failure: AttemptError): {ms: number; why: string} {
    const retryAfter = parseRetryAfter(failure.headers?.['retry-after'], this.options.now())
    if (retryAfter !== undefined && failure.statusCode !== undefined) return {ms: retryAfter, why: 'Retry-After'}
    const ceiling = Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (this.attempts - 1))
    return {ms: Math.round(this.options.random() * ceiling), why: 'backoff'}
  }

  /** undici's `retry` callback: calls back with nothing to retry, or with the error to give up. */
  readonly callback = (error: Error, _context: unknown, callback: (error?: Error | null) => void): void => {
    const failure = error as Error & AttemptError
    const status = typeof failure.statusCode === 'number' ? failure.statusCode : undefined
    const code = status === undefined ? errorCode(error) : undefined
    const {retries, deadline, trace} = this.options
    const what = this.options.describe({status, code, error})
    if (status !== undefined || classifyFailure(error).kind === 'maybe-sent') this.reached = true
    const total = retries + 1
    if (!this.eligible(status, code)) {
      callback(error)
      return
    }
    if (this.attempts > retries) {
      this.stopped = `after ${this.attempts} attempts`
      trace?.(`* attempt ${this.attempts} of ${total} failed (${what}): no retries left`)
      callback(error)
      return
    }
    const {ms, why} = this.delay(failure)
    if (this.options.now() + ms >= deadline) {
      this.stopped = `after ${this.attempts} attempt${this.attempts === 1 ? '' : 's'}: the next one (in ${ms} ms, ${why}) would pass the deadline`
      trace?.(`* attempt ${this.attempts} of ${total} failed (${what}): the wait of ${ms} ms (${why}) would pass the deadline; giving up`)
      callback(error)
      return
    }
    trace?.(`* attempt ${this.attempts} of ${total} failed (${what}): waiting ${ms} ms (${why}) before attempt ${this.attempts + 1}`)
    this.options.sleep(ms).then(
      () => {
        this.attempts += 1
        callback(null)
      },
      (sleepError: unknown) => callback(sleepError as Error),
    )
  }
}
