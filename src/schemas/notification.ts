import {z} from 'zod'

import {NOTIFICATION_KINDS, NOTIFICATION_STATUSES} from './enums.js'

/**
 * Webhook notifications, in the shape the sandbox sends them. The reference does not show the
 * payload: this shape is the sandbox's own, and a real gateway may differ.
 */

/** The body POSTed to the webhook URL. */
export const notificationSchema = z.object({
  /** The notification's own id, also in the X-Notification-Id header. */
  id: z.string(),
  /** The id of the transaction or withdrawal it reports. */
  referenceId: z.string(),
  kind: z.enum(NOTIFICATION_KINDS),
  /** The notification's status when it was sent (RECEIVED on the first delivery). */
  status: z.enum(NOTIFICATION_STATUSES),
  /** The record's kind and its new status, e.g. ["transaction", "PAID"]. */
  tags: z.array(z.string()),
  createdAt: z.string(),
  /** The record as its lookup answers it, after the change. */
  data: z.record(z.string(), z.unknown()),
})

export type Notification = z.infer<typeof notificationSchema>

/** One try to deliver a notification. */
export const deliveryAttemptSchema = z.object({
  at: z.string(),
  /** Where the notification was meant to go: the record's webhookUrl, or a resend's overrideURL. */
  url: z.string(),
  /** Where it went instead, when the sandbox forwards webhooks to a local listener. */
  forwardedTo: z.string().optional(),
  /** The answer's status code, when there was an answer. */
  responseStatus: z.number().optional(),
  /** Why there was no answer: refused, unreachable, timed out. */
  error: z.string().optional(),
  durationMs: z.number(),
  /** What the attempt made of the notification. */
  outcome: z.enum(['SENT', 'FAILED', 'ERROR']),
  /** Made by a resend request, not by the status change itself. */
  resend: z.boolean(),
})

export type DeliveryAttempt = z.infer<typeof deliveryAttemptSchema>

/** A notification as the sandbox keeps it (GET /_sandbox/notifications): where it goes, and every attempt. */
export const storedNotificationSchema = notificationSchema.extend({
  url: z.string(),
  attempts: z.array(deliveryAttemptSchema),
})

export type StoredNotification = z.infer<typeof storedNotificationSchema>

/** Headers of a delivery. */
export const NOTIFICATION_HEADERS = {
  /** The notification's id. */
  id: 'x-notification-id',
  /** When forwarded to a local listener: the URL the notification was meant for. */
  originalUrl: 'x-original-url',
} as const
