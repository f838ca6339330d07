import {randomUUID} from 'node:crypto'

import type {NotificationKind, NotificationStatus} from '../../schemas/enums.js'
import type {DeliveryAttempt, Notification, StoredNotification} from '../../schemas/notification.js'

/** What came of one delivery: the courier's report. */
export interface DeliveryReport {
  outcome: DeliveryAttempt['outcome']
  /** Where it was actually sent, when that was not the destination (a forwarding listener). */
  forwardedTo?: string
  responseStatus?: number
  error?: string
}

/** Carries a notification to a URL. The sandbox's is HTTP (../delivery.ts); the domain only needs the report. */
export interface Courier {
  deliver(notification: Notification, url: string): Promise<DeliveryReport>
  close(): Promise<void>
}

/** Which notifications a resend redelivers. */
export interface Selection {
  /** A notification's id, or the id of the record it reports. */
  referenceId?: string
  fromMs?: number
  toMs?: number
  /** Any of these statuses. */
  status?: readonly NotificationStatus[]
  /** Any of these tags. */
  tags?: readonly string[]
}

interface Kept extends Notification {
  url: string
  attempts: DeliveryAttempt[]
  createdAtMs: number
}

/** At most this many deliveries at once; the rest wait their turn. */
const CONCURRENT_DELIVERIES = 32

/**
 * The notifications the gateway sends on every status change of a record with a webhookUrl. Each
 * is stored RECEIVED, then delivered off the request path: SENT after a 2xx answer, FAILED after
 * another answer, ERROR when the URL could not be reached in time. Every attempt is recorded; a
 * resend adds attempts. One record's notifications are delivered in the order they were made.
 */
export class Notifications {
  private readonly kept: Kept[] = []
  /** The last delivery of each record, which the next one of that record waits for. */
  private readonly chains = new Map<string, Promise<void>>()
  private readonly waiting: Array<() => void> = []
  private running = 0
  private disposed = false
  private readonly inFlight = new Set<Promise<void>>()

  constructor(
    private readonly courier: Courier,
    private readonly now: () => number,
  ) {}

  /** Stores a notification of a record's new status and sends it to `url`. */
  statusChanged(kind: NotificationKind, referenceId: string, status: string, url: string, data: Record<string, unknown>): Notification {
    const createdAtMs = this.now()
    const notification: Kept = {
      id: randomUUID(),
      referenceId,
      kind,
      status: 'RECEIVED',
      tags: [kind, status],
      createdAt: new Date(createdAtMs).toISOString(),
      data,
      url,
      attempts: [],
      createdAtMs,
    }
    this.kept.push(notification)
    this.send(notification, url, false)
    return body(notification)
  }

  /** Redelivers every notification the selection matches, to `overrideUrl` when given. Answers how many. */
  resend(selection: Selection, overrideUrl?: string): number {
    const matched = this.select(selection)
    for (const notification of matched) this.send(notification, overrideUrl ?? notification.url, true)
    return matched.length
  }

  /** The notifications the selection matches, oldest first. */
  list(selection: Selection = {}): StoredNotification[] {
    return this.select(selection).map(stored)
  }

  /** Resolves once every delivery started so far has ended. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight)
  }

  async dispose(): Promise<void> {
    this.disposed = true
    for (const start of this.waiting.splice(0)) start()
    await this.courier.close()
  }

  private select(selection: Selection): Kept[] {
    const {fromMs = -Infinity, toMs = Infinity, status, tags} = selection
    // Ids are case-insensitive: the records' are lower case.
    const referenceId = selection.referenceId?.toLowerCase()
    return this.kept.filter(
      (notification) =>
        (referenceId === undefined || notification.id === referenceId || notification.referenceId === referenceId) &&
        notification.createdAtMs >= fromMs &&
        notification.createdAtMs <= toMs &&
        (!status || status.includes(notification.status)) &&
        (!tags || tags.some((tag) => notification.tags.includes(tag))),
    )
  }

  /**
   * Queues one delivery: after the record's previous one, when a delivery slot is free, and never
   * within the request that caused it (setImmediate), so the answer is written first.
   */
  private send(notification: Kept, url: string, resend: boolean): void {
    const previous = this.chains.get(notification.referenceId) ?? Promise.resolve()
    const delivery = previous
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => this.slot())
      .then(async (release) => {
        try {
          if (!this.disposed) await this.attempt(notification, url, resend)
        } finally {
          release()
        }
      })
    this.chains.set(notification.referenceId, delivery)
    this.inFlight.add(delivery)
    void delivery.finally(() => {
      this.inFlight.delete(delivery)
      if (this.chains.get(notification.referenceId) === delivery) this.chains.delete(notification.referenceId)
    })
  }

  private async attempt(notification: Kept, url: string, resend: boolean): Promise<void> {
    const atMs = this.now()
    const started = performance.now()
    const report = await this.courier.deliver(body(notification), url).catch(
      (error: Error): DeliveryReport => ({outcome: 'ERROR', error: error.message}),
    )
    notification.attempts.push({
      at: new Date(atMs).toISOString(),
      url,
      ...(report.forwardedTo === undefined ? {} : {forwardedTo: report.forwardedTo}),
      ...(report.responseStatus === undefined ? {} : {responseStatus: report.responseStatus}),
      ...(report.error === undefined ? {} : {error: report.error}),
      durationMs: Math.round(performance.now() - started),
      outcome: report.outcome,
      resend,
    })
    notification.status = report.outcome
  }

  /** Waits for a delivery slot; answers its release. */
  private async slot(): Promise<() => void> {
    if (this.running >= CONCURRENT_DELIVERIES && !this.disposed) await new Promise<void>((resolve) => this.waiting.push(resolve))
    this.running += 1
    return () => {
      this.running -= 1
      this.waiting.shift()?.()
    }
  }
}

/** The notification as it is sent: without its destination and attempts. */
function body(notification: Kept): Notification {
  const {id, referenceId, kind, status, tags, createdAt, data} = notification
  return {id, referenceId, kind, status, tags, createdAt, data}
}

/** The notification as the sandbox lists it, its attempts copied. */
function stored(notification: Kept): StoredNotification {
  return {...body(notification), url: notification.url, attempts: notification.attempts.map((attempt) => ({...attempt}))}
}
