import {Agent} from 'undici'

import type {Courier, DeliveryReport} from './domain/notifications.js'
import {pointsAtItself} from './http/addresses.js'
import {NOTIFICATION_HEADERS, type Notification} from '../schemas/notification.js'

export interface HttpCourierOptions {
  /** How long one delivery may take, connection included, before it counts as ERROR. */
  timeoutMs: number
  /** Deliver every notification here instead, with the intended URL in X-Original-Url. */
  forwardTo?: string
}

/** How much of a webhook's answer is read before it is thrown away. */
const ANSWER_LIMIT = 64 * 1024

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed by the other side',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
}

/** Why a delivery got no answer, in a few words. */
function describe(error: unknown, timeoutMs: number): string {
  let current: unknown = error
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth += 1) {
    const {code, name} = current as {code?: string; name?: string}
    if (name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return `timed out after ${timeoutMs} ms`
    if (code && NETWORK_ERRORS[code]) return NETWORK_ERRORS[code]
    current = (current as {cause?: unknown}).cause
  }
  return error instanceof Error ? error.message : String(error)
}

/**
 * Delivers notifications by HTTP POST: JSON body, X-Notification-Id, a time limit on the whole
 * exchange. A 2xx answer makes it SENT, any other answer FAILED, no answer in time ERROR.
 */
export class HttpCourier implements Courier {
  private readonly agent: Agent
  /** The port the sandbox listens on: nothing is delivered to the sandbox itself. */
  selfPort?: number

  constructor(private readonly options: HttpCourierOptions) {
    const {timeoutMs} = options
    this.agent = new Agent({connect: {timeout: timeoutMs}, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 1000})
  }

  async deliver(notification: Notification, url: string): Promise<DeliveryReport> {
    const {forwardTo, timeoutMs} = this.options
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'gateway-sandbox',
      [NOTIFICATION_HEADERS.id]: notification.id,
    }
    if (forwardTo) headers[NOTIFICATION_HEADERS.originalUrl] = url
    const forwarded = forwardTo === undefined ? {} : {forwardedTo: forwardTo}
    if (pointsAtItself(forwardTo ?? url, this.selfPort)) return {outcome: 'ERROR', error: 'not delivered: the URL points at the sandbox itself', ...forwarded}
    try {
      const target = new URL(forwardTo ?? url)
      const answer = await this.agent.request({
        origin: target.origin,
        path: target.pathname + target.search,
        method: 'POST',
        headers,
        body: JSON.stringify(notification),
        signal: AbortSignal.timeout(timeoutMs),
      })
      await answer.body.dump({limit: ANSWER_LIMIT}).catch(() => undefined)
      const sent = answer.statusCode >= 200 && answer.statusCode < 300
      return {outcome: sent ? 'SENT' : 'FAILED', responseStatus: answer.statusCode, ...forwarded}
    } catch (error) {
      return {outcome: 'ERROR', error: describe(error, timeoutMs), ...forwarded}
    }
  }

  async close(): Promise<void> {
    await this.agent.destroy()
  }
}
