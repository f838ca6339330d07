import type {AccountHolder, CreateTransactionResponse, DocumentValue, Transaction} from '../api/types.js'
import {formatDistance, formatDuration} from '../input/duration.js'
import {localTime} from '../output/time.js'
import {brl} from './money.js'
import {composedText, type Paint, type Style} from '../cli/terminal.js'
import {asciiText as a, printable as t} from '../output/printable.js'


const STATUS_STYLE: Record<string, Style> = {
  PAID: 'green',
  REFUNDED: 'yellow',
  PROCESSING_REFUND: 'yellow',
  PROCESSING_INFRACTION: 'red',
  INFRACTION: 'red',
  BLOCKED: 'red',
  FAILED: 'red',
}

/** A status, ASCII as documented (any other character escaped), coloured by what it means. */
export function statusText(status: string, paint: Paint): string {
  const style = STATUS_STYLE[status]
  return style ? paint(style, a(status)) : a(status)
}

/** "2026-11-21 11:03:07 UTC-3": in the operator's time zone (TZ), with the zone; a date that does not read is shown escaped. */
export function when(iso: string | undefined, zone?: string): string {
  return a(localTime(iso, zone))
}

function relative(iso: string, now: number): string {
  const left = Date.parse(iso) - now
  if (Number.isNaN(left)) return ''
  return left >= 0 ? ` (in ${formatDistance(left)})` : ` (${formatDistance(-left)} ago)`
}

/**
 * "Label: value" lines, the values aligned; pairs without a value are left out. Values are composed
 * by the caller, outside text in them escaped (`printable`, or `asciiText` for ASCII fields).
 */
export function rows(pairs: Array<[string, string | undefined]>, indent = '  '): string[] {
  const present = pairs.filter((pair): pair is [string, string] => pair[1] !== undefined && pair[1] !== '')
  const width = Math.max(0, ...present.map(([label]) => label.length)) + 1
  return present.map(([label, value]) => `${indent}${`${label}:`.padEnd(width + 1)}${composedText(value)}`)
}

function documentText(document: DocumentValue | string | undefined): string | undefined {
  if (!document) return undefined
  return typeof document === 'string' ? a(document) : `${a(document.value)} (${a(document.type)})`
}

function holderText(holder: AccountHolder): string {
  return `${t(holder.name)} · ${a(holder.document)} · bank ISPB ${a(holder.bankAccount?.ispb ?? '-')} · key ${t(holder.pix?.key ?? '-')} (${a(holder.pix?.type ?? '-')})`
}

const opt = (value: string | undefined, as = t) => (value === undefined || value === null ? undefined : as(value))

/** The summary of a created charge: everything but the QR drawing and the copy-and-paste code. */
export function createdLines(created: CreateTransactionResponse, paint: Paint, now = Date.now(), zone?: string): string[] {
  const expiry = created.pixResponse?.expirationDate
  return rows([
    ['ID', a(created.id)],
    ['Status', statusText(created.status, paint)],
    ['Amount', brl(created.amount)],
    ['External code', opt(created.externalCode)],
    ['Expires', expiry ? `${when(expiry, zone)}${relative(expiry, now)}` : undefined],
  ])
}

/** The human view of a transaction: amounts, timeline, parties, items, and what happened to it. */
export function transactionLines(tx: Transaction, paint: Paint, zone?: string): string[] {
  const lines: string[] = [
    `${paint('bold', `Transaction ${a(tx.id)}`)}  ${statusText(tx.status, paint)}`,
    ...rows([
      ['Amount', brl(tx.amount)],
      ['Amount paid', tx.amountPaid === undefined ? undefined : brl(tx.amountPaid)],
      ['Fee', tx.feeAmount === undefined ? undefined : brl(tx.feeAmount)],
      ['Method', opt(tx.paymentMethod, a)],
      ['Product', tx.isInfoProduct === false ? 'physical' : 'digital'],
      ['External code', opt(tx.externalCode)],
      ['Acquirer', tx.acquirer ? `${t(tx.acquirer)}${tx.acquirerCode ? ` (${a(tx.acquirerCode)})` : ''}` : undefined],
      ['Webhook', opt(tx.webhookUrl)],
      ['Created', when(tx.createdAt, zone)],
      ['Updated', when(tx.updatedAt, zone)],
      ['QR expires', tx.pixResponse?.expirationDate ? when(tx.pixResponse.expirationDate, zone) : undefined],
    ]),
  ]

  if (tx.statusHistory?.length) {
    lines.push('', paint('bold', 'Status history'))
    const width = Math.max(...tx.statusHistory.map((entry) => a(entry.status).length))
    tx.statusHistory.forEach((entry, index) => {
      const current = index === tx.statusHistory.length - 1
      const duration = formatDuration(entry.durationInMilliseconds ?? 0)
      const marker = current ? '●' : '○'
      lines.push(`  ${marker} ${when(entry.date, zone)}  ${statusText(entry.status, paint)}${' '.repeat(width - a(entry.status).length)}  ${current ? `${duration} so far` : duration}`)
    })
  }

  if (tx.customer) {
    lines.push('', paint('bold', 'Customer'))
    lines.push(
      ...rows([
        ['Name', opt(tx.customer.name)],
        ['Document', documentText(tx.customer.document)],
        ['E-mail', opt(tx.customer.email)],
        ['Mobile', opt(tx.customer.mobilePhone, a)],
        ['Landline', opt(tx.customer.landline, a)],
        ['Birthdate', opt(tx.customer.birthdate, a)],
        ['IP', opt(tx.customer.ip, a)],
      ]),
    )
  }
  if (tx.seller) {
    lines.push('', paint('bold', 'Seller'), ...rows([['Name', opt(tx.seller.name)], ['Document', documentText(tx.seller.document)]]))
  }
  if (tx.address) {
    const place = tx.address
    lines.push('', paint('bold', 'Delivery address'))
    lines.push(`  ${t(place.street)}, ${t(place.number)}${place.complement ? ` (${t(place.complement)})` : ''}, ${t(place.neighborhood)}`)
    lines.push(`  ${t(place.city)} - ${t(place.state)}, ${a(place.postalCode)}, ${t(place.country)}`)
  }
  if (tx.items?.length) {
    lines.push('', paint('bold', 'Items'))
    for (const item of tx.items) {
      const quantity = item.quantity ?? 1
      lines.push(`  ${quantity} × ${t(item.title)}  ${brl(item.unitPrice)} each = ${brl(item.unitPrice * quantity)}${item.description ? `  (${t(item.description)})` : ''}`)
    }
  }
  if (tx.metadata && Object.keys(tx.metadata).length > 0) {
    lines.push('', paint('bold', 'Metadata'), ...rows(Object.entries(tx.metadata).map(([key, value]) => [t(key), t(typeof value === 'string' ? value : JSON.stringify(value))])))
  }
  if (tx.paymentDate || tx.endToEnd || tx.payer) {
    lines.push('', paint('bold', 'Payment'))
    lines.push(
      ...rows([
        ['Paid at', tx.paymentDate ? when(tx.paymentDate, zone) : undefined],
        ['End-to-end', opt(tx.endToEnd, a)],
        ['Payer', tx.payer ? holderText(tx.payer) : undefined],
        ['Receiver', tx.receiver ? holderText(tx.receiver) : undefined],
        ['Receipt', opt(tx.paymentReceipt?.url)],
      ]),
    )
  }
  if (tx.refundDate || tx.refundAmount !== undefined || tx.errorMessageRefund) {
    lines.push('', paint('bold', 'Refund'))
    lines.push(
      ...rows([
        ['Amount', tx.refundAmount === undefined ? undefined : brl(tx.refundAmount)],
        ['Refunded at', tx.refundDate ? when(tx.refundDate, zone) : undefined],
        ['End-to-end', opt(tx.endToEndRefund, a)],
        ['Receipt', opt(tx.refundReceipt?.url)],
        ['Error', opt(tx.errorMessageRefund ?? undefined)],
      ]),
    )
  }
  if (tx.infractionDate || tx.infractionAmount !== undefined) {
    lines.push('', paint('bold', 'Infraction (MED)'))
    lines.push(
      ...rows([
        ['Amount', tx.infractionAmount === undefined ? undefined : brl(tx.infractionAmount)],
        ['Opened at', tx.infractionDate ? when(tx.infractionDate, zone) : undefined],
      ]),
    )
  }
  if (tx.errorMessage) lines.push('', `${paint('red', 'Error:')} ${t(tx.errorMessage)}`)
  if (tx.pixResponse?.uri && tx.status === 'PIX_QRCODE_GENERATED') {
    lines.push('', paint('bold', 'Pix copia e cola'), t(tx.pixResponse.uri))
  }
  return lines
}
