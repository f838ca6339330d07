import type {IncomingMessage, ServerResponse} from 'node:http'

import type {SandboxDomain} from '../domain/index.js'
import {replyForError} from '../routes/errors.js'
import type {SandboxState} from '../state.js'
import {isLoopbackHost} from '../../api/base-url.js'
import {drainRest} from './body.js'
import {verifyBearer} from './bearer.js'
import type {Fault} from './faults.js'
import {errorReply, HttpError, writeReply, type Reply} from './reply.js'
import type {Route, RouteContext, Router} from './router.js'

export interface PipelineOptions {
  router: Router
  state: SandboxState
  domain: SandboxDomain
  /** The host the server listens on, for requests without a Host header. */
  host: string
  /** Delay every answer of the gateway API by this much (not the sandbox's controls). */
  latencyMs?: number
  /** Receives one line per request: time, method, path, status, duration, client id. */
  log?: (line: string) => void
}

/** The request log's line: `2026-05-04T12:00:00.000Z POST /core/transaction 201 12ms sandbox`. */
export function logLine(atMs: number, method: string, path: string, outcome: string, durationMs: number, clientId = '-'): string {
  return `${new Date(atMs).toISOString()} ${method} ${path} ${outcome} ${Math.round(durationMs)}ms ${clientId}`
}

/** Statistics leave out the reads of the statistics themselves. */
const UNCOUNTED = 'GET /_sandbox/stats'

/** The answer an injected status fault gives in place of the route's. */
function faultReply(fault: Extract<Fault, {kind: 'status'}>): Reply {
  const headers = fault.retryAfter === undefined ? undefined : {'retry-after': String(fault.retryAfter)}
  return errorReply(fault.status, `injected fault: ${fault.status}`, headers)
}

/** The request's URL; 400 for one that cannot be read (a bad Host header, broken percent-encoding). */
function urlOf(req: IncomingMessage, host: string): URL {
  try {
    return new URL(req.url ?? '/', `http://${req.headers.host ?? host}`)
  } catch {
    throw new HttpError(400, 'the request URL or its Host header cannot be read')
  }
}

/**
 * The sandbox's controls answer only the machine it runs on: a Host that is a loopback name or
 * address (a DNS-rebound name is refused), and no Origin but a loopback one (a web page cannot
 * drive them, whatever its Content-Type).
 */
function guardControls(req: IncomingMessage): void {
  let hostname: string
  try {
    hostname = new URL(`http://${req.headers.host ?? ''}`).hostname
  } catch {
    throw new HttpError(403, 'the sandbox controls answer only requests to a loopback host')
  }
  if (!isLoopbackHost(hostname)) throw new HttpError(403, `the sandbox controls answer only requests to a loopback host, not ${hostname}`)
  const origin = req.headers.origin
  if (origin === undefined) return
  let originHost: string | undefined
  try {
    const url = new URL(origin)
    originHost = url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname : undefined
  } catch {
    originHost = undefined
  }
  if (originHost === undefined || !isLoopbackHost(originHost)) throw new HttpError(403, 'the sandbox controls refuse requests from a web page of another origin')
}

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref()
  })

/**
 * What every request goes through, in order: the route's match (404, 405), statistics, the
 * bearer (401) and the route's scope (403), an injected fault that acts before the handler (an
 * error answer, a reset connection), the handler, whose domain errors become status codes, then
 * a fault that acts after it (the answer lost, or late), the latency, and the answer.
 */
export function pipeline(options: PipelineOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const {router, state, domain, host, latencyMs = 0, log} = options

  function count(name: string): void {
    if (name === UNCOUNTED) return
    state.stats.requests += 1
    state.stats.byRoute[name] = (state.stats.byRoute[name] ?? 0) + 1
  }

  async function authorize(ctx: RouteContext, route: Route): Promise<void> {
    if (route.auth === false) return
    ctx.client = await verifyBearer(state, ctx.req.headers.authorization)
    ctx.clientId = ctx.client.clientId
    if (route.scope && !ctx.client.scopes.includes(route.scope)) throw new HttpError(403, `the token lacks the scope ${route.scope}`)
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET'
    const startedAtMs = Date.now()
    const started = performance.now()
    let ctx: RouteContext | undefined
    /** Logs how the request ended: its status, or what became of the connection. */
    const finish = (outcome: string) => {
      if (!log) return
      const path = ctx?.url.pathname ?? (req.url ?? '/').split('?')[0]
      log(logLine(startedAtMs, method, path, outcome, performance.now() - started, ctx?.clientId))
    }
    let route: Route | undefined
    let fault: Fault | undefined
    let reply: Reply
    try {
      const url = urlOf(req, host)
      if (url.pathname === '/_sandbox' || url.pathname.startsWith('/_sandbox/')) guardControls(req)
      const match = router.match(method, url.pathname)
      if (!match) throw new HttpError(404, `no route for ${method} ${url.pathname}`)
      if ('allowed' in match) {
        throw new HttpError(405, `${method} is not allowed on ${url.pathname}; use ${match.allowed.join(' or ')}`, {allow: match.allowed.join(', ')})
      }
      route = match.route
      count(match.name)
      ctx = {req, url, params: match.params, state, domain}
      await authorize(ctx, route)
      // The token endpoint is open to queued faults, not to random ones: its failure has a control of its own.
      fault = route.api === false ? undefined : state.faults.take(match.name, {random: route.auth !== false})
      if (fault?.kind === 'reset') {
        req.socket.resetAndDestroy()
        finish('reset')
        return
      }
      reply = fault?.kind === 'status' ? faultReply(fault) : await route.handler(ctx)
    } catch (error) {
      reply = replyForError(error)
    }
    if (fault?.kind === 'reset-after') {
      req.socket.resetAndDestroy()
      finish(`reset-after-${reply.status}`)
      return
    }
    // The route ran and committed; what reaches the client is a 201 without the record.
    if (fault?.kind === 'no-record' && reply.status >= 200 && reply.status < 300) {
      reply =
        fault.body === 'html'
          ? {status: 201, json: '<!doctype html><html><body><h1>Created</h1></body></html>', headers: {'content-type': 'text/html; charset=utf-8'}}
          : {status: 201, body: {ok: true}}
    }
    // Answered before its body has all arrived (a refused token, a body too large): what is left of
    // the body is read and thrown away (bounded), then the connection closes after this answer, so
    // the request gets exactly one answer, never a reset nor a second one (408) for the body's lateness.
    if (!req.complete) {
      if (reply.headers?.connection !== 'close') reply = {...reply, headers: {...reply.headers, connection: 'close'}}
      await drainRest(req)
    }
    // Whatever the route left unread is drained, unless the answer closes the connection anyway.
    if (reply.headers?.connection !== 'close') req.resume()
    const delayMs = (route && route.api !== false ? latencyMs : 0) + (fault?.kind === 'slow' ? fault.delayMs : 0)
    if (delayMs > 0) await sleep(delayMs)
    if (res.destroyed || req.socket.destroyed) {
      reply.sent?.()
      finish(`${reply.status}-unsent`)
      return
    }
    writeReply(res, reply)
    finish(String(reply.status))
  }

  // Nothing a request does may bring the server down: what escapes the stages closes its connection.
  return (req, res) =>
    handle(req, res).catch(() => {
      res.destroy()
      log?.(logLine(Date.now(), req.method ?? 'GET', (req.url ?? '/').split('?')[0], 'closed', 0))
    })
}
