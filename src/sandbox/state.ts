import {randomBytes} from 'node:crypto'

/** Every scope the sandbox knows. Only resend_dispatcher is named by the reference. */
export const ALL_SCOPES = ['transaction', 'deposit', 'withdraw', 'resend_dispatcher'] as const

export interface SandboxClient {
  clientId: string
  clientSecret: string
  scopes: string[]
}

export const DEFAULT_CLIENTS: SandboxClient[] = [
  {clientId: 'sandbox', clientSecret: 'sandbox-secret', scopes: [...ALL_SCOPES]},
  {clientId: 'sandbox-limited', clientSecret: 'sandbox-secret', scopes: ALL_SCOPES.filter((scope) => scope !== 'resend_dispatcher')},
]

export interface TokenClaims {
  clientId: string
  scopes: string[]
  expiresAt: number
}

export interface Fault {
  /** "METHOD /path/pattern" as the router names it, or "*" for every gateway route. */
  route: string
  status: number
  /** How many requests to fail; then the fault is gone. */
  remaining: number
  retryAfter?: number
}

export interface SandboxStats {
  /** Every request but the reads of these stats. */
  requests: number
  /** Requests per "METHOD /path/pattern". */
  byRoute: Record<string, number>
  tokenRequests: number
  tokensIssued: number
}

export interface StateOptions {
  tokenTtlSec: number
  clients: SandboxClient[]
  autoPayMs?: number
  now?: () => number
}

/**
 * The sandbox's whole state, in memory: clients and signing key, request statistics, injected
 * faults, and the records (transactions and deposits) the gateway routes keep.
 */
export class SandboxState {
  readonly tokenTtlSec: number
  readonly clients: SandboxClient[]
  readonly autoPayMs?: number
  readonly now: () => number
  /** HS256 key of the issued JWTs; rotating it makes every issued token invalid. */
  signingKey: Uint8Array = randomBytes(32)
  failIdentityProvider = false
  readonly faults: Fault[] = []
  readonly stats: SandboxStats = {requests: 0, byRoute: {}, tokenRequests: 0, tokensIssued: 0}
  private readonly timers = new Set<NodeJS.Timeout>()
  /** Extensions: each gateway module keeps its own part of the state here. */
  readonly parts = new Map<string, unknown>()

  constructor(options: StateOptions) {
    this.tokenTtlSec = options.tokenTtlSec
    this.clients = options.clients
    this.autoPayMs = options.autoPayMs
    this.now = options.now ?? Date.now
  }

  part<T>(name: string, make: () => T): T {
    let value = this.parts.get(name) as T | undefined
    if (value === undefined) {
      value = make()
      this.parts.set(name, value)
    }
    return value
  }

  revokeTokens(): void {
    this.signingKey = randomBytes(32)
  }

  /** The first injected fault for this route, consumed by one. */
  takeFault(routeName: string): Fault | undefined {
    const index = this.faults.findIndex((fault) => fault.route === routeName || fault.route === '*')
    if (index === -1) return undefined
    const fault = this.faults[index]
    fault.remaining -= 1
    if (fault.remaining <= 0) this.faults.splice(index, 1)
    return fault
  }

  /** A timer that dies with the sandbox. */
  later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      fn()
    }, ms)
    timer.unref()
    this.timers.add(timer)
  }

  dispose(): void {
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }
}
