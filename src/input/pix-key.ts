import {PIX_KEY_TYPES, type PixKeyType} from '../schemas/enums.js'
import {PIX_KEY_FORMS, pixKeyInfo} from '../schemas/rules.js'

export type KeyResolution =
  | {ok: true; key: string; type: PixKeyType; inferred: boolean}
  | {ok: false; message: string}

/**
 * Reads a PIX key as the operator typed it, with its type when one was given, and answers it in
 * the form the DICT registers (CPF and CNPJ without punctuation, CNPJ letters upper case, e-mail
 * lower case, phone +55 + DDD + number, EVP a lower-case UUID). Without a type, the type is
 * inferred from the key; an 11-digit number that is a valid CPF is read as a CPF (a phone key
 * carries +55), unless the operator said PHONE.
 */
export function resolvePixKey(input: string, given?: string): KeyResolution {
  const text = input.trim()
  if (!text) return {ok: false, message: 'must not be empty'}
  const info = pixKeyInfo(text)
  if (given === undefined) {
    if (!info) return {ok: false, message: `fits no PIX key type: "${input}" is none of ${PIX_KEY_TYPES.join(', ')}`}
    return {ok: true, key: info.value, type: info.type, inferred: true}
  }
  const type = given.trim().toUpperCase() as PixKeyType
  if (!PIX_KEY_TYPES.includes(type)) return {ok: false, message: `must be one of ${PIX_KEY_TYPES.join(', ')}, got "${given}"`}
  if (info?.type === type) return {ok: true, key: info.value, type, inferred: false}
  // Ten or eleven bare digits that also read as a CPF: the operator said it is a phone.
  if (type === 'PHONE' && /^\d{10,11}$/.test(text)) {
    const phone = pixKeyInfo(`+55${text}`)
    if (phone?.type === 'PHONE') return {ok: true, key: phone.value, type, inferred: false}
  }
  const article = info && /^[AEIOU]/.test(info.type) ? 'an' : 'a'
  const actually = info ? ` (it reads as ${article} ${info.type} key)` : ''
  return {ok: false, message: `is not a valid ${type} key${actually}: ${type} takes ${PIX_KEY_FORMS[type]}`}
}

/** Masks a key as lookups mask documents: every character but the last four becomes *. */
export function maskKey(key: string): string {
  return key.length <= 4 ? '*'.repeat(key.length) : `${'*'.repeat(key.length - 4)}${key.slice(-4)}`
}
