import {randomBytes} from 'node:crypto'

import {Faults, type FaultPlan} from './http/faults.js'

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

export interface SandboxStats {
  /** Every request but the reads of these stats. */
  requests: number
  /** Requests per "METHOD /path/pattern". */
  byRoute: Record<string, number>
  tokenRequests: number
  tokensIssued: number
  /** Injected faults so far, by status code or kind (reset, reset-after, slow). */
  faultsInjected: Record<string, number>
}

export interface StateOptions {
  tokenTtlSec: number
  clients: SandboxClient[]
  now: () => number
  /** Faults at random from the start. */
  faults?: FaultPlan
}

/**
 * The server's own state, beside the gateway's records (../domain): clients and signing key,
 * the identity provider's health, injected faults and request statistics.
 */
export class SandboxState {
  readonly tokenTtlSec: number
  readonly clients: SandboxClient[]
  readonly now: () => number
  /** HS256 key of the issued JWTs; rotating it makes every issued token invalid. */
  signingKey: Uint8Array = randomBytes(32)
  failIdentityProvider = false
  readonly faults: Faults
  readonly stats: SandboxStats

  constructor(options: StateOptions) {
    this.tokenTtlSec = options.tokenTtlSec
    this.clients = options.clients
    this.now = options.now
    this.faults = new Faults(options.faults)
    this.stats = {requests: 0, byRoute: {}, tokenRequests: 0, tokensIssued: 0, faultsInjected: this.faults.injected}
  }

  revokeTokens(): void {
    this.signingKey = randomBytes(32)
  }
}
