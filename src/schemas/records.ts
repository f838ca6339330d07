import {z} from 'zod'

import {DEPOSIT_ORIGINS} from './enums.js'
import {quickCheck} from './quick.js'

/**
 * The gateway's answers, as the reference documents them: the one contract the client's types are
 * inferred from and the sandbox's answers are held to. Readers stay tolerant: what the reference
 * does not require is optional, and statuses are read as text so a new one does not break a reader.
 */

export const pixResponseSchema = z.object({
  uri: z.string(),
  qrCodeBase64: z.string().optional(),
  expirationDate: z.string(),
})

export const statusHistoryEntrySchema = z.object({
  status: z.string(),
  date: z.string(),
  durationInMilliseconds: z.number(),
})

export const paymentReceiptSchema = z.object({url: z.string(), expirationDate: z.string()})

export const accountHolderSchema = z.object({
  type: z.enum(['PF', 'PJ']),
  name: z.string(),
  document: z.string(),
  bankAccount: z.object({type: z.string(), digit: z.string(), ispb: z.string()}),
  pix: z.object({key: z.string(), type: z.string()}),
})

/** A document in a lookup: an object with the masked value and its kind, or (tolerated) a bare string. */
export const documentValueSchema = z.object({value: z.string(), type: z.string()})
const documentField = z.union([documentValueSchema, z.string()])

export const customerResponseSchema = z.object({
  ip: z.string().optional(),
  name: z.string(),
  email: z.string().optional(),
  document: documentField,
  landline: z.string().optional(),
  mobilePhone: z.string().optional(),
  birthdate: z.string().optional(),
})

export const sellerResponseSchema = z.object({name: z.string(), document: documentField})

export const addressResponseSchema = z.object({
  postalCode: z.string(),
  complement: z.string().optional(),
  number: z.string(),
  street: z.string(),
  neighborhood: z.string(),
  city: z.string(),
  state: z.string(),
  country: z.string(),
})

export const itemResponseSchema = z.object({
  title: z.string(),
  unitPrice: z.number(),
  quantity: z.number(),
  description: z.string().optional(),
})

const recordFields = {
  id: z.string(),
  acquirerCode: z.string().optional(),
  acquirer: z.string(),
  amount: z.number(),
  paymentMethod: z.literal('PIX'),
  webhookUrl: z.string().optional(),
  externalCode: z.string().optional(),
  paymentReceipt: paymentReceiptSchema.optional(),
  refundReceipt: paymentReceiptSchema.optional(),
  createdAt: z.string(),
  status: z.string(),
  statusHistory: z.array(statusHistoryEntrySchema),
  updatedAt: z.string(),
  amountPaid: z.number().optional(),
  paymentDate: z.string().optional(),
  refundDate: z.string().optional(),
  refundAmount: z.number().optional(),
  pixResponse: pixResponseSchema.optional(),
  errorMessage: z.string().nullable().optional(),
  errorMessageRefund: z.string().nullable().optional(),
  endToEnd: z.string().optional(),
  endToEndRefund: z.string().optional(),
  payer: accountHolderSchema.optional(),
  receiver: accountHolderSchema.optional(),
  feeAmount: z.number().optional(),
}

/** A transaction, as the lookup by id answers it. */
export const transactionSchema = z.object({
  ...recordFields,
  customer: customerResponseSchema.optional(),
  seller: sellerResponseSchema.optional(),
  isInfoProduct: z.boolean(),
  address: addressResponseSchema.optional(),
  items: z.array(itemResponseSchema).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  infractionDate: z.string().optional(),
  infractionAmount: z.number().optional(),
})

/** An item of the deposit list: a transaction without the sale's details, with its origin. */
export const depositSchema = z.object({...recordFields, depositOrigin: z.enum(DEPOSIT_ORIGINS)})

export const depositPageSchema = z.object({
  totalPages: z.number(),
  currentPage: z.number(),
  perPage: z.number(),
  snapshot: z.string().optional(),
  data: z.array(depositSchema),
})

export const createTransactionResponseSchema = z.object({
  id: z.string(),
  externalCode: z.string().optional(),
  amount: z.number(),
  type: z.literal('TRANSACTION'),
  status: z.string(),
  pixResponse: pixResponseSchema.optional(),
})

/**
 * The same contracts as the CLI reads an answer: the fields the reference requires must be there
 * with their types, while unknown fields are kept and an enum value the reference does not list
 * (a new payment method, origin or holder type) is read as text. An answer that fails is not the
 * record it claims to be.
 */
const holderAnswerSchema = accountHolderSchema.extend({type: z.string()})
const answerFields = {paymentMethod: z.string(), payer: holderAnswerSchema.optional(), receiver: holderAnswerSchema.optional()}

export const transactionAnswerSchema = transactionSchema.extend(answerFields)
export const depositAnswerSchema = depositSchema.extend({...answerFields, depositOrigin: z.string()})
export const depositPageAnswerSchema = depositPageSchema.extend({data: z.array(depositAnswerSchema)})
export const createTransactionAnswerSchema = createTransactionResponseSchema.extend({type: z.string()})
export const withdrawAnswerSchema = z.object({id: z.string(), externalCode: z.string().optional(), amount: z.number(), status: z.string()})

/**
 * The answers the client reads, by name: the build writes each one's shape into contract-shapes.json
 * (see quick.ts), which the client checks an answer against before it loads zod at all.
 */
export const ANSWER_CONTRACTS = {
  transaction: transactionAnswerSchema,
  depositPage: depositPageAnswerSchema,
  created: createTransactionAnswerSchema,
  withdrawal: withdrawAnswerSchema,
} as const
export type AnswerContract = keyof typeof ANSWER_CONTRACTS

/**
 * The first reason an answer fails its contract, in a few words: "amount: expected number, got
 * string". An answer the contract's quick check accepts is not read again; zod reads the rest, and
 * explains what it refuses. `once`: this contract checks a single answer in the run, which zod then
 * reads without first compiling a parser for the schema (worth it for the pages of a listing, not
 * for one record).
 */
export function contractProblem(schema: z.ZodType, value: unknown, once = false): string | undefined {
  // Read without building a copy when the contract allows it; zod reads what that cannot accept.
  if (quickCheck(schema)?.(value)) return undefined
  const result = schema.safeParse(value, once ? {jitless: true} : undefined)
  if (result.success) return undefined
  const issue = result.error.issues[0]
  const path = issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : ''
  const got = (() => {
    let current: unknown = value
    for (const key of issue.path) current = current && typeof current === 'object' ? (current as Record<PropertyKey, unknown>)[key as PropertyKey] : undefined
    return current === undefined ? 'missing' : current === null ? 'null' : Array.isArray(current) ? 'an array' : typeof current
  })()
  return `${path}${issue.code === 'invalid_type' ? `expected ${(issue as {expected?: string}).expected}, got ${got}` : issue.message}`
}
