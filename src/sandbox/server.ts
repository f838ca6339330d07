import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

import {HttpCourier} from './delivery.js'
import {SandboxDomain} from './domain/index.js'
import {pipeline} from './http/pipeline.js'
import {Router, type Route} from './http/router.js'
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
  now?: () => number
  /** Deliver every notification to this URL instead of its own, the intended URL in X-Original-Url. */
  forwardWebhooksTo?: string
  /** How long one notification delivery may take before it counts as ERROR (default 5 s). */
  notificationTimeoutMs?: number
}

/** The time one notification delivery may take, connection included. */
export const NOTIFICATION_TIMEOUT_MS = 5000

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
  const host = options.host ?? '127.0.0.1'
  const now = options.now ?? Date.now
  const courier = new HttpCourier({timeoutMs: options.notificationTimeoutMs ?? NOTIFICATION_TIMEOUT_MS, forwardTo: options.forwardWebhooksTo})
  const domain = new SandboxDomain({now, autoPayMs: options.autoPayMs, seedDeposits: options.seedDeposits, courier})
  const state = new SandboxState({tokenTtlSec: options.tokenTtlSec ?? 3600, clients: options.clients ?? DEFAULT_CLIENTS, now})
  const router = new Router()
  for (const routes of ROUTES) router.add(...routes())

  const server = createServer(pipeline({router, state, domain, host}))
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
    domain,
    server,
    close() {
      closing ??= Promise.all([
        domain.dispose(),
        new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeIdleConnections()
          setTimeout(() => server.closeAllConnections(), 1000).unref()
        }),
      ]).then(() => undefined)
      return closing
    },
  }
}
