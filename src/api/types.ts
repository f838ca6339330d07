/**
 * The gateway's resources as types, inferred from the one contract in src/schemas/records.ts (type
 * imports only: nothing of zod is loaded for them).
 */
import type {z} from 'zod'

import type {
  accountHolderSchema,
  addressResponseSchema,
  createTransactionResponseSchema,
  customerResponseSchema,
  depositPageSchema,
  depositSchema,
  documentValueSchema,
  itemResponseSchema,
  paymentReceiptSchema,
  pixResponseSchema,
  sellerResponseSchema,
  statusHistoryEntrySchema,
  transactionSchema,
} from '../schemas/records.js'

export type PixResponse = z.infer<typeof pixResponseSchema>
export type StatusHistoryEntry = z.infer<typeof statusHistoryEntrySchema>
export type PaymentReceiptUrl = z.infer<typeof paymentReceiptSchema>
export type AccountHolder = z.infer<typeof accountHolderSchema>
export type DocumentValue = z.infer<typeof documentValueSchema>
export type CustomerResponse = z.infer<typeof customerResponseSchema>
export type SellerResponse = z.infer<typeof sellerResponseSchema>
export type Address = z.infer<typeof addressResponseSchema>
export type Item = z.infer<typeof itemResponseSchema>
export type Transaction = z.infer<typeof transactionSchema>
export type Deposit = z.infer<typeof depositSchema>
export type DepositPage = z.infer<typeof depositPageSchema>
export type CreateTransactionResponse = z.infer<typeof createTransactionResponseSchema>

export type {WithdrawResponse} from '../schemas/withdraw.js'
