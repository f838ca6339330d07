import {randomBytes} from 'node:crypto'

import {generateCpf, generatePixPayload} from '@brazilian-utils/brazilian-utils'

import type {AccountHolder, PaymentReceiptUrl} from '../../api/types.js'

/** The sandbox's merchant: the receiver of every payment and the owner of the QR codes' key. */
export const MERCHANT = {
  name: 'Gateway Sandbox Ltda',
  city: 'Sao Paulo',
  document: '11222333000181',
  pixKey: '7d9f0335-8dcc-4054-9bf9-0c3e6e0a8b1e',
  ispb: '18236120',
} as const

export const ACQUIRER = {name: 'SANDBOX', code: 'sandbox'} as const

/** ISPBs of real SPI participants, for payers' banks and end-to-end ids. */
export const PAYER_ISPBS = ['00000000', '60701190', '00360305', '60746948', '90400888', '18236120'] as const

export const receiver: AccountHolder = {
  type: 'PJ',
  name: MERCHANT.name,
  document: MERCHANT.document,
  bankAccount: {type: 'CACC', digit: '7', ispb: MERCHANT.ispb},
  pix: {key: MERCHANT.pixKey, type: 'EVP'},
}

const FIRST = ['Ana', 'Bruno', 'Carla', 'Diego', 'Elisa', 'Felipe', 'Gabriela', 'Heitor', 'Isabela', 'João', 'Larissa', 'Marcos', 'Natália', 'Otávio', 'Paula', 'Rafael', 'Sofia', 'Thiago', 'Vitória', 'Yuri']
const LAST = ['Silva', 'Souza', 'Oliveira', 'Santos', 'Lima', 'Pereira', 'Ferreira', 'Costa', 'Rodrigues', 'Almeida', 'Nascimento', 'Carvalho', 'Araújo', 'Ribeiro', 'Gomes']

/** A source of randomness: Math.random by default, a seeded generator where repeatable data matters. */
export type Random = () => number

export const pick = <T>(list: readonly T[], random: Random = Math.random): T => list[Math.floor(random() * list.length)]

/** Every first and last name together, made once: seeding 100,000 payers then makes no names. */
const NAMES = FIRST.map((first) => LAST.map((last) => `${first} ${last}`))

export function personName(random: Random = Math.random): string {
  const first = Math.floor(random() * FIRST.length)
  return NAMES[first][Math.floor(random() * LAST.length)]
}

/** The payers' bank accounts, one per check digit and bank, shared (and frozen) by every payer that has it. */
const BANK_ACCOUNTS = Array.from({length: 10}, (_, digit) =>
  PAYER_ISPBS.map((ispb) => Object.freeze({type: 'CACC', digit: String(digit), ispb})),
)

/** A payer: the customer when the transaction names one with a CPF, else someone made up. */
export function payerFor(customer: {name?: string; document?: string} | undefined, random: Random = Math.random): AccountHolder {
  const document = customer?.document?.replace(/[^0-9A-Za-z]/g, '').toUpperCase() ?? generateCpf()
  const type = document.length === 11 ? 'PF' : 'PJ'
  return {
    type,
    name: customer?.name ?? personName(random),
    document,
    bankAccount: BANK_ACCOUNTS[Math.floor(random() * 10)][Math.floor(random() * PAYER_ISPBS.length)],
    pix: {key: document, type: type === 'PF' ? 'CPF' : 'CNPJ'},
  }
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

function stamp(ms: number): string {
  const date = new Date(ms)
  const pad = (value: number) => String(value).padStart(2, '0')
  return `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}`
}

/**
 * An SPI end-to-end id: a letter (E for a payment, D for a refund), the ISPB of the payer's bank,
 * yyyyMMddHHmm in UTC, and 11 alphanumeric characters. 32 characters in all.
 */
/** Random bytes drawn 4 KiB at a time: one call per byte would cost more than the ids they make. */
let pool = Buffer.alloc(0)
let used = 0
function randomByte(): number {
  if (used === pool.length) {
    pool = randomBytes(4096)
    used = 0
  }
  return pool[used++]
}

export function endToEndId(ispb: string, atMs: number, prefix: 'E' | 'D' = 'E'): string {
  let tail = ''
  // Each byte modulo 36: the first four characters come a little more often, which no test data minds.
  for (let index = 0; index < 11; index += 1) tail += ALPHANUMERIC[randomByte() % ALPHANUMERIC.length]
  return `${prefix}${ispb}${stamp(atMs)}${tail}`
}

/** The BR Code's txid: the transaction id without hyphens, cut to the 25 characters it allows. */
export function txidFor(id: string): string {
  return id.replace(/-/g, '').slice(0, 25)
}

/**
 * A real BR Code (EMV, CRC16-CCITT-FALSE) for the merchant's key, carrying the amount and the txid.
 */
export function brCode(amountCents: number, txid: string): string {
  const payload = generatePixPayload({
    key: MERCHANT.pixKey,
    merchantName: MERCHANT.name,
    merchantCity: MERCHANT.city,
    amount: amountCents / 100,
    txid,
  })
  if (!payload) throw new Error(`could not make a BR Code for ${amountCents} cents`)
  return payload
}

/** The QR image of a text, as a PNG data URI. */
export async function qrPngDataUri(text: string): Promise<string> {
  const {default: QRCode} = await import('qrcode')
  return QRCode.toDataURL(text, {errorCorrectionLevel: 'M', margin: 2, scale: 4, type: 'image/png'})
}

/** A receipt of a payment or a refund, whose link lasts a week. */
export function receipt(id: string, kind: 'payment' | 'refund', atMs: number): PaymentReceiptUrl {
  return {url: `https://receipts.sandbox.example/${kind}/${id}.pdf`, expirationDate: new Date(atMs + 7 * 86_400_000).toISOString()}
}
