import {EventEmitter} from 'node:events'
import {createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {networkInterfaces} from 'node:os'

import {isLoopbackHost} from '../api/base-url.js'

import {describeNetworkError} from '../api/network.js'
import {NOTIFICATION_HEADERS} from '../schemas/notification.js'
import {jsonDepthExceeds, MAX_JSON_DEPTH} from '../schemas/depth.js'
import {closableServer} from '../sandbox/http/shutdown.js'

/** What a notification says about itself, read tolerantly from its headers and body. */
export interface NotificationSummary {
  id?: string
  referenceId?: string
  kind?: string
  /** The notification's own status when it was sent (RECEIVED on a first delivery). */
  status?: string
  /** The status the record reached: what the notification announces (PAID, REFUNDED, ...). */
  recordStatus?: string
  tags?: string[]
  createdAt?: string
  /** Where the gateway meant to deliver it, when a forwarder says so. */
  originalUrl?: string
}

export interface ReceivedEvent extends NotificationSummary {
  type: 'received'
  /** When it arrived, ISO. */
  at: string
  method: string
  path: string
  headers: Record<string, string>
  /** The body, parsed when it is JSON, else as text. */
  body: unknown
}

export interface ForwardedEvent {
  type: 'forwarded'
  at: string
  id?: string
  target: string
  /** The app's answer, passed back to the sender as it is. */
  status: number
  durationMs: number
}

export interface FailedEvent {
  type: 'failed'
  at: string
  id?: string
  /**
   * Where it failed: reaching the app, reading the request, answering the sender, the server itself,
   * or refused as a request no gateway sends (another method, another Host, a browser's Origin).
   */
  stage: 'forward' | 'request' | 'answer' | 'server' | 'refused'
  error: string
  /** The status the sender was answered with, when it was answered. */
  answered?: number
  target?: string
  durationMs?: number
}

export type ListenerEvent = ReceivedEvent | ForwardedEvent | FailedEvent

export interface ListenerOptions {
  host?: string
  /** 0 takes any free port. */
  port?: number
  /** The operator's app: every notification is relayed there, headers and body, and its answer passed back. */
  forwardTo?: string
  /** How long the app may take to answer (default 4 s, under the sender's own delivery timeout). */
  forwardTimeoutMs?: number
  /** The name a tunnel in front of the listener sends as Host (e.g. abc.ngrok.app): accepted besides the listener's own. */
  publicHost?: string
  now?: () => number
}

/** Headers that belong to one connection, not to the message: never relayed. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
])

const BODY_LIMIT = 5 * 1024 * 1024

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return flat
}

const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined)

/** Reads what a notification says about itself: headers first for its id, then its JSON body. */
export function summarize(headers: Record<string, string>, body: unknown): NotificationSummary {
  const record = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
  const data = record.data && typeof record.data === 'object' ? (record.data as Record<string, unknown>) : {}
  return {
    id: text(headers[NOTIFICATION_HEADERS.id]) ?? text(record.id),
    referenceId: text(record.referenceId) ?? text(data.id),
    kind: text(record.kind),
    status: text(record.status),
    recordStatus: text(data.status),
    tags: Array.isArray(record.tags) ? record.tags.filter((tag): tag is string => typeof tag === 'string') : undefined,
    createdAt: text(record.createdAt),
    originalUrl: text(headers[NOTIFICATION_HEADERS.originalUrl]),
  }
}

/**
 * Which Host values name a listener at this address: its own address and port; when it listens on
 * loopback or on every address, the loopback names (localhost, 127.x.x.x, [::1]) with its port, and
 * with every address also this machine's interface addresses; and the tunnel's name on any port.
 */
function ownHosts(address: AddressInfo, publicHost?: string): (host: string | undefined) => boolean {
  const wildcard = address.address === '0.0.0.0' || address.address === '::'
  const loopback = wildcard || isLoopbackHost(address.address)
  const own = new Set([address.address.toLowerCase()])
  if (wildcard) {
    for (const list of Object.values(networkInterfaces())) for (const item of list ?? []) own.add(item.address.toLowerCase())
  }
  const tunnel = publicHost?.toLowerCase().replace(/\.$/, '')
  return (host) => {
    if (!host) return false
    const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.trim().toLowerCase())
    if (!match) return false
    const name = match[1].replace(/^\[|\]$/g, '')
    const port = match[2] === undefined ? undefined : Number(match[2])
    if (tunnel !== undefined && name.replace(/\.$/, '') === tunnel) return true
    if (port !== address.port) return false
    return own.has(name) || (loopback && isLoopbackHost(name))
  }
}

/**
 * A local receiver of webhook notifications. Each request is handled on its own, start to end:
 * read, reported, relayed to the app when there is one, answered. Nothing is kept between
 * requests, and no connection is reused (the app is reached on a fresh connection every time), so
 * there is no state that can go stale however long it runs. Everything it sees is an event
 * ('event'): received, forwarded, failed. Every failure is one.
 */
export class WebhookListener extends EventEmitter {
  private server?: Server
  private closeServer?: () => Promise<void>
  private readonly now: () => number
  url = ''

  constructor(readonly options: ListenerOptions = {}) {
    super()
    this.now = options.now ?? Date.now
  }

  private emitEvent(event: ListenerEvent): void {
    this.emit('event', event)
  }

  private stamp(): string {
    return new Date(this.now()).toISOString()
  }

  /** Starts listening; answers the URL to send notifications to. */
  async start(): Promise<string> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        this.emitEvent({type: 'failed', at: this.stamp(), stage: 'server', error: describeNetworkError(error)})
        if (!res.headersSent) res.writeHead(500).end()
        else res.destroy()
      })
    })
    server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
      // A connection that closes before sending a whole request is not worth an event.
      if (error.code !== 'ECONNRESET') {
        this.emitEvent({type: 'failed', at: this.stamp(), stage: 'request', error: `malformed request: ${error.message}`})
      }
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n')
      else socket.destroy()
    })
    this.server = server
    this.closeServer = closableServer(server)
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(this.options.port ?? 4020, this.options.host ?? '127.0.0.1', () => {
        server.off('error', reject)
        resolve()
      })
    })
    server.on('error', (error) => this.emitEvent({type: 'failed', at: this.stamp(), stage: 'server', error: error.message}))
    const address = server.address() as AddressInfo
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
    this.url = `http://${host}:${address.port}`
    this.hosts = ownHosts(address, this.options.publicHost)
    return this.url
  }

  /** The Host values a request may carry: the listener's own address, a loopback name for it, the tunnel's name. */
  private hosts: (host: string | undefined) => boolean = () => false

  /**
   * Why a request is not one a gateway could have sent, or undefined: only POST is taken; the Host
   * must name this listener (a page rebinding its own domain to 127.0.0.1 sends its own name); and
   * a browser announces itself with Origin, which a gateway never sends.
   */
  private refusal(req: IncomingMessage): {status: number; reason: string} | undefined {
    if (req.method !== 'POST') return {status: 405, reason: `method ${req.method ?? '?'}: only POST is taken`}
    if (!this.hosts(req.headers.host)) return {status: 403, reason: `Host ${req.headers.host === undefined ? '(none)' : `"${req.headers.host}"`} is not this listener`}
    if (req.headers.origin !== undefined) return {status: 403, reason: `a browser's request (Origin ${req.headers.origin})`}
    return undefined
  }

  /**
   * The events as an async iterator, from the moment of this call until `signal` aborts; events
   * that arrived before the abort are all given first.
   */
  events(signal?: AbortSignal): AsyncGenerator<ListenerEvent> {
    const queue: ListenerEvent[] = []
    let wake: (() => void) | undefined
    const onEvent = (event: ListenerEvent) => {
      queue.push(event)
      wake?.()
    }
    const onAbort = () => wake?.()
    this.on('event', onEvent)
    signal?.addEventListener('abort', onAbort)
    const detach = () => {
      this.off('event', onEvent)
      signal?.removeEventListener('abort', onAbort)
    }
    return (async function* () {
      try {
        for (;;) {
          while (queue.length > 0) yield queue.shift()!
          if (signal?.aborted) return
          await new Promise<void>((resolve) => {
            wake = resolve
          })
          wake = undefined
        }
      } finally {
        detach()
      }
    })()
  }

  async close(): Promise<void> {
    const server = this.server
    this.server = undefined
    if (!server) return
    // Connections without a notification under way are closed at once; one under way is answered first.
    await this.closeServer?.()
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = this.refusal(req)
    if (refused) {
      // Neither shown as a notification nor relayed; the sender is answered and the connection closed.
      this.emitEvent({type: 'failed', at: this.stamp(), stage: 'refused', error: refused.reason, answered: refused.status})
      // What it sent is read and thrown away (bounded), so the sender gets exactly this one answer.
      let size = 0
      for await (const chunk of req) {
        size += (chunk as Buffer).length
        if (size > BODY_LIMIT) break
      }
      res.writeHead(refused.status, {connection: 'close', ...(refused.status === 405 ? {allow: 'POST'} : {})}).end()
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of req) {
      size += (chunk as Buffer).length
      if (size > BODY_LIMIT) {
        // The rest is read and thrown away (bounded), so the sender sees the 413, not a reset.
        for await (const rest of req) {
          size += (rest as Buffer).length
          if (size > 4 * BODY_LIMIT) break
        }
        this.emitEvent({type: 'failed', at: this.stamp(), stage: 'request', error: `a body over ${BODY_LIMIT} bytes was refused`, answered: 413})
        res.writeHead(413, {connection: 'close'}).end()
        return
      }
      chunks.push(chunk as Buffer)
    }
    const raw = Buffer.concat(chunks)
    const headers = flatHeaders(req.headers)
    let body: unknown = raw.toString('utf8')
    if (raw.length > 0) {
      try {
        body = JSON.parse(body as string)
      } catch {
        // not JSON: kept as text, and still relayed byte for byte
      }
    }
    // Refused before it is acknowledged or shown: a body thousands of levels deep would overflow
    // whatever walks it next (the JSON event, the relay), and take the listener down with it.
    if (jsonDepthExceeds(body)) {
      this.emitEvent({type: 'failed', at: this.stamp(), stage: 'request', error: `a body nested deeper than ${MAX_JSON_DEPTH} levels was refused`, answered: 422})
      res.writeHead(422, {'content-type': 'application/json', connection: 'close'}).end(JSON.stringify({error: `the body nests deeper than ${MAX_JSON_DEPTH} levels`}))
      return
    }
    const summary = summarize(headers, body)
    this.emitEvent({type: 'received', at: this.stamp(), method: req.method ?? 'POST', path: req.url ?? '/', headers, body, ...summary})

    const target = this.options.forwardTo
    if (!target) {
      this.answer(res, summary.id, 200, {'content-type': 'application/json'}, '{"received":true}')
      return
    }
    const relayed: Record<string, string> = {}
    for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) relayed[name] = value
    const timeoutMs = this.options.forwardTimeoutMs ?? 4000
    const started = performance.now()
    const {getGlobalDispatcher} = await import('undici')
    let status: number
    try {
      const url = new URL(target)
      const response = await getGlobalDispatcher().request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: 'POST',
        headers: relayed,
        body: raw.length > 0 ? raw : undefined,
        // A fresh connection each time: a pooled one the app has closed cannot swallow a notification.
        reset: true,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      })
      status = response.statusCode
      // The app's answer stays here: the sender learns its status, never its body.
      await response.body.dump()
    } catch (error) {
      const reason = describeNetworkError(error)
      const answered = /timed out/.test(reason) ? 504 : 502
      const durationMs = Math.round(performance.now() - started)
      // One delivery, one failure: a sender that gave up meanwhile (its own timeout) is said in the
      // same event, not in a second one for the same notification.
      if (this.senderGone(res)) {
        const error = `${reason}; the sender had hung up before it could be answered`
        this.emitEvent({type: 'failed', at: this.stamp(), id: summary.id, stage: 'forward', error, target, durationMs})
        return
      }
      this.emitEvent({type: 'failed', at: this.stamp(), id: summary.id, stage: 'forward', error: reason, answered, target, durationMs})
      // The listener's own word, not the app's: the reason, never where the app is.
      const message = `the app could not be reached: ${reason}`
      this.answer(res, summary.id, answered, {'content-type': 'application/json'}, JSON.stringify({statusCode: answered, error: answered === 504 ? 'Gateway Timeout' : 'Bad Gateway', message}), true)
      return
    }
    const durationMs = Math.round(performance.now() - started)
    this.emitEvent({type: 'forwarded', at: this.stamp(), id: summary.id, target, status, durationMs})
    this.answer(res, summary.id, status, {}, '')
  }

  private senderGone(res: ServerResponse): boolean {
    return res.destroyed || !res.socket || res.socket.destroyed
  }

  /**
   * Answers the sender; a sender that hung up first is a failure worth saying, unless this delivery's
   * failure was said already (`failed`): each delivery is reported as failed once.
   */
  private answer(res: ServerResponse, id: string | undefined, status: number, headers: Record<string, string>, body: string | Buffer, failed = false): void {
    if (this.senderGone(res)) {
      if (!failed) this.emitEvent({type: 'failed', at: this.stamp(), id, stage: 'answer', error: 'the sender hung up before it was answered', answered: status})
      return
    }
    res.once('error', (error) => {
      if (!failed) this.emitEvent({type: 'failed', at: this.stamp(), id, stage: 'answer', error: error.message, answered: status})
    })
    res.writeHead(status, headers).end(body)
  }
}
