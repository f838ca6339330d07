import type {Paint} from '../cli/terminal.js'
import type {DecodedPix} from '../pix/decode.js'
import {brl} from './money.js'
import {rows} from './transaction.js'

/** What field 01 (Point of Initiation Method) says about reuse, when the code carries it. */
function use(decoded: DecodedPix): string {
  const initiation = decoded.fields.find((field) => field.id === '01')?.value
  if (initiation === '12') return ' (single use)'
  if (initiation === '11') return ' (reusable)'
  return ''
}

/**
 * What a PIX copy-and-paste code asks for, for a person: static or dynamic, the key or the
 * location, the amount in BRL, who is paid, the txid, and whether the CRC16 holds.
 */
export function pixLines(decoded: DecodedPix, paint: Paint): string[] {
  const dynamic = decoded.kind === 'dynamic'
  const amount =
    decoded.amountCents !== undefined
      ? brl(decoded.amountCents)
      : dynamic
        ? 'set by the location (the payer’s app fetches it)'
        : 'not set: the payer types it'
  const txid = decoded.txid ?? (dynamic ? 'set by the location' : 'none (***)')
  const {crc} = decoded
  const crcText = crc.valid
    ? `${paint('green', 'valid')} (${crc.found.toUpperCase()})`
    : `${paint('red', 'INVALID')}: the code carries ${crc.found}, its content gives ${crc.expected}`
  return rows([
    ['Type', `${decoded.kind}${use(decoded)}`],
    ['PIX key', decoded.key],
    ['Location', decoded.url],
    ['Recurrence', decoded.recurrence === undefined ? undefined : `Pix Automático: authorisation at ${decoded.recurrence}`],
    ['Amount', amount],
    ['Merchant', decoded.merchantName],
    ['City', decoded.merchantCity],
    ['Postal code', decoded.postalCode],
    ['txid', txid],
    ['Description', decoded.description],
    ['Withdrawal', decoded.withdrawalFacilitator === undefined ? undefined : `Pix Saque/Troco, facilitator ISPB ${decoded.withdrawalFacilitator}`],
    ['CRC16', crcText],
  ])
}
