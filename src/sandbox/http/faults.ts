/**
 * Faults injected into the gateway API, for testing clients against a gateway that fails. A fault
 * acts before the handler (an error answer instead of the route's) or after it (the route ran and
 * committed, and its answer is then lost or late).
 */

/** One fault, as the pipeline applies it. */
export type Fault = {kind: 'status'; status: number; retryAfter?: number}

/** Where in the pipeline a fault acts. */
export const actsBeforeHandler = (fault: Fault): boolean => fault.kind === 'status'

/** A fault waiting for the next requests of a route. */
export interface QueuedFault {
  /** "METHOD /path/pattern" as the router names it, or "*" for every gateway route. */
  route: string
  fault: Fault
  /** How many requests to fail; then the fault is gone. */
  remaining: number
}

export class Faults {
  private readonly queue: QueuedFault[] = []

  add(queued: QueuedFault): void {
    this.queue.push(queued)
  }

  /** The fault for this request, if any: the first queued one for the route, consumed by one. */
  take(routeName: string): Fault | undefined {
    const index = this.queue.findIndex((queued) => queued.route === routeName || queued.route === '*')
    if (index === -1) return undefined
    const queued = this.queue[index]
    queued.remaining -= 1
    if (queued.remaining <= 0) this.queue.splice(index, 1)
    return queued.fault
  }
}
