/**
 * What the sandbox's domain refuses, in its own words. It knows nothing of HTTP: the routes map
 * each kind to a status code, in one place (routes/errors.ts).
 */
export abstract class DomainError extends Error {
  abstract readonly kind: 'not-found' | 'conflict' | 'invalid'

  /** One message, or one per broken rule. */
  constructor(readonly messages: string | string[]) {
    super(Array.isArray(messages) ? messages.join('; ') : messages)
  }
}

/** No record has that id. */
export class NotFound extends DomainError {
  readonly kind = 'not-found'
}

/** The record's state does not allow the step (paying a refunded charge, settling a paid withdrawal). */
export class Conflict extends DomainError {
  readonly kind = 'conflict'
}

/** The request breaks a rule: a field, an idempotency key used with another body, a stale snapshot. */
export class Invalid extends DomainError {
  readonly kind = 'invalid'
}
