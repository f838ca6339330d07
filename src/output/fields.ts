/**
 * The fields `--fields` may pick from each command's record (a test holds them to the response
 * contracts in src/schemas). Kept as plain lists, so that loading a command costs no schema.
 */

const PIX_RESPONSE = ['pixResponse', 'pixResponse.uri', 'pixResponse.qrCodeBase64', 'pixResponse.expirationDate']

/** `tx create`: the created charge, its idempotency key, and replayed. */
export const TX_CREATE_RECORD_FIELDS = ['id', 'externalCode', 'amount', 'type', 'status', ...PIX_RESPONSE, 'idempotencyKey', 'replayed'] as const

/** `withdraw`: the withdrawal, its idempotency key, and replayed. */
export const WITHDRAW_RECORD_FIELDS = ['id', 'externalCode', 'amount', 'status', 'idempotencyKey', 'replayed'] as const

/** `tx get`: the transaction as the gateway returned it. */
export const TRANSACTION_RECORD_FIELDS = [
  'id',
  'acquirerCode',
  'acquirer',
  'amount',
  'paymentMethod',
  'webhookUrl',
  'externalCode',
  'paymentReceipt',
  'refundReceipt',
  'createdAt',
  'status',
  'statusHistory',
  'updatedAt',
  'amountPaid',
  'paymentDate',
  'refundDate',
  'refundAmount',
  ...PIX_RESPONSE,
  'errorMessage',
  'errorMessageRefund',
  'endToEnd',
  'endToEndRefund',
  'payer',
  'receiver',
  'feeAmount',
  'customer',
  'seller',
  'isInfoProduct',
  'address',
  'items',
  'metadata',
  'infractionDate',
  'infractionAmount',
] as const
