import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

import {authRoutes, verifyBearer} from './auth.js'
import {controlRoutes} from './controls.js'
import {depositRoutes, seedDeposits} from './deposits.js'
import {HttpError, sendError} from './http.js'
import {Router, type Route} from './router.js'
import {DEFAULT_CLIENTS, SandboxState, type SandboxClient} from './state.js'
import {transactionRoutes} from './transactions.js'

export interface SandboxOptions {
  host?: string
  /** 0 takes any free port. */
  port?: number
  tokenTtlSec?: number
  clients?: SandboxClient[]
  /** Pay every new QR code after this many milliseconds. */
  autoPayMs?: number
  /** Fill this many varied deposits at start-up. */
  seedDeposits?: number
  now?: () => number
  /** Extra route sets, each mounted beside the built-in ones. */
  modules?: Array<(state: SandboxState) => Route[]>
}

export interface Sandbox {
  baseUrl: string
  host: string
  port: number
  clients: SandboxClient[]
  state: SandboxState
  server: Server
  close(): Promise<void>
}

/** The gateway modules every sandbox mounts. */
const MODULES: Array<(state: SandboxState) => Route[]> = [() => authRoutes(), controlRoutes, transactionRoutes, depositRoutes]

function routeName(route: Route): string {
  return `${route.method} ${route.path}`
}

/**
 * Starts the sandbox: a local emulator of the gateway's API on a real HTTP server. It checks
 * bearer tokens on every route but the token endpoint, answers the documented status codes with
 * the error body of decisions.md, and keeps consistent state in memory until closed.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1'
  const state = new SandboxState({
    tokenTtlSec: options.tokenTtlSec ?? 3600,
    clients: options.clients ?? DEFAULT_CLIENTS,
    autoPayMs: options.autoPayMs,
    now: options.now,
  })
  if (options.seedDeposits) seedDeposits(state, options.seedDeposits)
  const router = new Router()
  for (const module of [...MODULES, ...(options.modules ?? [])]) router.add(...module(state))

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? host}`)
    const method = req.method ?? 'GET'
    try {
      const match = router.match(method, url.pathname)
      if (!match) throw new HttpError(404, `no route for ${method} ${url.pathname}`)
      if ('allowed' in match) {
        res.setHeader('allow', match.allowed.join(', '))
        throw new HttpError(405, `${method} is not allowed on ${url.pathname}; use ${match.allowed.join(' or ')}`)
      }
      const {route, params} = match
      const name = routeName(route)
      if (name !== 'GET /_sandbox/stats') {
        state.stats.requests += 1
        state.stats.byRoute[name] = (state.stats.byRoute[name] ?? 0) + 1
      }
      const client = route.auth === false ? undefined : await verifyBearer(state, req.headers.authorization)
      if (route.scope && client && !client.scopes.includes(route.scope)) {
        throw new HttpError(403, `the token lacks the scope ${route.scope}`)
      }
      const fault = route.api === false ? undefined : state.takeFault(name)
      if (fault) {
        const headers: Record<string, string> = fault.retryAfter === undefined ? {} : {'retry-after': String(fault.retryAfter)}
        req.resume()
        sendError(res, fault.status, `injected fault: ${fault.status}`, headers)
        return
      }
      await route.handler({req, res, url, params, state, client})
    } catch (error) {
      if (res.headersSent) {
        res.destroy()
        return
      }
      req.resume()
      if (error instanceof HttpError) sendError(res, error.status, error.messages)
      else sendError(res, 500, `internal error: ${(error as Error).message}`)
    }
  })
  server.keepAliveTimeout = 5000

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 4010, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const baseUrl = `http://${hostForUrl}:${address.port}`
  let closing: Promise<void> | undefined
  return {
    baseUrl,
    host: address.address,
    port: address.port,
    clients: state.clients,
    state,
    server,
    close() {
      closing ??= new Promise<void>((resolve) => {
        state.dispose()
        server.close(() => resolve())
        server.closeIdleConnections()
        setTimeout(() => server.closeAllConnections(), 1000).unref()
      })
      return closing
    },
  }
}
