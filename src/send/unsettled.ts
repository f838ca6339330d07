import type {CommandContext} from '../cli/context.js'

/**
 * A money-moving request whose outcome is unknown (the connection lost after it was sent, a 5xx or
 * a 429, after the retries): the error, with `hint` saying what may have happened and how to settle
 * it, goes out with the idempotency key (in --json too). A request never sent (no token could be
 * had, or no attempt could connect) leaves nothing to be unsure of: only the key is added.
 */
export async function unsettled(error: unknown, idempotencyKey: string, ctx: CommandContext, hint: (key: string, bin: string) => string): Promise<unknown> {
  const {GatewayError} = await import('../api/errors.js')
  if (!(error instanceof GatewayError) || !error.retryable) return error
  const {ReportedError} = await import('../cli/errors.js')
  if (error.idempotencyKey === undefined || error.notSent) return new ReportedError(error, {lines: [], json: {idempotencyKey}})
  const Type = error.constructor as new (message: string, options: Record<string, unknown>) => Error
  const hinted = new Type(error.message, {
    status: error.status,
    body: error.body,
    messages: error.messages,
    retryable: true,
    retryAfterMs: error.retryAfterMs,
    attempts: error.attempts,
    idempotencyKey,
    cause: error.cause,
    hint: hint(idempotencyKey, ctx.bin),
  })
  return new ReportedError(hinted, {lines: [], json: {idempotencyKey}})
}
