// Subpath imports: the package's main entry loads every module it has (~40 ms at start-up).
import {getAreaCodeInfo} from '@brazilian-utils/brazilian-utils/get-area-code-info'

import {cpfProblem, DOCUMENT_WRITINGS, documentWriting, type DocumentKind, isCpf, readDocument, TEST_CPF} from './document.js'
import {LIMITS, PIX_KEY_TYPES, UUID_PATTERN, type PixKeyType} from './enums.js'

export {cpfProblem, isCnpj, isCpf} from './document.js'

/**
 * PIX keys by the DICT's rules, read exactly as typed: a key is sent with only its formatting
 * removed, and the one thing ever added is the country code +55 in front of a Brazilian phone
 * number written with its DDD. What was typed decides the type (a CPF's groups, punctuated or
 * spaced, are a CPF and a CNPJ's a CNPJ, read by the one rule of documents in document.ts; a `+`
 * or a DDD in parentheses is a phone); a key that fails its reading is an
 * error that says which reading failed, never another type. The CLI and the sandbox read keys
 * with this one module.
 */

export type PixKeyReading = {ok: true; type: PixKeyType; value: string} | {ok: false; message: string}

/** What a PIX key of each type looks like, as the gateway takes it (the DICT's own form). */
export const PIX_KEY_FORMS: Record<PixKeyType, string> = {
  CPF: `a CPF of ${DOCUMENT_WRITINGS.CPF}, with valid check digits`,
  CNPJ: `a CNPJ of ${DOCUMENT_WRITINGS.CNPJ}, with valid check digits`,
  EMAIL: `an e-mail address of at most ${LIMITS.emailKey.max} characters`,
  PHONE: 'a Brazilian mobile number: +55, a DDD and 9 digits starting with 9, e.g. +55 11 98765-4321 or (11) 98765-4321',
  EVP: 'a random key (a UUID), e.g. 7d9f0335-8dcc-4054-9bf9-0c3e6e0a8b1e',
}

/**
 * An e-mail key as the DICT's key pattern admits it (bacen/pix-dict-api, openapi/openapi.yaml, the
 * key types table): in lower case, a local part of letters, digits and . ! # $ & ' * + / = ? ^ _ `
 * { | } ~ - (dots anywhere, as the DICT allows them), an @, then labels of letters, digits and
 * inner hyphens (1 to 63 characters) joined by dots. The product is no stricter than the DICT.
 */
const EMAIL_LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
const DICT_EMAIL = new RegExp(`^[a-z0-9.!#$&'*+/=?^_\`{|}~-]+@${EMAIL_LABEL}(?:\\.${EMAIL_LABEL})*$`)

/** Whether the DICT admits `text` (as typed, ASCII only) as an e-mail key once in lower case. */
export const isDictEmail = (text: string): boolean => /^[\x21-\x7e]+$/.test(text) && DICT_EMAIL.test(text.toLowerCase())

/** A DDD of the national list. */
export const isDdd = (ddd: string): boolean => /^[1-9]\d$/.test(ddd) && getAreaCodeInfo(Number(ddd)) != null

/** Separators a person puts in a phone number. */
const PHONE_FORMATTING = /[\s().-]/g

/** The national digits of a phone (DDD + number) in the DICT's form, or why not. */
function phoneOf(national: string, typed: string): PixKeyReading {
  if (!/^\d+$/.test(national)) return {ok: false, message: `is not a phone number: "${typed}" holds more than digits and formatting`}
  if (national.length === 9 && national.startsWith('9')) {
    return {ok: false, message: `has no DDD: +55 must be followed by a DDD and the 9-digit number, e.g. +55 11 ${national.slice(0, 5)}-${national.slice(5)}`}
  }
  if (national.length !== 11) {
    return {ok: false, message: `is not a mobile number: a PHONE key is a DDD and 9 digits starting with 9 (${national.length} digits given)`}
  }
  const ddd = national.slice(0, 2)
  if (!isDdd(ddd)) return {ok: false, message: `has the DDD ${ddd}, which is no Brazilian area code`}
  if (national[2] !== '9') return {ok: false, message: `is not a mobile number: after the DDD a PHONE key has 9 digits starting with 9 (a landline is no PIX key)`}
  return {ok: true, type: 'PHONE', value: `+55${national}`}
}

/** Reads a key typed as a phone: +55…, (DD) 9XXXX-XXXX, DD 9XXXX-XXXX, or (with the type given) 11 bare digits. */
function readPhone(text: string, bareAllowed: boolean): PixKeyReading {
  if (text.startsWith('+')) {
    const digits = text.slice(1).replace(PHONE_FORMATTING, '')
    if (!/^\d+$/.test(digits)) return {ok: false, message: `is not a phone number: "${text}" holds more than digits and formatting`}
    if (!digits.startsWith('55')) return {ok: false, message: `is not a Brazilian number: a PHONE key starts +55`}
    return phoneOf(digits.slice(2), text)
  }
  const national = /^\(\d{2}\)\s*[\d\s.-]+$/.test(text) || /^\d{2}\s+[\d\s.-]+$/.test(text) || (bareAllowed && /^\d{11}$/.test(text))
  if (!national) return {ok: false, message: `is not a phone number: write it +55 11 98765-4321 or (11) 98765-4321`}
  return phoneOf(text.replace(PHONE_FORMATTING, ''), text)
}

/** A CPF or CNPJ key, read by the one rule of documents (src/schemas/document.ts): the same separators and verdict as a customer's document. */
function readDocumentKey(text: string, kind: DocumentKind): PixKeyReading {
  const read = readDocument(text, kind)
  if (read.ok) return {ok: true, type: kind, value: read.value}
  switch (read.reason) {
    // Met only with the type given, whose forms the message then lists (PIX_KEY_FORMS).
    case 'shape':
      return {ok: false, message: kind === 'CPF' ? 'is not a CPF: a CPF key has 11 digits' : 'is not a CNPJ: a CNPJ key has 12 letters or digits and 2 check digits'}
    case 'policy':
      return {ok: false, message: `is refused: ${cpfProblem(TEST_CPF)}`}
    case 'repeated':
      return {ok: false, message: `is not a valid ${kind}: that number is no real ${kind}`}
    default:
      return {ok: false, message: `is not a valid ${kind}: its check digits do not match`}
  }
}

const readCpf = (text: string) => readDocumentKey(text, 'CPF')
const readCnpj = (text: string) => readDocumentKey(text, 'CNPJ')

function readEmail(text: string): PixKeyReading {
  if (text.length > LIMITS.emailKey.max) return {ok: false, message: `is an e-mail key of ${text.length} characters: an EMAIL key has at most ${LIMITS.emailKey.max}`}
  if (!isDictEmail(text)) return {ok: false, message: 'is not a valid e-mail address'}
  return {ok: true, type: 'EMAIL', value: text.toLowerCase()}
}

function readEvp(text: string): PixKeyReading {
  if (!UUID_PATTERN.test(text)) return {ok: false, message: `is not a random key: an EVP key is a UUID, e.g. 7d9f0335-8dcc-4054-9bf9-0c3e6e0a8b1e`}
  return {ok: true, type: 'EVP', value: text.toLowerCase()}
}

const READERS: Record<PixKeyType, (text: string) => PixKeyReading> = {
  CPF: readCpf,
  CNPJ: readCnpj,
  EMAIL: readEmail,
  PHONE: (text) => readPhone(text, true),
  EVP: readEvp,
}

/**
 * Reads a PIX key as typed, of the given type or of the type its writing shows, into the form the
 * DICT registers; see the module's comment.
 */
export function readPixKey(input: string, given?: PixKeyType): PixKeyReading {
  const text = input.trim()
  if (!text) return {ok: false, message: 'must not be empty'}
  if (given !== undefined) {
    const read = readAs(text, given)
    return read.ok ? read : {ok: false, message: `${read.message}${readsAs(text, given)} (--pix-key-type ${given} takes ${PIX_KEY_FORMS[given]})`}
  }
  if (text.includes('@')) return readEmail(text)
  if (UUID_PATTERN.test(text)) return readEvp(text)
  if (/^\d{11}$/.test(text)) {
    if (isCpf(text)) return {ok: true, type: 'CPF', value: text}
    if (text === TEST_CPF) return {ok: false, message: `is refused: ${cpfProblem(text)}`}
    return {
      ok: false,
      message: `is neither a valid CPF (its check digits do not match) nor a phone written as one: write a phone +55 ${text.slice(0, 2)} ${text.slice(2, 7)}-${text.slice(7)}, or give --pix-key-type PHONE`,
    }
  }
  // A CPF's or a CNPJ's groups (529 982 247 25, 11 222 333 0001 81) are a document before a DDD and a space are a phone.
  const writing = documentWriting(text)
  if (writing) return readDocumentKey(text, writing)
  if (text.startsWith('+') || text.startsWith('(') || /^\d{2}\s/.test(text)) return readPhone(text, false)
  return {ok: false, message: `fits no PIX key type: it is none of ${PIX_KEY_TYPES.join(', ')} (${PIX_KEY_FORMS.CPF}; ${PIX_KEY_FORMS.PHONE}; an e-mail address; a UUID)`}
}

/** "; it reads as a CPF key", when a key refused as one type is another by its writing. */
function readsAs(text: string, type: PixKeyType): string {
  const read = readPixKey(text)
  return read.ok && read.type !== type ? `; it reads as ${/^[AEIOU]/.test(read.type) ? 'an' : 'a'} ${read.type} key` : ''
}

/** Reads a key as one of the given type, whatever its writing suggests. */
function readAs(text: string, type: PixKeyType): PixKeyReading {
  return text.trim() ? READERS[type](text.trim()) : {ok: false, message: 'must not be empty'}
}

/**
 * Why `key` is not a PIX key of `type` as the gateway takes it, or undefined when it is: the
 * sandbox's check of a withdrawal, with the same reading as the CLI's.
 */
export function pixKeyProblem(key: string, type: PixKeyType): string | undefined {
  const read = readAs(key, type)
  if (!read.ok) return `${read.message}${readsAs(key, type)}`
  if (read.value !== key) return `must be written ${read.value}, in the DICT's form`
  return undefined
}
