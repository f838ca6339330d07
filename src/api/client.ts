import type {Dispatcher} from 'undici'

import {AuthError, CertificateRefusedError, CertificateRequiredError, RefusedByNetworkError, GatewayError, InternalError, UnavailableError, errorForStatus, messagesOf, type GatewayErrorOptions} from './errors.js'
import {classifyFailure, describeNetworkError} from './network.js'
import {redactBody, redactHeader, scrub} from './redact.js'
import {RetryPolicy, type RetryMode} from './retry.js'
import {REPLAY_HEADER} from '../schemas/enums.js'
import {isExpired, needsRenewal, parseTokenResponse, TokenTypeError, type StoredToken, type TokenStore} from './token.js'
import {certificatePage, htmlSummary, type TlsSettings} from './tls.js'
import {openTransport, type Route, type Transport} from './transport.js'

/** Milliseconds on a monotonic clock, for how long an attempt took (performance.now() would load node:perf_hooks on first use). */
const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6

/**
 * The largest header block an answer may have: Node's own default, whatever NODE_OPTIONS says, so
 * that a gateway's headers are bounded the same on every machine (and undici need not load
 * node:http to ask).
 */
const MAX_HEADER_BYTES = 16 * 1024

/** The most a gateway's answer may hold: 16 MiB. A larger one is refused, never read whole. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024

/** Answers up to this size are joined in one buffer used again (see joinedText); larger ones in their own. */
const JOINED_LIMIT = 1024 * 1024
let joined: Buffer | undefined

/**
 * An answer's chunks as text. In one chunk, that chunk's; in several, joined in one buffer this
 * module keeps and uses again, then read as text (which copies it): a page of deposits is some 110
 * KB in two or three chunks, and a new buffer each time waited outside V8's heap until its next
 * collection (an export of 100,000 deposits joins a thousand of them).
 */
function joinedText(chunks: readonly Buffer[], size: number): string {
  if (size === 0) return ''
  if (chunks.length === 1) return chunks[0].toString('utf8')
  if (size > JOINED_LIMIT) return Buffer.concat(chunks, size).toString('utf8')
  if (!joined || joined.length < size) joined = Buffer.allocUnsafeSlow(Math.max(size, 128 * 1024))
  let at = 0
  for (const chunk of chunks) at += chunk.copy(joined, at)
  return joined.toString('utf8', 0, size)
}

/** An answer refused for its size: more than the client reads of one. */
export class AnswerTooLargeError extends UnavailableError {
  override readonly code = 'ANSWER_TOO_LARGE'
}

/** "16 MiB", "512 KiB": a size in bytes for people. */
function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}

export type QueryValue = string | number | boolean | undefined | null | Array<string | number>

export interface ClientOptions {
  /** Absolute base URL, already checked (see checkBaseUrl). */
  baseUrl: string
  /** Where the bearer token is cached and renewed. Needed for every call but the token call. */
  tokens?: TokenStore
  /** Per-request timeout, milliseconds: each attempt whole, from connecting to the last byte of the answer. */
  timeoutMs?: number
  /** The largest answer read, bytes (default MAX_BODY_BYTES). */
  maxBodyBytes?: number
  /** Receives each HTTP exchange, secrets redacted, one line at a time. */
  trace?: (line: string) => void
  userAgent?: string
  /** Retries after a failed attempt, for the requests that may be retried (default 3). */
  retries?: number
  /**
   * The overall deadline of one request, retries and waits included, milliseconds. Default: two
   * minutes, or twice the timeout when that is longer.
   */
  deadlineMs?: number
  /** The first backoff ceiling (default 250 ms); it doubles with each retry, up to `maxDelayMs` (default 10 s). */
  baseDelayMs?: number
  maxDelayMs?: number
  /** How the client waits between attempts (tests make it instant). */
  sleep?: (ms: number) => Promise<void>
  random?: () => number
  /** Where proxies, CA files and the rest are read from (default process.env). */
  env?: NodeJS.ProcessEnv
  /** The client certificate and trusted CA file of the profile (see tls.ts). */
  tls?: TlsSettings
}

export interface RequestOptions {
  query?: Record<string, QueryValue>
  json?: unknown
  form?: Record<string, string>
  headers?: Record<string, string>
  /** Send the bearer token (default true). */
  auth?: boolean
  /** How the request is named in errors, e.g. "transaction lookup". */
  context?: string
  /** How long each attempt may take whole: connecting, the headers and the body. */
  timeoutMs?: number
  /** The overall deadline, retries included (see ClientOptions.deadlineMs). */
  deadlineMs?: number
  /**
   * The request's idempotency key. It makes a POST safe to retry (the gateway answers the original
   * record to a repeat), and a failure that leaves the outcome unknown names it, to be reused.
   */
  idempotencyKey?: string
  /**
   * When the request may be sent again (see RetryMode). Default: `safe` for GET and for a POST with
   * an idempotency key; `before-send` for any other POST (again only when nothing left).
   */
  retry?: RetryMode
}

export interface ApiResponse<T> {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: T
  /** How many attempts it took. */
  attempts: number
}

/** Whether an answer is the gateway's replay of an earlier request with the same idempotency key. */
export function isReplay(headers: Record<string, string | string[] | undefined>): boolean {
  const value = headers[REPLAY_HEADER]
  return String(Array.isArray(value) ? value[0] : value).trim().toLowerCase() === 'true'
}

/**
 * The one door every request to the gateway goes through: it joins the URL, sends the bearer token
 * (renewing it before it expires, and once more after a 401), traces the exchange with secrets
 * redacted, and turns every failure into a typed GatewayError.
 */
export class GatewayClient {
  readonly baseUrl: string
  readonly timeoutMs: number
  readonly retries: number
  private readonly tokens?: TokenStore
  private readonly trace?: (line: string) => void
  private readonly userAgent: string
  private readonly options: ClientOptions
  private agent?: Dispatcher
  private retrying?: Dispatcher
  private transport?: Transport
  private readonly known = new Set<string>()
  /** A token that serves this command only (the gateway gave it no usable lifetime): never stored. */
  private held?: StoredToken

  constructor(options: ClientOptions) {
    this.options = options
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.tokens = options.tokens
    this.timeoutMs = options.timeoutMs ?? 30_000
    this.retries = Math.max(0, Math.trunc(options.retries ?? 3))
    this.trace = options.trace
    this.userAgent = options.userAgent ?? `gateway-cli node/${process.versions.node}`
  }

  url(path: string, query?: Record<string, QueryValue>): URL {
    const url = new URL(this.baseUrl + (path.startsWith('/') ? path : `/${path}`))
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(item))
    }
    return url
  }

  /** Exchanges client credentials for a token at {base}/auth/token. */
  async fetchToken(credentials: {clientId: string; clientSecret: string}): Promise<StoredToken> {
    this.known.add(credentials.clientSecret)
    const response = await this.send<unknown>('POST', '/auth/token', {
      auth: false,
      context: 'the token request',
      form: {grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret},
    }).catch((error: unknown) => {
      // A 400 from the token endpoint means malformed credentials: an authentication problem.
      // Not an answer about the credentials: a certificate the gateway wants, a file or a setting refused before sending.
      if (error instanceof CertificateRequiredError || error instanceof CertificateRefusedError || (error instanceof AuthError && error.status === undefined)) throw error
      if (error instanceof GatewayError && error.status === 400) {
        throw new AuthError(`the gateway at ${this.baseUrl} refused the credentials as malformed (400)${detail(error)}`, {
          status: 400,
          body: error.body,
          messages: error.messages,
        })
      }
      if (error instanceof AuthError) {
        throw new AuthError(`the gateway at ${this.baseUrl} refused the client credentials (${error.status})${detail(error)}`, {
          status: error.status,
          body: error.body,
          messages: error.messages,
          hint: `Check the client id and secret, then run \`gateway login --base-url ${this.baseUrl}\` again.`,
        })
      }
      throw error
    })
    let token: StoredToken
    try {
      token = parseTokenResponse(response.body, {clientId: credentials.clientId, baseUrl: this.baseUrl})
    } catch (error) {
      if (error instanceof TokenTypeError) {
        throw new AuthError(`${error.message}: it was neither stored nor sent`, {
          status: response.status,
          hint: 'This client sends bearer tokens only; ask the gateway for a Bearer token.',
        })
      }
      throw new UnavailableError(`the token answer is unusable: ${(error as Error).message}`, {status: response.status})
    }
    this.known.add(token.accessToken)
    return token
  }

  /**
   * A token valid for at least the renewal margin, from the cache when it can, renewed under the
   * store's lock otherwise, so that concurrent processes obtain one token between them.
   * `stale` names a token the gateway just refused: it is never answered again.
   */
  async accessToken(stale?: string): Promise<StoredToken> {
    const store = this.tokens
    if (!store) throw new AuthError('no credentials: log in first with `gateway login`')
    const credentials = await store.credentials()
    /** Issued for this gateway and these credentials, and not the one just refused. */
    const ours = (token: StoredToken | undefined): token is StoredToken =>
      token !== undefined &&
      token.accessToken !== stale &&
      token.baseUrl === this.baseUrl &&
      (!credentials || credentials.clientId === token.clientId)
    // A token without a usable lifetime serves the command that got it, until the gateway refuses it.
    if (ours(this.held)) return this.held
    const cached = await store.read()
    if (ours(cached) && !cached.commandOnly && !needsRenewal(cached)) return this.remember(cached)
    return store.locked(async () => {
      const current = await store.read()
      if (ours(current) && !current.commandOnly && !needsRenewal(current)) return this.remember(current)
      if (!credentials) {
        throw new AuthError(`not logged in: no client credentials are stored for ${store.profile === undefined ? 'this profile' : `profile "${store.profile}"`}`, {
          hint: 'Run `gateway login`, or set GATEWAY_CLIENT_ID and GATEWAY_CLIENT_SECRET.',
        })
      }
      let token: StoredToken
      try {
        token = await this.fetchToken(credentials)
      } catch (error) {
        // The gateway is down but the cached token still works: use it rather than fail.
        if (error instanceof UnavailableError && ours(current) && !isExpired(current, Date.now() + 5000)) return this.remember(current)
        throw error
      }
      if (token.commandOnly) {
        this.held = token
        return token
      }
      await store.write(token)
      return token
    })
  }

  private remember(token: StoredToken): StoredToken {
    this.known.add(token.accessToken)
    return token
  }

  /** Sends one request and answers the parsed body; any non-2xx answer throws a typed error. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    if (options.auth === false) return this.send<T>(method, path, options)
    let token = await beforeSending(() => this.accessToken(), options, `${method} ${path}`)
    try {
      return await this.send<T>(method, path, options, token.accessToken)
    } catch (error) {
      if (!(error instanceof GatewayError) || error.status !== 401) throw error
      this.trace?.('* the gateway refused the token (401): renewing it and retrying once')
      token = await this.accessToken(token.accessToken)
      return this.send<T>(method, path, options, token.accessToken)
    }
  }

  /** The connection pool, and the same pool behind undici's retry interceptor. */
  private async dispatchers(): Promise<{plain: Dispatcher; retrying: Dispatcher}> {
    if (!this.agent || !this.retrying) {
      const {interceptors} = await import('undici')
      // Directly or through a proxy, with the trusted CAs and the client certificate (transport.ts).
      this.transport = await openTransport({baseUrl: this.baseUrl, timeoutMs: this.timeoutMs, maxHeaderSize: MAX_HEADER_BYTES, env: this.options.env ?? process.env, tls: this.options.tls}).catch((error: unknown) => {
        // A proxy, a certificate or a setting refused before connecting: nothing was sent.
        if (error instanceof GatewayError && !error.notSent) throw new (error.constructor as ErrorClass)(error.message, {...errorOptions(error), notSent: true})
        throw error
      })
      for (const secret of this.transport.secrets) this.known.add(secret)
      const {route} = this.transport
      this.emit(route.proxy ? `* through the proxy ${route.proxy} (from ${route.proxyVariable})` : `* no proxy: ${route.direct}`)
      this.agent = this.transport.dispatcher
      // The policy comes with each request (retryOptions): which failures, how long to wait, when to stop.
      this.retrying = this.agent.compose(interceptors.retry({throwOnError: false}))
    }
    return {plain: this.agent, retrying: this.retrying}
  }

  /**
   * The request's retry mode: GETs, and POSTs with an idempotency key, are safe to repeat; any other
   * request only when its connection failed before anything was sent.
   */
  private retryMode(method: string, options: RequestOptions): RetryMode {
    if (this.retries === 0) return 'never'
    if (options.retry) return options.retry
    if (method === 'GET' || method === 'HEAD') return 'safe'
    return options.idempotencyKey ? 'safe' : 'before-send'
  }

  private async send<T>(method: string, path: string, options: RequestOptions, bearer?: string): Promise<ApiResponse<T>> {
    // The request made ready: undici loaded and its pool set up, the URL, headers and body. An error
    // here is this program's own, and nothing has left.
    const {dispatchers, url, headers, body} = await beforeSending(
      async () => {
        const dispatchers = await this.dispatchers()
        const headers: Record<string, string> = {
          accept: 'application/json',
          'user-agent': this.userAgent,
          ...options.headers,
        }
        let body: string | undefined
        if (options.form) {
          headers['content-type'] = 'application/x-www-form-urlencoded'
          body = new URLSearchParams(options.form).toString()
        } else if (options.json !== undefined) {
          headers['content-type'] = 'application/json'
          body = JSON.stringify(options.json)
        }
        if (bearer) headers.authorization = `Bearer ${bearer}`
        return {dispatchers, url: this.url(path, options.query), headers, body}
      },
      options,
      `${method} ${path}`,
    )
    const context = options.context ?? `${method} ${url.pathname}`
    const timeoutMs = options.timeoutMs ?? this.timeoutMs
    const mode = this.retryMode(method, options)
    const deadlineMs = options.deadlineMs ?? this.options.deadlineMs ?? (mode === 'never' ? timeoutMs : Math.max(120_000, 2 * timeoutMs))
    const policy = new RetryPolicy({
      mode,
      retries: this.retries,
      deadline: Date.now() + deadlineMs,
      baseDelayMs: this.options.baseDelayMs ?? 250,
      maxDelayMs: this.options.maxDelayMs ?? 10_000,
      sleep: this.options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      random: this.options.random ?? Math.random,
      now: Date.now,
      trace: this.trace ? (line) => this.emit(line) : undefined,
      describe: ({status, error}) => (status === undefined ? describeNetworkError(error) : String(status)),
    })
    const started = monotonicMs()
    // When the current attempt began: the timeout bounds each attempt whole, its body included.
    let attemptStarted = started
    const retry = (error: Error, context: unknown, callback: (error?: Error | null) => void) =>
      policy.callback(error, context, (outcome) => {
        if (!outcome) attemptStarted = monotonicMs()
        callback(outcome)
      })
    if (this.trace) {
      this.emit(`> ${method} ${url.href}`)
      for (const [name, value] of Object.entries(headers)) this.emit(`> ${name}: ${redactHeader(name, value)}`)
      if (body) this.emit(`> ${redactBody(body, headers['content-type'])}`)
    }
    let status: number | undefined
    let responseHeaders: Record<string, string | string[] | undefined>
    let text: string
    try {
      // undici's own Dispatcher.request(): the dispatcher is the one asked, and the URL is given as origin and path.
      const dispatcher = mode === 'never' ? dispatchers.plain : dispatchers.retrying
      const response = await dispatcher.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: method as 'GET',
        headers,
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        // Each attempt has its timeout (above); the signal bounds them all, waits included.
        signal: AbortSignal.timeout(deadlineMs),
        ...(mode === 'never' ? {} : {retryOptions: {throwOnError: false, retry}}),
      } as Dispatcher.RequestOptions)
      status = response.statusCode
      responseHeaders = response.headers
      text = await this.readBody(response, {timeoutMs, left: timeoutMs - (monotonicMs() - attemptStarted), context})
    } catch (error) {
      if (error instanceof AnswerTooLargeError) {
        this.emit(`< refused after ${Math.round(monotonicMs() - started)} ms: ${error.message}`)
        throw this.finalError(AnswerTooLargeError, error.message, {retryable: true}, policy, options)
      }
      // A TLS or proxy failure is named by its cause, with its fix (src/api/transport.ts).
      const named = await this.transport?.name(error)
      if (named) {
        this.emit(`< failed after ${Math.round(monotonicMs() - started)} ms: ${named.message}`)
        throw this.finalError(named.Type, `${named.message} (${context})`, {cause: error, hint: named.hint, retryable: named.retryable, notSent: named.notSent}, policy, options)
      }
      // What failed decides what it means (src/api/network.ts): only the network is the gateway being unavailable.
      const failure = classifyFailure(error)
      this.emit(`< failed after ${Math.round(monotonicMs() - started)} ms: ${failure.reason}`)
      if (failure.kind === 'internal') {
        // Before any answer, and with no attempt that reached the gateway, the request never left:
        // undici builds and checks a request before it writes it.
        const answered = status !== undefined || policy.reached
        throw this.finalError(
          InternalError,
          `${context}: ${answered ? "an error of this program while reading the gateway's answer" : 'an error of this program before the request left'}, not of the gateway or the network (${failure.reason})`,
          {cause: error, retryable: answered, notSent: !answered, hint: INTERNAL_HINT},
          policy,
          options,
        )
      }
      if (failure.kind === 'certificate-required') {
        throw this.finalError(
          CertificateRequiredError,
          `${url.origin} asks for a client certificate, and none was given (${context})`,
          {cause: error, notSent: !policy.reached},
          policy,
          options,
        )
      }
      // Provably never sent: no attempt reached the gateway, and the last could not even connect.
      const notSent = !policy.reached && failure.kind === 'not-sent'
      throw this.finalError(
        UnavailableError,
        `could not reach the gateway at ${url.origin} (${context}): ${failure.reason}`,
        {cause: error, retryable: true, notSent},
        policy,
        options,
      )
    }
    const contentType = String(responseHeaders['content-type'] ?? '')
    if (this.trace) {
      const attempt = policy.attempts > 1 ? `, attempt ${policy.attempts} of ${this.retries + 1}` : ''
      this.emit(`< ${status} (${Math.round(monotonicMs() - started)} ms${attempt})`)
      for (const [name, value] of Object.entries(responseHeaders)) {
        this.emit(`< ${name}: ${redactHeader(name, Array.isArray(value) ? value.join(', ') : String(value))}`)
      }
      if (text) this.emit(`< ${redactBody(text, contentType)}`)
    }
    let parsed: unknown = text
    if (text && (contentType.includes('json') || /^[[{]/.test(text.trimStart()))) {
      try {
        parsed = JSON.parse(text)
      } catch {
        parsed = text
      }
    } else if (!text) {
      parsed = undefined
    }
    if (status < 200 || status >= 300) {
      // A web server's page for a client certificate it wanted (nginx's 400), and any HTML page in a few words.
      const page = typeof parsed === 'string' ? certificatePage(status, parsed) : undefined
      if (page === 'refused') {
        throw new CertificateRefusedError(`the gateway at ${url.origin} refused the client certificate (${context}: ${status})`, {
          status,
          body: parsed,
          notSent: true,
          hint: 'Check that the certificate is the one the gateway issued for these credentials, and that it has not expired.',
        })
      }
      if (page) {
        throw new CertificateRequiredError(
          page === 'missing'
            ? `the gateway at ${url.origin} asks for a client certificate (mutual TLS), and none was sent (${context}: ${status})`
            : `the gateway at ${url.origin} refused the client certificate (${context}: ${status})`,
          {status, body: parsed, notSent: true, hint: 'Log in with the client certificate the gateway issued: `gateway login --cert CERT.pem --key KEY.pem`, or `--p12 FILE.p12`.'},
        )
      }
      const summary = typeof parsed === 'string' ? htmlSummary(parsed) : undefined
      // A 403 that is an HTML page is a firewall's or a web server's rule, not a verdict on the credentials.
      if (status === 403 && summary) {
        throw new RefusedByNetworkError(`${context} was refused by what answers at ${url.origin} (403, ${summary}): a network rule or the gateway, not the credentials`, {
          status,
          body: parsed,
          hint: 'Ask whoever runs the network or the gateway whether this machine may reach it (an allow-list of addresses, a firewall rule).',
        })
      }
      const error = errorForStatus(status, summary ?? parsed, context, responseHeaders)
      throw this.finalError(error.constructor as ErrorClass, error.message, {...errorOptions(error), body: parsed}, policy, options)
    }
    return {status, headers: responseHeaders, body: parsed as T, attempts: policy.attempts}
  }

  /**
   * The answer's body as text, read as it arrives: refused (and the connection dropped) as soon as
   * it is larger than the client reads, or when the attempt's timeout runs out before its last byte.
   */
  private readBody(
    response: {headers: Record<string, string | string[] | undefined>; body: BodyStream},
    limits: {timeoutMs: number; left: number; context: string},
  ): Promise<string> {
    const max = this.options.maxBodyBytes ?? MAX_BODY_BYTES
    const tooLarge = () =>
      new AnswerTooLargeError(`the gateway's answer is larger than ${sizeText(max)} (${limits.context}): it was not read`, {retryable: true})
    const {body} = response
    const declared = Number(response.headers['content-length'])
    if (Number.isFinite(declared) && declared > max) {
      body.destroy()
      return Promise.reject(tooLarge())
    }
    // Read with the stream's own events: an async iterator over it costs a lookup a few hundred
    // microseconds more to set up and to end.
    return new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = []
      let size = 0
      let timedOut: Error | undefined
      let settled = false
      const timer = setTimeout(() => {
        timedOut = Object.assign(new Error(`the answer did not arrive in full within ${limits.timeoutMs} ms`), {code: 'UND_ERR_BODY_TIMEOUT'})
        body.destroy(timedOut)
      }, Math.max(0, limits.left))
      const settle = (error?: unknown) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        if (error === undefined) resolve(joinedText(chunks, size))
        else reject(error instanceof AnswerTooLargeError || timedOut === undefined ? error : timedOutOr(error, timedOut))
      }
      body.on('data', (chunk: Buffer) => {
        if (settled) return
        size += chunk.length
        if (size > max) {
          settle(tooLarge())
          body.destroy()
          return
        }
        chunks.push(chunk)
      })
      body.once('end', () => settle())
      body.once('error', (error: unknown) => settle(error))
      // Closed without its end or an error (destroyed from elsewhere): the answer is cut short.
      body.once('close', () => settle(Object.assign(new Error('the answer was cut short'), {code: 'ERR_STREAM_PREMATURE_CLOSE'})))
    })
  }

  /**
   * The error of a failed request, with how many attempts were made; when the outcome is unknown
   * (or the gateway asked to come back later), it names the idempotency key that makes sending it
   * again safe.
   */
  private finalError(
    Type: ErrorClass,
    message: string,
    options: GatewayErrorOptions,
    policy: RetryPolicy,
    request: RequestOptions,
  ): GatewayError {
    let text = message
    if (policy.stopped) text += ` (gave up ${policy.stopped})`
    // "Not sent" speaks of every attempt, not the last one: once an earlier attempt may have reached
    // the gateway, whatever a later one met (a proxy, a TLS handshake, a refused connection, an error
    // of this program), the request may have been acted on.
    const earlier = options.notSent === true && policy.reached
    const notSent = options.notSent === true && !policy.reached
    // The outcome is then unknown, as after a reset: the key makes the next try safe (a money
    // command adds that its entry is pending, and how `journal retry` settles it).
    const retryable = options.retryable === true || earlier
    if (notSent) text += '; nothing was sent'
    // Only a request that makes something (it carries an idempotency key) is said to be made.
    else if (earlier) text += `; an earlier attempt may have reached the gateway${request.idempotencyKey ? ': the gateway may have made it' : ''}`
    if (!notSent && request.idempotencyKey && retryable) {
      text += `; idempotency key ${request.idempotencyKey}: send the request again with it to retry safely`
    }
    return new Type(text, {...options, notSent, retryable, attempts: policy.attempts, idempotencyKey: request.idempotencyKey})
  }

  private emit(line: string): void {
    this.trace?.(scrub(line, this.known))
  }

  /** The way to the gateway: through which proxy, or directly and why (nothing is opened). */
  async route(): Promise<Route> {
    const {routeTo} = await import('./transport.js')
    const {proxy, proxyVariable, direct} = routeTo(this.baseUrl, this.options.env ?? process.env)
    return {proxy, proxyVariable, direct}
  }

  /** The secrets this client has handled, so that whatever prints an error can blank them out. */
  secrets(): string[] {
    return [...this.known]
  }

  async close(): Promise<void> {
    const agent = this.agent
    this.agent = undefined
    await agent?.close()
  }

  /** Drops every connection at once, requests in flight included (the process is being interrupted). */
  async destroy(): Promise<void> {
    const agent = this.agent
    this.agent = undefined
    await agent?.destroy().catch(() => undefined)
  }
}

type ErrorClass = new (message: string, options?: GatewayErrorOptions) => GatewayError

/** What an error of the program's own asks of the operator. */
const INTERNAL_HINT = 'This is a bug of this program, not a failure of the gateway: run the command again with --debug for its trace, and report it.'

/**
 * Runs a step that comes before the request is handed to undici: an error in it that is not the
 * client's own (a bug, an option undici refuses) is this program's, before anything left.
 */
async function beforeSending<T>(work: () => Promise<T>, request: RequestOptions, what: string): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof GatewayError) throw error
    const {name, message} = error instanceof Error ? error : {name: 'Error', message: String(error)}
    // A failed system call (a file that cannot be read) is no bug: said as it is, without the bug's hint.
    const system = typeof (error as {syscall?: unknown} | undefined)?.syscall === 'string'
    throw new InternalError(`${request.context ?? what}: an error of this program before the request left, not of the gateway or the network (${name}: ${message}); nothing was sent`, {
      cause: error,
      notSent: true,
      ...(system ? {} : {hint: INTERNAL_HINT}),
      idempotencyKey: request.idempotencyKey,
    })
  }
}

function errorOptions(error: GatewayError): GatewayErrorOptions {
  return {
    status: error.status,
    body: error.body,
    messages: error.messages,
    hint: error.hint,
    retryable: error.retryable,
    retryAfterMs: error.retryAfterMs,
    cause: error.cause,
    notSent: error.notSent,
  }
}

/** What the client reads of an answer's body: undici's, a Node stream. */
interface BodyStream {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown
  once(event: 'end' | 'close', listener: () => void): unknown
  once(event: 'error', listener: (error: unknown) => void): unknown
  destroy(error?: Error): unknown
}

/** The timeout's own error when the body was cut off by it (undici may wrap or replace it). */
function timedOutOr(error: unknown, timedOut: Error): unknown {
  let current: unknown = error
  for (let depth = 0; current && depth < 5; depth += 1) {
    if (current === timedOut) return timedOut
    current = (current as {cause?: unknown}).cause
  }
  return error
}

function detail(error: GatewayError): string {
  const messages = error.messages.length > 0 ? error.messages : messagesOf(error.body)
  return messages.length > 0 ? `: ${messages.join('; ')}` : ''
}
