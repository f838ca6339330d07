import type {Paint} from '../cli/terminal.js'
import type {DecodedPix, PixTemplate} from '../pix/decode.js'
import {brl} from './money.js'
import {rows} from './transaction.js'

/** What field 01 (Point of Initiation Method) says: paid once ("12"), or many times ("11" or no field 01). */
const use = (decoded: DecodedPix) => (decoded.reusable ? 'reusable' : 'single use')

/** The kind, with what field 01 says and what the code carries besides. */
function typeText(decoded: DecodedPix): string {
  if (decoded.kind === 'recurrence') return 'recurrence only (Pix Automático): nothing is paid now'
  const withRecurrence = decoded.recurrence === undefined ? '' : ', with a Pix Automático recurrence'
  return `${decoded.kind} (${use(decoded)})${withRecurrence}`
}

function amountText(decoded: DecodedPix): string {
  if (decoded.kind === 'recurrence') return 'none now: the recurrence’s terms are at its location'
  if (decoded.kind === 'dynamic') return 'set by the location (the payer’s app fetches it)'
  return decoded.amountCents === undefined ? 'not set: the payer types it' : brl(decoded.amountCents)
}

function txidText(decoded: DecodedPix): string | undefined {
  if (decoded.kind === 'recurrence') return undefined
  if (decoded.kind === 'dynamic') return 'set by the location'
  return decoded.txid ?? 'none (***)'
}

/** What the payer's app will ask the payer for, by what the code carries. */
function payerText(decoded: DecodedPix): string {
  const once = decoded.reusable ? '' : '; the code may be paid once'
  const authorise = 'to authorise the recurrence (Pix Automático) whose terms are at its location'
  let pay: string
  switch (decoded.kind) {
    case 'recurrence':
      return `asked only ${authorise}; nothing is paid now`
    case 'dynamic':
      pay = 'asked to pay the charge the app fetches from the location, which sets its amount and txid'
      break
    default:
      pay =
        decoded.amountCents === undefined
          ? 'asked to type the amount, then pay it to the key above'
          : `asked to confirm a payment of ${brl(decoded.amountCents)} to the key above`
  }
  return `${decoded.recurrence === undefined ? pay : `${pay}, and ${authorise}`}${once}`
}

/** A template shown as written: its GUI, then each sub-field's id and value. */
function templateText(template: PixTemplate): string {
  const unreserved = Number(template.id) >= 80 ? 'unreserved template' : 'another merchant account template'
  const parts = template.fields.filter((field) => field.id !== `${template.id}-00`).map((field) => `${field.id.slice(3)}: ${field.value}`)
  return [`${template.gui ?? 'no GUI'} (${unreserved})`, ...parts].join('; ')
}

/**
 * What a PIX copy-and-paste code asks for, for a person: its kind (static with a key, dynamic with
 * a location, or a recurrence only) and whether it may be paid once or many times, the key or the
 * location, the amount in BRL, what the payer will be asked for, who is paid, the txid, any other
 * templates as written, and whether the CRC16 holds.
 */
export function pixLines(decoded: DecodedPix, paint: Paint): string[] {
  const {crc} = decoded
  const crcText = crc.valid
    ? `${paint('green', 'valid')} (${crc.found.toUpperCase()})`
    : `${paint('red', 'INVALID')}: the code carries ${crc.found}, its content gives ${crc.expected}`
  return rows([
    ['Type', typeText(decoded)],
    ['PIX key', decoded.key],
    ['Location', decoded.url],
    ['Recurrence', decoded.recurrence === undefined ? undefined : `Pix Automático: authorisation at ${decoded.recurrence}`],
    ['Amount', amountText(decoded)],
    ['Payer', payerText(decoded)],
    ['Merchant', decoded.merchantName],
    ['City', decoded.merchantCity],
    ['Postal code', decoded.postalCode],
    ['txid', txidText(decoded)],
    ['Description', decoded.description],
    ['Withdrawal', decoded.withdrawalFacilitator === undefined ? undefined : `Pix Saque/Troco, facilitator ISPB ${decoded.withdrawalFacilitator}`],
    ...(decoded.templates ?? []).map((template): [string, string] => [`Template ${template.id}`, templateText(template)]),
    ['CRC16', crcText],
  ])
}
