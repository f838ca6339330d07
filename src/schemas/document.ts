// Subpath imports: the package's main entry loads every module it has (~40 ms at start-up).
import {isValidCnpj} from '@brazilian-utils/brazilian-utils/is-valid-cnpj'
import {isValidCpf} from '@brazilian-utils/brazilian-utils/is-valid-cpf'

/**
 * A CPF or CNPJ, read by one rule wherever it is typed: a PIX key, a customer's or seller's
 * document, the document column of an expected file, a row of a batch. The same separators are
 * accepted everywhere, and the verdict is the same: a CPF is 11 digits in groups of 3, 3, 3 and 2,
 * a CNPJ 14 characters in groups of 2, 3, 3, 4 and 2, written together or with one `.`, `-`, `/`
 * or space between groups (529.982.247-25, 529 982 247 25, 52998224725). Digits split otherwise
 * (3.6.8.8.9.2.5.5.4.8.8) are no document. Check digits are brazilian-utils'.
 */

export type DocumentKind = 'CPF' | 'CNPJ'

export type DocumentReading =
  | {ok: true; kind: DocumentKind; value: string}
  /**
   * `shape`: not written as a CPF or CNPJ; `check`: its check digits do not match; `repeated`: one
   * repeated digit; `policy`: the well-known test CPF, refused though its check digits hold.
   */
  | {ok: false; kind?: DocumentKind; reason: 'shape' | 'check' | 'repeated' | 'policy'; value?: string}

/** How each is written, for the messages that refuse one. */
export const DOCUMENT_WRITINGS: Record<DocumentKind, string> = {
  CPF: '11 digits, together or in groups of 3, 3, 3 and 2, e.g. 529.982.247-25, 529 982 247 25 or 52998224725',
  CNPJ: '12 letters or digits and 2 check digits, together or in groups of 2, 3, 3, 4 and 2, e.g. 11.222.333/0001-81, 11 222 333 0001 81 or 12.ABC.345/01DE-35',
}

/** Between two groups: nothing, or one separator (spaces around it are kept out of the count). */
const SEP = '(?:\\s*[.\\-/]\\s*|\\s+)?'
const CPF_WRITTEN = new RegExp(`^\\d{3}${SEP}\\d{3}${SEP}\\d{3}${SEP}\\d{2}$`)
const CNPJ_WRITTEN = new RegExp(`^[0-9A-Z]{2}${SEP}[0-9A-Z]{3}${SEP}[0-9A-Z]{3}${SEP}[0-9A-Z]{4}${SEP}\\d{2}$`, 'i')

/** The CPF refused by policy: its check digits hold, but it is a well-known test number, nobody's. */
export const TEST_CPF = '12345678909'

/** A CPF the rules take: check digits valid, not one repeated digit, not the well-known 123.456.789-09. */
export function isCpf(digits: string): boolean {
  return /^\d{11}$/.test(digits) && !/^(\d)\1{10}$/.test(digits) && digits !== TEST_CPF && isValidCpf(digits)
}

/** A CNPJ, numeric or alphanumeric (12 of 0-9A-Z and 2 check digits), not one repeated character. */
export function isCnpj(value: string): boolean {
  return /^[0-9A-Z]{12}\d{2}$/.test(value) && !/^(.)\1{13}$/.test(value) && isValidCnpj(value, {version: 2})
}

/**
 * Why the 11 digits of a CPF are refused, or undefined when they are a CPF the rules take: the
 * check digits, one repeated digit, or the well-known test number (refused by policy, its check
 * digits hold). The CLI's flags, PIX keys and the sandbox all say it in these words.
 */
export function cpfProblem(digits: string): string | undefined {
  if (digits === TEST_CPF) return '123.456.789-09 is a well-known test number: its check digits hold, but it is refused by policy (it is nobody’s CPF)'
  if (/^(\d)\1{10}$/.test(digits)) return 'that number is no real CPF'
  if (!isCpf(digits)) return 'its check digits do not match'
  return undefined
}

/** Which document the writing is, whatever its check digits: a CPF's groups, a CNPJ's, or neither. */
export function documentWriting(input: string): DocumentKind | undefined {
  const text = input.trim()
  if (CPF_WRITTEN.test(text)) return 'CPF'
  if (CNPJ_WRITTEN.test(text)) return 'CNPJ'
  return undefined
}

/**
 * Reads a document as typed: its kind, and its value with the separators removed (a CNPJ's letters
 * in upper case), or why it is refused. `only` reads it as that kind alone (a key given its type).
 */
export function readDocument(input: string, only?: DocumentKind): DocumentReading {
  const text = input.trim()
  const kind = only ?? documentWriting(text)
  if (kind === 'CPF') {
    if (!CPF_WRITTEN.test(text)) return {ok: false, kind, reason: 'shape'}
    const digits = text.replace(/\D/g, '')
    if (digits === TEST_CPF) return {ok: false, kind, reason: 'policy', value: digits}
    if (/^(\d)\1{10}$/.test(digits)) return {ok: false, kind, reason: 'repeated', value: digits}
    return isCpf(digits) ? {ok: true, kind, value: digits} : {ok: false, kind, reason: 'check', value: digits}
  }
  if (kind === 'CNPJ') {
    if (!CNPJ_WRITTEN.test(text)) return {ok: false, kind, reason: 'shape'}
    const value = text.replace(/[^0-9A-Za-z]/g, '').toUpperCase()
    if (/^(.)\1{13}$/.test(value)) return {ok: false, kind, reason: 'repeated', value}
    return isCnpj(value) ? {ok: true, kind, value} : {ok: false, kind, reason: 'check', value}
  }
  return {ok: false, reason: 'shape'}
}
