import {z} from 'zod'

import {LIMITS, PAYMENT_METHODS} from './enums.js'
import {
  birthdate,
  boundedInt,
  cents,
  cep,
  code,
  document,
  email,
  ip,
  checkWith,
  landline,
  mobilePhone,
  personName,
  text,
  webhookUrl,
  type Issue,
} from './rules.js'

const {address: A} = LIMITS

export const customerSchema = z.object({
  ip: ip().optional(),
  name: personName(),
  document: document(),
  email: email().optional(),
  landline: landline().optional(),
  mobilePhone: mobilePhone().optional(),
  birthdate: birthdate().optional(),
})

export const sellerSchema = z.object({
  name: personName(),
  document: document(),
})

export const addressSchema = z.object({
  postalCode: cep(),
  complement: text(A.complement.min, A.complement.max).optional(),
  number: z
    .string({error: 'must be a text of digits'})
    .refine((value) => /^\d{1,10}$/.test(value), {error: `must be ${A.number.min} to ${A.number.max} digits`}),
  street: text(A.street.min, A.street.max),
  neighborhood: text(A.neighborhood.min, A.neighborhood.max),
  city: text(A.city.min, A.city.max),
  state: text(A.state.min, A.state.max),
  country: text(A.country.min, A.country.max),
})

export const itemSchema = z.object({
  title: text(LIMITS.title.min, LIMITS.title.max),
  description: text(LIMITS.description.min, LIMITS.description.max).optional(),
  unitPrice: cents(),
  quantity: boundedInt(LIMITS.quantity.min, LIMITS.quantity.max).optional(),
})

export const pixSchema = z.object({
  expirationSeconds: boundedInt(LIMITS.expirationSeconds.min, LIMITS.expirationSeconds.max).optional(),
})

const fields = {
  amount: cents(),
  paymentMethod: z.enum(PAYMENT_METHODS, {error: `must be one of ${PAYMENT_METHODS.join(', ')}`}),
  webhookUrl: webhookUrl().optional(),
  externalCode: code().optional(),
  idempotencyKey: code(),
  customer: customerSchema.optional(),
  seller: sellerSchema.optional(),
  isInfoProduct: z.boolean({error: 'must be true or false'}).optional(),
  address: addressSchema.optional(),
  items: z.array(itemSchema, {error: 'must be a list of items'}).optional(),
  metadata: z.record(z.string(), z.unknown(), {error: 'must be a JSON object'}).optional(),
  pix: pixSchema.optional(),
}

/**
 * Rules across fields, checked on the raw body so that they are reported together with every
 * field rule (zod skips an object's refinements once one of its fields fails).
 */
function crossFieldIssues(raw: unknown): Issue[] {
  if (!raw || typeof raw !== 'object') return []
  const body = raw as Record<string, unknown>
  const issues: Issue[] = []
  if (body.isInfoProduct === false && body.address === undefined) {
    issues.push({path: 'address', message: 'is required when isInfoProduct is false (a physical product)'})
  }
  if (body.paymentMethod === 'PIX' && body.pix === undefined) {
    issues.push({path: 'pix', message: 'is required when paymentMethod is PIX (may be {})'})
  }
  const seen = new Set<string>()
  for (const [index, item] of (Array.isArray(body.items) ? body.items : []).entries()) {
    const title = (item as {title?: unknown} | null)?.title
    if (typeof title !== 'string') continue
    if (seen.has(title)) issues.push({path: `items.${index}.title`, message: `must be unique: "${title}" is also the title of an earlier item`})
    seen.add(title)
  }
  return issues
}

/** The create-transaction body as the sandbox reads it: unknown fields are ignored. */
export const createTransactionSchema = z.object(fields)

/** The same body as the CLI sends it: an unknown field is a typo, and refused. */
export const createTransactionStrictSchema = z.strictObject({
  ...fields,
  customer: customerSchema.strict().optional(),
  seller: sellerSchema.strict().optional(),
  address: addressSchema.strict().optional(),
  items: z.array(itemSchema.strict(), {error: 'must be a list of items'}).optional(),
  pix: pixSchema.strict().optional(),
})

export type CreateTransactionBody = z.infer<typeof createTransactionSchema>

export type Checked<T> = {ok: true; value: T} | {ok: false; issues: Issue[]}

/** Checks a create body against every documented rule, listing every broken one. */
export function checkCreateTransaction(body: unknown, options: {strict?: boolean} = {}): Checked<CreateTransactionBody> {
  const schema = options.strict ? createTransactionStrictSchema : createTransactionSchema
  const result = checkWith(schema, body)
  const issues = [...(result.ok ? [] : result.issues), ...crossFieldIssues(body)]
  if (!result.ok || issues.length > 0) return {ok: false, issues}
  // Metadata is kept exactly as sent: the contract's copy of a record drops a "__proto__" key.
  const {metadata} = body as {metadata?: Record<string, unknown>}
  return {ok: true, value: (metadata === undefined ? result.value : {...result.value, metadata}) as CreateTransactionBody}
}

export {UUID_PATTERN} from './enums.js'
