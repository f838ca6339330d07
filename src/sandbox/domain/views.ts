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

/** What a page of GET /core/deposit holds, before it is written. */
export interface DepositPageOf {
  totalPages: number
  currentPage: number
  perPage: number
  snapshot: string
  records: ReadonlyArray<Readonly<Transaction>>
  origins: ReadonlyArray<RecordEntry['origin']>
}

/**
 * A page of a snapshot as UTF-8 JSON, less the one thing that changes between two answers: the
 * live duration of each item's current status. `bytes` holds the page with those numbers cut out,
 * `cuts` where each goes, `sinces` when each status began.
 */
interface PageTemplate {
  bytes: Buffer
  cuts: Int32Array
  sinces: Float64Array
}

/** A stand-in for a live duration while the page is serialized: no real duration is negative. */
const LIVE = '-1234567.5'
/** How many bytes of page templates are kept, the least recently used dropped first. */
const TEMPLATE_BYTES_LIMIT = 64 * 1024 * 1024

/** Templates by "snapshot:page": a snapshot's pages never change, so neither do their templates. */
const templates = new Map<string, PageTemplate>()
let templateBytes = 0

function templateOf(page: DepositPageOf): PageTemplate {
  const key = `${page.snapshot}:${page.currentPage}`
  const cached = templates.get(key)
  if (cached) {
    templates.delete(key)
    templates.set(key, cached)
    return cached
  }
  const sinces = new Float64Array(page.records.length)
  const items = page.records.map((data, index) => {
    const view = depositView(data, page.origins[index], 0)
    const last = view.statusHistory.at(-1)
    if (!last) return JSON.stringify(view)
    view.statusHistory[view.statusHistory.length - 1] = {...last, durationInMilliseconds: Number(LIVE)}
    sinces[index] = Date.parse(last.date)
    return JSON.stringify(view)
  })
  const {totalPages, currentPage, perPage, snapshot} = page
  const text = `{"totalPages":${totalPages},"currentPage":${currentPage},"perPage":${perPage},"snapshot":${JSON.stringify(snapshot)},"data":[${items.join(',')}]}`
  // Each item has one stand-in at most, in order: cut them out, noting where each was.
  const parts = text.split(LIVE).map((part) => Buffer.from(part))
  const cuts = new Int32Array(parts.length - 1)
  let at = 0
  parts.slice(0, -1).forEach((part, index) => {
    at += part.length
    cuts[index] = at
  })
  const made: PageTemplate = {bytes: Buffer.concat(parts), cuts, sinces: cuts.length === sinces.length ? sinces : sinces.filter((since) => since > 0)}
  templates.set(key, made)
  templateBytes += made.bytes.length
  while (templateBytes > TEMPLATE_BYTES_LIMIT && templates.size > 1) {
    const [oldest, dropped] = templates.entries().next().value!
    templates.delete(oldest)
    templateBytes -= dropped.bytes.length
  }
  return made
}

/** The most digits a duration in milliseconds can have (Number.MAX_SAFE_INTEGER has 16). */
const MAX_DIGITS = 16

/** Writes a non-negative integer's decimal digits at `at`, without making a string; answers where they end. */
function writeInteger(out: Buffer, at: number, value: number): number {
  let digits = 1
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits += 1
  for (let index = digits - 1, rest = value; index >= 0; index -= 1, rest = Math.floor(rest / 10)) out[at + index] = 48 + (rest % 10)
  return at + digits
}

/**
 * The page as UTF-8 JSON: the same bytes JSON.stringify makes of its items' depositView, with
 * each current status's duration counted up to `now`. After the first answer, a page of a
 * snapshot costs a copy of bytes and a hundred numbers, not a hundred objects serialized.
 * `allocate` gives the buffer it is written into (the HTTP layer's, used again: src/sandbox/http/page-buffers.ts).
 */
export function depositPageJson(page: DepositPageOf, now: number, allocate: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
  const {bytes, cuts, sinces} = templateOf(page)
  const out = allocate(bytes.length + cuts.length * MAX_DIGITS)
  let from = 0
  let at = 0
  for (let index = 0; index < cuts.length; index += 1) {
    const cut = cuts[index]
    out.set(bytes.subarray(from, cut), at)
    at = writeInteger(out, at + cut - from, Math.max(0, Math.round(now - sinces[index])))
    from = cut
  }
  out.set(bytes.subarray(from), at)
  return out.subarray(0, at + bytes.length - from)
}
