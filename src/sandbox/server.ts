import {createServer, STATUS_CODES, type Server} from 'node:http'
import type {AddressInfo, Socket} from 'node:net'

import {HttpCourier} from './delivery.js'
import {SandboxDomain} from './domain/index.js'
import {MAX_SEED_DEPOSITS, MAX_SEED_RECONCILE} from './domain/seed.js'
import {MAX_TIMER_MS} from '../schemas/enums.js'
import type {FaultPlan} from './http/faults.js'
import {logLine, pipeline} from './http/pipeline.js'
import {Router, type Route} from './http/router.js'
import {closableServer} from './http/shutdown.js'
import {controlRoutes} from './routes/controls.js'
import {depositRoutes} from './routes/deposits.js'
import {notificationRoutes} from './routes/notifications.js'
import {tokenRoutes} from './routes/token.js'
import {transactionRoutes} from './routes/transactions.js'
import {withdrawalRoutes} from './routes/withdrawals.js'
import {DEFAULT_CLIENTS, SandboxState, type SandboxClient} from './state.js'

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
  /** Seed this many expected charges and their deposits, for reconciling (the sandbox's own). */
  seedReconcile?: number
  now?: () => number
  /** Deliver every notification to this URL instead of its own, the intended URL in X-Original-Url. */
  forwardWebhooksTo?: string
  /** How long one notification delivery may take before it counts as ERROR (default 5 s). */
  notificationTimeoutMs?: number
  /** Fail this share of gateway requests at random, from a seed. */
  faults?: FaultPlan
  /** Delay every answer of the gateway API by this many milliseconds. */
  latencyMs?: number
  /** How long a client may take to send its headers (default 10 s), and its whole request (default 30 s). */
  headersTimeoutMs?: number
  requestTimeoutMs?: number
  /** Receives one line per request (time, method, path, status, duration, client id): `sandbox start --log`. */
  log?: (line: string) => void
}

/** The time one notification delivery may take, connection included. */
export const NOTIFICATION_TIMEOUT_MS = 5000
/** A client that has not sent its headers after this long is answered 408 and cut off. */
export const HEADERS_TIMEOUT_MS = 10_000
/** A client that has not sent its whole request after this long is answered 408 and cut off. */
export const REQUEST_TIMEOUT_MS = 30_000

/**
 * A request the HTTP parser refused (malformed, headers too large, too slow): an error answer in
 * the sandbox's error body when the socket still takes one, then the connection closed.
 */
function refuseClient(error: NodeJS.ErrnoException, socket: Socket, log?: (line: string) => void): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400
  const reason = STATUS_CODES[status]!
  const message = status === 408 ? 'the request took too long to arrive' : `the request could not be read (${error.code ?? 'parse error'})`
  const body = JSON.stringify({statusCode: status, error: reason, message})
  log?.(logLine(Date.now(), '-', '-', String(status), 0))
  socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`)
}

export interface Sandbox {
  baseUrl: string
  host: string
  port: number
  clients: SandboxClient[]
  /** The server's state: clients, signing key, faults, statistics. */
  state: SandboxState
  /** The gateway's records and rules. */
  domain: SandboxDomain
  server: Server
  close(): Promise<void>
}

/** Every route the sandbox serves: the gateway API and the sandbox's own controls. */
const ROUTES: Array<() => Route[]> = [tokenRoutes, controlRoutes, transactionRoutes, depositRoutes, withdrawalRoutes, notificationRoutes]

/**
 * Starts the sandbox: a local emulator of the gateway's API on a real HTTP server. It checks
 * bearer tokens on every route but the token endpoint, answers the documented status codes with
 * the sandbox's error body, and keeps consistent state in memory until closed.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  if ((options.seedDeposits ?? 0) > MAX_SEED_DEPOSITS) throw new RangeError(`seedDeposits must be at most ${MAX_SEED_DEPOSITS}`)
  if ((options.seedReconcile ?? 0) > MAX_SEED_RECONCILE) throw new RangeError(`seedReconcile must be at most ${MAX_SEED_RECONCILE}`)
  for (const [name, ms] of Object.entries({latencyMs: options.latencyMs, autoPayMs: options.autoPayMs, notificationTimeoutMs: options.notificationTimeoutMs})) {
    if (ms !== undefined && ms > MAX_TIMER_MS) throw new RangeError(`${name} must be at most ${MAX_TIMER_MS} ms: a timer holds no longer`)
  }
  const host = options.host ?? '127.0.0.1'
  const now = options.now ?? Date.now
  const courier = new HttpCourier({timeoutMs: options.notificationTimeoutMs ?? NOTIFICATION_TIMEOUT_MS, forwardTo: options.forwardWebhooksTo})
  const domain = new SandboxDomain({now, autoPayMs: options.autoPayMs, seedDeposits: options.seedDeposits, seedReconcile: options.seedReconcile, courier})
  const state = new SandboxState({tokenTtlSec: options.tokenTtlSec ?? 3600, clients: options.clients ?? DEFAULT_CLIENTS, now, faults: options.faults})
  const router = new Router()
  for (const routes of ROUTES) router.add(...routes())

  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: Math.max(options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS, headersTimeout),
      keepAliveTimeout: 5000,
      // How often the timeouts above are checked: often enough to hold them within a second.
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(headersTimeout / 4))),
    },
    pipeline({router, state, domain, host, latencyMs: options.latencyMs, log: options.log}),
  )
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => refuseClient(error, socket, options.log))
  const closeServer = closableServer(server)

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 4010, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  courier.selfPort = address.port
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const baseUrl = `http://${hostForUrl}:${address.port}`
  let closing: Promise<void> | undefined
  return {
    baseUrl,
    host: address.address,
    port: address.port,
    clients: state.clients,
    state,
    domain,
    server,
    close() {
      closing ??= Promise.all([domain.dispose(), closeServer()]).then(() => undefined)
      return closing
    },
  }
}
