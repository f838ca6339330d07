import {PIX_KEY_TYPES, type PixKeyType} from '../schemas/enums.js'
import {readPixKey} from '../schemas/pix-key.js'

export type KeyResolution =
  | {ok: true; key: string; type: PixKeyType; inferred: boolean}
  | {ok: false; message: string}

/**
 * Reads a PIX key as the operator typed it, with its type when one was given, by the DICT's rules
 * (src/schemas/pix-key.ts): the key in the form the DICT registers, and its type, inferred from
 * the writing when none was given.
 */
export function resolvePixKey(input: string, given?: string): KeyResolution {
  let type: PixKeyType | undefined
  if (given !== undefined) {
    type = given.trim().toUpperCase() as PixKeyType
    if (!PIX_KEY_TYPES.includes(type)) return {ok: false, message: `must be one of ${PIX_KEY_TYPES.join(', ')}, got "${given}"`}
  }
  const read = readPixKey(input, type)
  return read.ok ? {ok: true, key: read.value, type: read.type, inferred: type === undefined} : read
}

/** Masks a key as lookups mask documents: every character but the last four becomes *. */
export function maskKey(key: string): string {
  return key.length <= 4 ? '*'.repeat(key.length) : `${'*'.repeat(key.length - 4)}${key.slice(-4)}`
}
