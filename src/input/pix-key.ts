import {getPixKeyInfo, type PixKeyType as LibraryKeyType} from '@brazilian-utils/brazilian-utils/get-pix-key-info'

/** The DICT key types, as the gateway names them. */
export const PIX_KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP'] as const
export type PixKeyType = (typeof PIX_KEY_TYPES)[number]

/** What each type looks like, for a message that tells the operator what would have fitted. */
export const PIX_KEY_FORMS: Record<PixKeyType, string> = {
  CPF: 'CPF: 11 digits with valid check digits, e.g. 529.982.247-25',
  CNPJ: 'CNPJ: 14 characters (12 of 0-9A-Z, 2 check digits), e.g. 11.222.333/0001-81 or 12.ABC.345/01DE-35',
  EMAIL: 'EMAIL: an e-mail address of at most 77 characters',
  PHONE: 'PHONE: a Brazilian mobile number, +55 + DDD + 9 digits, e.g. +5511987654321',
  EVP: 'EVP: a random key, a UUID such as 71c7d9be-4b85-4e43-9f1c-1f3b8b4e9a2d',
}

export type KeyResolution =
  | {ok: true; key: string; type: PixKeyType; inferred: boolean}
  | {ok: false; message: string}

const upper = (type: LibraryKeyType) => type.toUpperCase() as PixKeyType

/**
 * Reads a PIX key, with its type when the operator gave one, and answers it in the form the DICT
 * registers (CPF and CNPJ without punctuation, CNPJ letters upper case, e-mail lower case, phone
 * +55 + DDD + number, EVP a lower-case UUID). Without a type, the type is inferred from the key;
 * an 11-digit number that is a valid CPF is read as a CPF (a phone key carries +55).
 */
export function resolvePixKey(input: string, given?: string): KeyResolution {
  const text = input.trim()
  if (!text) return {ok: false, message: 'must not be empty'}
  const info = getPixKeyInfo(text)
  if (given === undefined) {
    if (!info) return {ok: false, message: `fits no PIX key type: "${input}" is none of ${PIX_KEY_TYPES.join(', ')}`}
    return {ok: true, key: info.value, type: upper(info.type), inferred: true}
  }
  const type = given.trim().toUpperCase()
  if (!(PIX_KEY_TYPES as readonly string[]).includes(type)) {
    return {ok: false, message: `must be one of ${PIX_KEY_TYPES.join(', ')}, got "${given}"`}
  }
  if (info && upper(info.type) === type) return {ok: true, key: info.value, type: type as PixKeyType, inferred: false}
  // Eleven bare digits that are also a valid CPF: the operator said it is a phone.
  if (type === 'PHONE' && /^\d{10,11}$/.test(text)) {
    const phone = getPixKeyInfo(`+55${text}`)
    if (phone?.type === 'phone') return {ok: true, key: phone.value, type: 'PHONE', inferred: false}
  }
  const seems = info ? ` (it reads as a key of type ${upper(info.type)})` : ''
  return {ok: false, message: `is not a valid ${type} key${seems}: ${PIX_KEY_FORMS[type as PixKeyType]}`}
}

/** Masks a key as lookups mask documents: every character but the last four becomes *. */
export function maskKey(key: string): string {
  return key.length <= 4 ? '*'.repeat(key.length) : `${'*'.repeat(key.length - 4)}${key.slice(-4)}`
}
