import type {IncomingMessage, ServerResponse} from 'node:http'

import type {SandboxDomain} from '../domain/index.js'
import {replyForError} from '../routes/errors.js'
import type {SandboxState} from '../state.js'
import {verifyBearer} from './bearer.js'
import {actsBeforeHandler, type Fault} from './faults.js'
import {errorReply, HttpError, writeReply, type Reply} from './reply.js'
import type {Route, RouteContext, Router} from './router.js'

export interface PipelineOptions {
  router: Router
  state: SandboxState
  domain: SandboxDomain
  /** The host the server listens on, for requests without a Host header. */
  host: string
}

/** Statistics leave out the reads of the statistics themselves. */
const UNCOUNTED = 'GET /_sandbox/stats'

/** The answer an injected fault gives in place of the route's. */
function faultReply(fault: Fault): Reply {
  const headers: Record<string, string> = fault.retryAfter === undefined ? {} : {'retry-after': String(fault.retryAfter)}
  return errorReply(fault.status, `injected fault: ${fault.status}`, headers)
}

/**
 * What every request goes through, in order: the route's match (404, 405), statistics, the
 * bearer (401) and the route's scope (403), an injected fault that acts before the handler, the
 * handler, whose domain errors become status codes, then a fault that acts after it, and the
 * answer.
 */
export function pipeline(options: PipelineOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const {router, state, domain, host} = options

  /** Runs the stages up to the handler's answer, and names the fault still to apply after it. */
  async function answer(ctx: RouteContext, method: string): Promise<{reply: Reply; fault?: Fault}> {
    const match = router.match(method, ctx.url.pathname)
    if (!match) throw new HttpError(404, `no route for ${method} ${ctx.url.pathname}`)
    if ('allowed' in match) {
      const allowed = match.allowed.join(', ')
      throw new HttpError(405, `${method} is not allowed on ${ctx.url.pathname}; use ${match.allowed.join(' or ')}`, {allow: allowed})
    }
    const {route, name, params} = match
    ctx.params = params
    count(name)
    await authorize(ctx, route)
    const fault = route.api === false ? undefined : state.faults.take(name)
    if (fault && actsBeforeHandler(fault)) return {reply: faultReply(fault)}
    return {reply: await route.handler(ctx), fault}
  }

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

  return async (req, res) => {
    const method = req.method ?? 'GET'
    let reply: Reply
    try {
      const url = new URL(req.url ?? '/', `http://${req.headers.host ?? host}`)
      const ctx: RouteContext = {req, url, params: {}, state, domain}
      reply = (await answer(ctx, method)).reply
    } catch (error) {
      reply = replyForError(error)
    }
    // Whatever the route left unread is drained, unless the answer closes the connection anyway.
    if (reply.headers?.connection !== 'close') req.resume()
    writeReply(res, reply)
  }
}
