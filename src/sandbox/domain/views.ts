import type {AccountHolder, Deposit, DocumentValue, Transaction} from '../../api/types.js'
import type {RecordEntry} from './records.js'

/**
 * How records are shown: the lookup's view and the deposit list's view, with documents masked and
 * the current status's duration counted up to now.
 */

/** Masks a document, keeping its last four characters: 52998224725 becomes *******4725. */
export function maskDocument(value: string): string {
  const plain = value.replace(/[^0-9A-Za-z]/g, '')
  return plain.length <= 4 ? '*'.repeat(plain.length) : `${'*'.repeat(plain.length - 4)}${plain.slice(-4)}`
}

/** Masks a holder's document, and its PIX key too when the key is that document (CPF or CNPJ). */
function maskHolder(holder: AccountHolder | undefined): AccountHolder | undefined {
  if (!holder) return undefined
  const keyIsDocument = holder.pix && (holder.pix.type === 'CPF' || holder.pix.type === 'CNPJ')
  return {
    ...holder,
    document: maskDocument(holder.document),
    ...(keyIsDocument ? {pix: {...holder.pix, key: maskDocument(holder.pix.key)}} : {}),
  }
}

/** A customer or seller with its document masked, in the {value, type} shape lookups answer. */
function maskParty<P extends {document: DocumentValue | string}>(party: P): P {
  const {document} = party
  const value = typeof document === 'string' ? document : document.value
  const type = typeof document === 'string' ? 'CPF' : document.type
  return {...party, document: {value: maskDocument(value), type}}
}

/** The history with the current status's duration counted up to `now`. */
export function liveHistory(data: Pick<Transaction, 'statusHistory'>, now: number): Transaction['statusHistory'] {
  const history = data.statusHistory
  const last = history.at(-1)
  if (!last) return history
  return [...history.slice(0, -1), {...last, durationInMilliseconds: Math.max(0, now - Date.parse(last.date))}]
}

/** The record as GET /core/transaction/{id} answers it: documents masked, durations up to now. */
export function lookupView(data: Readonly<Transaction>, now: number): Transaction {
  const view: Transaction = {...data, statusHistory: liveHistory(data, now)}
  if (data.customer) view.customer = maskParty(data.customer)
  if (data.seller) view.seller = maskParty(data.seller)
  if (data.payer) view.payer = maskHolder(data.payer)
  if (data.receiver) view.receiver = maskHolder(data.receiver)
  return view
}

/**
 * The record as an item of GET /core/deposit: the transaction's fields without customer, seller,
 * isInfoProduct, address, items, metadata and the infraction fields, plus depositOrigin. Pages
 * leave out the QR image (pixResponse.qrCodeBase64) to stay small; the lookup carries it.
 */
export function depositView(data: Readonly<Transaction>, origin: RecordEntry['origin'], now: number): Deposit {
  const {
    customer: _customer,
    seller: _seller,
    isInfoProduct: _isInfoProduct,
    address: _address,
    items: _items,
    metadata: _metadata,
    infractionDate: _infractionDate,
    infractionAmount: _infractionAmount,
    ...rest
  } = data
  const deposit: Deposit = {...rest, statusHistory: liveHistory(data, now), depositOrigin: origin}
  if (rest.pixResponse) deposit.pixResponse = {uri: rest.pixResponse.uri, expirationDate: rest.pixResponse.expirationDate}
  if (rest.payer) deposit.payer = maskHolder(rest.payer)
  if (rest.receiver) deposit.receiver = maskHolder(rest.receiver)
  return deposit
}
