import {mulberry32} from '../domain/random.js'

/**
 * Faults injected into the gateway API, for testing clients against a gateway that fails. A fault
 * acts before the handler (an error answer, or a reset connection, instead of the route's work)
 * or after it (the route ran and committed, and its answer is then lost or late).
 */

/**
 * The kinds `sandbox start --fault-kinds` and the faults control name. `no-record-html` and
 * `no-record-json` run the handler, then answer 201 without the record (an HTML page, or
 * `{"ok":true}`), as a broken proxy in front of a gateway might.
 */
export const FAULT_KINDS = ['500', '503', '429', 'reset', 'reset-after', 'slow', 'no-record-html', 'no-record-json'] as const
export type FaultKind = (typeof FAULT_KINDS)[number]
/** The kinds a fault plan draws from when it names none: the passing failures a client must retry through. */
export const DEFAULT_PLAN_KINDS: readonly FaultKind[] = ['500', '503', '429', 'reset', 'reset-after', 'slow']

/** How late a slow answer comes by default: past the CLI's default timeout of 30 s. */
export const SLOW_FAULT_MS = 35_000
/** The Retry-After of an injected 429 by default, in seconds. */
export const RETRY_AFTER_S = 1

export type Fault =
  /** Answer this status instead of running the handler (a 429 with Retry-After). */
  | {kind: 'status'; status: number; retryAfter?: number}
  /** Reset the connection before the handler runs: nothing happened. */
  | {kind: 'reset'}
  /** Run the handler, commit, then reset the connection: the answer is lost. */
  | {kind: 'reset-after'}
  /** Run the handler, then hold the answer this long. */
  | {kind: 'slow'; delayMs: number}
  /** Run the handler, commit, then answer 201 without the record. */
  | {kind: 'no-record'; body: 'html' | 'json'}

/** The fault a kind names, with its defaults. */
export function faultOf(kind: FaultKind, options: {retryAfter?: number; delayMs?: number} = {}): Fault {
  switch (kind) {
    case '500':
    case '503':
      return {kind: 'status', status: Number(kind)}
    case '429':
      return {kind: 'status', status: 429, retryAfter: options.retryAfter ?? RETRY_AFTER_S}
    case 'reset':
    case 'reset-after':
      return {kind}
    case 'slow':
      return {kind, delayMs: options.delayMs ?? SLOW_FAULT_MS}
    case 'no-record-html':
      return {kind: 'no-record', body: 'html'}
    case 'no-record-json':
      return {kind: 'no-record', body: 'json'}
  }
}

/** How a fault is counted in the statistics: its status code, or its kind. */
export const faultName = (fault: Fault) => (fault.kind === 'status' ? String(fault.status) : fault.kind === 'no-record' ? `no-record-${fault.body}` : fault.kind)

/** Where in the pipeline a fault acts. */
export const actsBeforeHandler = (fault: Fault): boolean => fault.kind === 'status' || fault.kind === 'reset'

/** A fault waiting for the next requests of a route. */
export interface QueuedFault {
  /** "METHOD /path/pattern" as the router names it, or "*" for every gateway route. */
  route: string
  fault: Fault
  /** How many requests to fail; then the fault is gone. */
  remaining: number
}

/** Faults at random: that share of requests, each of one of these kinds, drawn from a seeded generator. */
export interface FaultPlan {
  rate: number
  kinds: readonly FaultKind[]
  seed: number
}

export class Faults {
  private readonly queue: QueuedFault[] = []
  private planned?: {plan: FaultPlan; random: () => number}
  /** Faults injected so far, by status code or kind. */
  readonly injected: Record<string, number> = {}

  constructor(plan?: FaultPlan) {
    if (plan) this.setPlan(plan)
  }

  add(queued: QueuedFault): void {
    this.queue.push(queued)
  }

  /** Replaces the plan; a rate of 0 ends it. The same seed draws the same faults for the same requests. */
  setPlan(plan: FaultPlan | undefined): void {
    this.planned = plan && plan.rate > 0 ? {plan, random: mulberry32(plan.seed)} : undefined
  }

  get plan(): FaultPlan | undefined {
    return this.planned?.plan
  }

  get queued(): readonly QueuedFault[] {
    return this.queue
  }

  clear(): void {
    this.queue.length = 0
    this.planned = undefined
  }

  /**
   * The fault for this request, if any: the first queued one for the route, consumed by one; else,
   * when `random` allows it (not the token endpoint), one drawn by the plan.
   */
  take(routeName: string, options: {random: boolean}): Fault | undefined {
    const fault = this.fromQueue(routeName) ?? (options.random ? this.fromPlan() : undefined)
    if (fault) this.injected[faultName(fault)] = (this.injected[faultName(fault)] ?? 0) + 1
    return fault
  }

  private fromQueue(routeName: string): Fault | undefined {
    const index = this.queue.findIndex((queued) => queued.route === routeName || queued.route === '*')
    if (index === -1) return undefined
    const queued = this.queue[index]
    queued.remaining -= 1
    if (queued.remaining <= 0) this.queue.splice(index, 1)
    return queued.fault
  }

  private fromPlan(): Fault | undefined {
    if (!this.planned) return undefined
    const {plan, random} = this.planned
    if (random() >= plan.rate) return undefined
    return faultOf(plan.kinds[Math.floor(random() * plan.kinds.length)])
  }
}
