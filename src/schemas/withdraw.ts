import {z} from 'zod'

import {PIX_KEY_TYPES, WITHDRAWAL_STATUSES} from './enums.js'
import {pixKeyProblem} from './pix-key.js'
import {cents, checkWith, code, webhookUrl, type Issue} from './rules.js'
import type {Checked} from './transaction.js'

/**
 * The withdrawal (PIX out) request and response: one contract for the CLI's checks, the
 * sandbox's checks and the wire types.
 */

const fields = {
  amount: cents(),
  pixKey: z.string({error: 'must be a PIX key'}).min(1, {error: 'must not be empty'}),
  pixKeyType: z.enum(PIX_KEY_TYPES, {error: `must be one of ${PIX_KEY_TYPES.join(', ')}`}),
  webhookUrl: webhookUrl().optional(),
  externalCode: code().optional(),
  idempotencyKey: code().optional(),
}

/** The body as the gateway reads it: unknown fields are ignored. */
export const withdrawSchema = z.object(fields)

/** The same body as the CLI sends it: an unknown field is a typo, and refused. */
export const withdrawStrictSchema = z.strictObject(fields)

export type WithdrawBody = z.infer<typeof withdrawSchema>

/** The key against its type, checked once both are themselves valid, beside every field rule. */
function keyIssues(raw: unknown): Issue[] {
  const body = (raw ?? {}) as Record<string, unknown>
  const {pixKey, pixKeyType} = body
  if (typeof pixKey !== 'string' || !pixKey || !PIX_KEY_TYPES.includes(pixKeyType as never)) return []
  const problem = pixKeyProblem(pixKey, pixKeyType as WithdrawBody['pixKeyType'])
  return problem ? [{path: 'pixKey', message: problem}] : []
}

/** Checks a withdrawal body against every rule, listing every broken one. */
export function checkWithdraw(body: unknown, options: {strict?: boolean} = {}): Checked<WithdrawBody> {
  const result = checkWith(options.strict ? withdrawStrictSchema : withdrawSchema, body)
  const issues = [...(result.ok ? [] : result.issues), ...keyIssues(body)]
  return result.ok && issues.length === 0 ? {ok: true, value: result.value} : {ok: false, issues}
}

/** The answer to a withdrawal: 201 with its id and status (PENDING when new). */
export const withdrawResponseSchema = z.object({
  id: z.string(),
  externalCode: z.string().optional(),
  amount: z.number(),
  status: z.enum(WITHDRAWAL_STATUSES),
})

export type WithdrawResponse = z.infer<typeof withdrawResponseSchema>
