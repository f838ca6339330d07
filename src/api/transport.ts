import type {buildConnector as BuildConnector, Dispatcher} from 'undici'

import {CertificateRefusedError, CertificateRequiredError, InsecureTlsError, ProxyError, TlsError, type AuthError, type GatewayErrorOptions, type UnavailableError} from './errors.js'
import {describeNetworkError} from './network.js'
import {chooseProxy, isLiteralLoopback, type ProxyChoice} from './proxy.js'
import {USERINFO_RULE} from './redact.js'
import {errorCode, NOT_SENT_CODES} from './retry.js'
import {asksForCertificate, connectOptions, describeTlsFailure, hasClientCertificate, type TlsConnectOptions, type TlsSettings} from './tls.js'

/**
 * How the client reaches its gateway: directly or through a proxy (proxy.ts), with which trusted
 * CAs and client certificate (tls.ts), and `localhost` resolved without DNS. Made once per client,
 * when its first request is sent; a plain http (loopback) gateway loads no CA. Its failures are
 * the errors of errors.ts (TlsError, ProxyError, CertificateRequiredError, InsecureTlsError).
 */
export interface TransportOptions {
  baseUrl: string
  /** Connect timeout, milliseconds. */
  timeoutMs: number
  maxHeaderSize: number
  env: NodeJS.ProcessEnv
  tls?: TlsSettings
}

/** A failure turned into the error the client throws. */
export interface NamedFailure {
  Type: new (message: string, options?: GatewayErrorOptions) => UnavailableError | AuthError
  message: string
  hint?: string
  notSent: boolean
  retryable: boolean
}

/** What `auth status` and --debug say about the way to the gateway. */
export interface Route {
  /** The proxy as it may be shown (no credentials), and the variable that named it. */
  proxy?: string
  proxyVariable?: string
  /** Why there is no proxy. */
  direct?: string
}

export interface Transport {
  dispatcher: Dispatcher
  route: Route
  /** Secrets the transport holds (a proxy's credentials, a key's passphrase), to scrub from every text. */
  secrets: string[]
  /** A failed request's error in words, when it is the proxy's or a TLS failure; undefined otherwise. */
  name(error: unknown): Promise<NamedFailure | undefined>
}

/** The variable that turns Node's certificate checks off. */
const INSECURE = 'NODE_TLS_REJECT_UNAUTHORIZED'

/** Refuses (exit 3, nothing sent) to talk to a gateway that is not loopback while certificate checks are off. */
export function refuseInsecure(target: URL, env: NodeJS.ProcessEnv): void {
  if (env[INSECURE] !== '0' || isLiteralLoopback(target.hostname)) return
  throw new InsecureTlsError(`${INSECURE}=0 turns certificate checks off: no secret, token or request is sent to ${target.origin}, which is not loopback`, {
    notSent: true,
    hint: `Unset ${INSECURE}. To trust a gateway's private CA, give it with \`gateway login --ca-file CA.pem\` (or GATEWAY_CA_FILE).`,
  })
}

/** The way to a gateway without opening anything: for `auth status` and the trace. */
export function routeTo(baseUrl: string, env: NodeJS.ProcessEnv): Route & {choice?: ProxyChoice} {
  const decision = chooseProxy(new URL(baseUrl), env)
  if (decision.proxy) return {proxy: decision.proxy.shown, proxyVariable: decision.proxy.variable, choice: decision.proxy}
  return {direct: decision.direct}
}

/** `localhost` as loopback, without asking DNS or /etc/hosts; any other name as Node looks it up. */
export function loopbackLookup(fallback: typeof import('node:dns').lookup) {
  return (hostname: string, options: {all?: boolean; family?: number | string}, callback: (...args: unknown[]) => void): void => {
    if (hostname.toLowerCase() !== 'localhost') {
      fallback(hostname, options as never, callback as never)
      return
    }
    const family = Number(String(options?.family ?? 0).replace('IPv', ''))
    const addresses = [
      {address: '127.0.0.1', family: 4},
      {address: '::1', family: 6},
    ].filter((entry) => !family || entry.family === family)
    if (options?.all) callback(null, addresses)
    else callback(null, addresses[0].address, addresses[0].family)
  }
}

export async function openTransport(options: TransportOptions): Promise<Transport> {
  const target = new URL(options.baseUrl)
  refuseInsecure(target, options.env)
  const {choice, ...route} = routeTo(options.baseUrl, options.env)
  const https = target.protocol === 'https:'
  const settings = options.tls ?? {}
  const tls: Partial<TlsConnectOptions> = https ? await connectOptions(settings, options.env) : {}
  const withCertificate = https && hasClientCertificate(settings)
  const lookup = target.hostname.toLowerCase() === 'localhost' ? loopbackLookup((await import('node:dns')).lookup) : undefined
  const {Agent, ProxyAgent, Pool, buildConnector} = await import('undici')
  // A TLS error seen on a connection: a TLS 1.3 server's alert arrives after the handshake, while
  // the request sees only the connection closing.
  let alert: unknown
  const watch = (connect: BuildConnector.connector): BuildConnector.connector => (opts, callback) =>
    connect(opts, (error, socket) => {
      if (error) alert = error
      socket?.on('error', (cause: unknown) => {
        if (/^(ERR_SSL_|ERR_TLS_)|CERT/.test(errorCode(cause) ?? '')) alert = cause
      })
      ;(callback as (error: Error | null, socket: unknown) => void)(error, socket)
    })
  const common = {connections: 16, keepAliveTimeout: 4000, maxHeaderSize: options.maxHeaderSize}
  let dispatcher: Dispatcher
  if (choice) {
    dispatcher = new ProxyAgent({
      ...common,
      uri: choice.url.href,
      requestTls: {...(tls.secureContext ? {secureContext: tls.secureContext} : {}), ...(lookup ? {lookup} : {}), timeout: options.timeoutMs} as never,
      proxyTls: {...(choice.url.protocol === 'https:' && tls.proxyContext ? {secureContext: await tls.proxyContext()} : {}), timeout: options.timeoutMs} as never,
      factory: (origin: string | URL, opts: object) => {
        const connect = (opts as {connect?: unknown}).connect
        return new Pool(origin, {...opts, ...(typeof connect === 'function' ? {connect: watch(connect as BuildConnector.connector)} : {})})
      },
    })
  } else {
    const connect = buildConnector({...(tls.secureContext ? {secureContext: tls.secureContext} : {}), ...(lookup ? {lookup} : {}), timeout: options.timeoutMs} as BuildConnector.BuildOptions)
    dispatcher = new Agent({...common, connect: watch(connect)})
  }
  const origin = target.origin
  const secrets = [...(choice?.secrets ?? []), ...(settings.passphrase ? [settings.passphrase] : [])]
  return {
    dispatcher,
    route,
    secrets,
    async name(error) {
      const seen = alert
      alert = undefined
      let failure = https ? describeTlsFailure(error, origin, {alert: seen, withCertificate}) : undefined
      // A TLS 1.2 handshake failure, no certificate shown: does the gateway ask for one?
      if (failure?.kind === 'handshake' && choice?.url.protocol !== 'https:') {
        const host = target.hostname.replace(/^\[|\]$/g, '')
        const asked = await asksForCertificate(host.toLowerCase() === 'localhost' ? '127.0.0.1' : host, Number(target.port || 443), host, {proxy: choice?.url, timeoutMs: Math.min(5000, options.timeoutMs)})
        failure = describeTlsFailure(error, origin, {alert: seen, withCertificate, asked})
      }
      if (failure?.kind === 'certificate-required') {
        return {Type: CertificateRequiredError, message: failure.message, hint: failure.hint, notSent: true, retryable: false}
      }
      if (failure?.kind === 'certificate-refused') {
        return {Type: CertificateRefusedError, message: failure.message, hint: failure.hint, notSent: true, retryable: false}
      }
      if (failure) return {Type: TlsError, message: `the TLS handshake with ${origin} failed: ${failure.message}`, hint: failure.hint, notSent: true, retryable: false}
      // Any other TLS failure: the gateway (or what answers at its address) was reached, and the handshake failed.
      const tlsCode = https && choice?.url.protocol !== 'https:' ? tlsErrorCode(error, seen) : undefined
      const proxy = choice ? `the proxy ${choice.shown} (from ${choice.variable})` : ''
      if (tlsCode && choice) {
        // The proxy said the tunnel was open (200), and what came through it was not TLS: the proxy's doing.
        return {
          Type: ProxyError,
          message: `${proxy} answered its CONNECT to the gateway at ${origin}, but what came back through it was not TLS: the proxy did not carry the connection to the gateway`,
          hint: 'Check the proxy (one that inspects traffic, or answers on the wrong port), or name the gateway\'s host in NO_PROXY to reach it directly.',
          notSent: true,
          retryable: false,
        }
      }
      if (tlsCode) return {Type: TlsError, message: `the TLS handshake with ${origin} failed: ${describeNetworkError(error)}`, notSent: true, retryable: false}
      if (!choice) return undefined
      const answered = /Proxy response \((\d+)\)/.exec(messages(error))?.[1] ?? (/Proxy Authentication Required \(407\)/.test(messages(error)) ? '407' : undefined)
      if (answered) {
        const given = Boolean(choice.url.username || choice.url.password)
        const why =
          answered === '407' && given
            ? `refused the credentials given in its URL (407): check the user name and password in ${choice.variable}; ${USERINFO_RULE}`
            : answered === '407'
            ? 'asks for credentials (407): put them in its URL, http://USER:PASSWORD@HOST:PORT'
            : answered === '403'
              ? 'refused to connect to it (403)'
              : `answered ${answered} to its CONNECT: the proxy could not reach it, or would not`
        return {Type: ProxyError, message: `${proxy} did not carry the request to the gateway at ${origin}: it ${why}`, notSent: true, retryable: answered === '502' || answered === '503' || answered === '504'}
      }
      const code = errorCode(error)
      if (code !== undefined && NOT_SENT_CODES.has(code)) {
        return {
          Type: ProxyError,
          message: `could not reach ${proxy}, through which the gateway at ${origin} is reached: ${describeNetworkError(error)}`,
          hint: `Check the proxy, or name the gateway's host in NO_PROXY to reach it directly.`,
          notSent: true,
          retryable: true,
        }
      }
      return undefined
    },
  }
}

/** The code of a TLS-level error along the chain of causes (or the alert seen on the connection). */
function tlsErrorCode(error: unknown, alert: unknown): string | undefined {
  for (const start of [error, alert]) {
    const seen = new Set<unknown>()
    let current: unknown = start
    while (current && typeof current === 'object' && !seen.has(current)) {
      seen.add(current)
      const code = (current as {code?: unknown}).code
      if (typeof code === 'string' && /^ERR_(SSL|TLS)_/.test(code)) return code
      current = (current as {cause?: unknown}).cause
    }
  }
  return undefined
}

/** The messages along an error's chain of causes, joined. */
function messages(error: unknown): string {
  const parts: string[] = []
  const seen = new Set<unknown>()
  let current: unknown = error
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current)
    parts.push(String((current as {message?: unknown}).message ?? ''))
    current = (current as {cause?: unknown}).cause
  }
  return parts.join(' | ')
}
