/** The gateway's resources, as the reference documents them. Readers stay tolerant: most fields are optional. */

export interface PixResponse {
  uri: string
  qrCodeBase64?: string
  expirationDate: string
}

export interface StatusHistoryEntry {
  status: string
  date: string
  durationInMilliseconds: number
}

export interface PaymentReceiptUrl {
  url: string
  expirationDate: string
}

export interface AccountHolder {
  type: 'PF' | 'PJ'
  name: string
  document: string
  bankAccount: {type: string; digit: string; ispb: string}
  pix: {key: string; type: string}
}

export interface DocumentValue {
  value: string
  type: string
}

export interface CustomerResponse {
  ip?: string
  name: string
  email?: string
  document: DocumentValue | string
  landline?: string
  mobilePhone?: string
  birthdate?: string
}

export interface SellerResponse {
  name: string
  document: DocumentValue | string
}

export interface Address {
  postalCode: string
  complement?: string
  number: string
  street: string
  neighborhood: string
  city: string
  state: string
  country: string
}

export interface Item {
  title: string
  unitPrice: number
  quantity: number
  description?: string
}

export interface Transaction {
  id: string
  acquirerCode?: string
  acquirer: string
  amount: number
  paymentMethod: 'PIX'
  webhookUrl?: string
  externalCode?: string
  paymentReceipt?: PaymentReceiptUrl
  refundReceipt?: PaymentReceiptUrl
  customer?: CustomerResponse
  seller?: SellerResponse
  isInfoProduct: boolean
  address?: Address
  items?: Item[]
  metadata?: Record<string, unknown>
  createdAt: string
  status: string
  statusHistory: StatusHistoryEntry[]
  updatedAt: string
  amountPaid?: number
  paymentDate?: string
  infractionDate?: string
  infractionAmount?: number
  refundDate?: string
  refundAmount?: number
  pixResponse?: PixResponse
  errorMessage?: string | null
  errorMessageRefund?: string | null
  endToEnd?: string
  endToEndRefund?: string
  payer?: AccountHolder
  receiver?: AccountHolder
  feeAmount?: number
}

export type Deposit = Omit<
  Transaction,
  'customer' | 'seller' | 'isInfoProduct' | 'address' | 'items' | 'metadata' | 'infractionDate' | 'infractionAmount'
> & {depositOrigin: 'QRCODE' | 'PIX_KEY'}

export interface DepositPage {
  totalPages: number
  currentPage: number
  perPage: number
  snapshot?: string
  data: Deposit[]
}

export interface CreateTransactionResponse {
  id: string
  externalCode?: string
  amount: number
  type: 'TRANSACTION'
  status: string
  pixResponse?: PixResponse
}

export type {WithdrawResponse} from '../schemas/withdraw.js'

/**
 * A withdrawal as the sandbox's controls show it. The reference shows only the create answer;
 * the rest of this record is the sandbox's own.
 */
export interface SandboxWithdrawal {
  id: string
  amount: number
  pixKey: string
  pixKeyType: string
  externalCode?: string
  webhookUrl?: string
  status: string
  statusHistory: StatusHistoryEntry[]
  createdAt: string
  updatedAt: string
  endToEnd?: string
  errorMessage?: string
}
