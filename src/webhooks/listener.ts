import {EventEmitter} from 'node:events'
import {createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'

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
  /** Where it failed: reaching the app, reading the request, answering the sender, or the server itself. */
  stage: 'forward' | 'request' | 'answer' | 'server'
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
    return this.url
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
    const {request} = await import('undici')
    let status: number
    let answerHeaders: Record<string, string> = {}
    let answerBody: Buffer
    try {
      const response = await request(target, {
        method: (req.method ?? 'POST') as 'POST',
        headers: relayed,
        body: raw.length > 0 ? raw : undefined,
        // A fresh connection each time: a pooled one the app has closed cannot swallow a notification.
        reset: true,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      })
      status = response.statusCode
      const type = response.headers['content-type']
      if (type) answerHeaders = {'content-type': Array.isArray(type) ? type[0] : type}
      answerBody = Buffer.from(await response.body.arrayBuffer())
    } catch (error) {
      const reason = describeNetworkError(error)
      const answered = reason === 'timed out' ? 504 : 502
      const durationMs = Math.round(performance.now() - started)
      // One delivery, one failure: a sender that gave up meanwhile (its own timeout) is said in the
      // same event, not in a second one for the same notification.
      if (this.senderGone(res)) {
        const error = `${reason}; the sender had hung up before it could be answered`
        this.emitEvent({type: 'failed', at: this.stamp(), id: summary.id, stage: 'forward', error, target, durationMs})
        return
      }
      this.emitEvent({type: 'failed', at: this.stamp(), id: summary.id, stage: 'forward', error: reason, answered, target, durationMs})
      const message = `the app at ${target} could not be reached: ${reason}`
      this.answer(res, summary.id, answered, {'content-type': 'application/json'}, JSON.stringify({statusCode: answered, error: 'Bad Gateway', message}), true)
      return
    }
    const durationMs = Math.round(performance.now() - started)
    this.emitEvent({type: 'forwarded', at: this.stamp(), id: summary.id, target, status, durationMs})
    this.answer(res, summary.id, status, answerHeaders, answerBody)
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
