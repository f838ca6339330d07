import {readFileSync} from 'node:fs'

import {describe, expect, it} from 'vitest'

import {decodePix, PixDecodeError} from '../../src/pix/decode.js'
import {readPixKey} from '../../src/schemas/pix-key.js'
import {isDocument} from '../../src/schemas/rules.js'

/**
 * The document, PIX key and BR Code rules against vectors that others wrote: other projects' test
 * suites and the Central Bank's and Receita Federal's own examples (test/fixtures/vectors, each
 * group with its source). Where a source and the rules disagree, the fixture says so and why.
 */
const vectors = JSON.parse(readFileSync(new URL('../fixtures/vectors/third-party.json', import.meta.url), 'utf8'))

describe('third-party vectors', () => {
  describe(`CPF (${vectors.cpf.source})`, () => {
    it.each(vectors.cpf.valid as string[])('%s is a valid CPF, as a document and as a PIX key', (cpf) => {
      expect(isDocument(cpf)).toBe(true)
      expect(readPixKey(cpf)).toEqual({ok: true, type: 'CPF', value: cpf.replace(/\D/g, '')})
    })
    it.each(vectors.cpf.invalid as string[])('%s is no CPF, and no PIX key of another type', (cpf) => {
      expect(isDocument(cpf)).toBe(false)
      const read = readPixKey(cpf)
      expect(read.ok).toBe(false)
    })
    it.each((vectors.cpf.excluded as Array<{value: string}>).map((entry) => entry.value))('%s, where the source disagrees, is refused by the rules', (cpf) => {
      expect(isDocument(cpf)).toBe(false)
    })
  })

  describe(`CNPJ (${vectors.cnpj.source}; ${vectors.cnpjAlphanumeric.source})`, () => {
    it.each([...vectors.cnpj.valid, ...vectors.cnpjAlphanumeric.valid] as string[])('%s is a valid CNPJ, sent upper case as a PIX key', (cnpj) => {
      expect(isDocument(cnpj.toUpperCase())).toBe(true)
      expect(readPixKey(cnpj)).toEqual({ok: true, type: 'CNPJ', value: cnpj.replace(/[./-]/g, '').toUpperCase()})
    })
    it.each(vectors.cnpj.invalid as string[])('%s is no CNPJ, and no PIX key', (cnpj) => {
      expect(isDocument(cnpj)).toBe(false)
      expect(readPixKey(cnpj).ok).toBe(false)
    })
  })

  describe(`PIX keys (${vectors.pixKeys.source})`, () => {
    it.each(vectors.pixKeys.valid as Array<{key: string; type: string; sent: string}>)('$key is a $type key, sent as $sent', ({key, type, sent}) => {
      expect(readPixKey(key)).toEqual({ok: true, type, value: sent})
    })
    it.each((vectors.pixKeys.excluded as Array<{value: string}>).map((entry) => entry.value))('%s, where the source disagrees, is no key without a type: never another type', (key) => {
      const read = readPixKey(key)
      expect(read.ok).toBe(false)
      expect(readPixKey(key, 'PHONE')).toMatchObject({ok: true, type: 'PHONE', value: `+55${key}`})
    })
  })

  describe('BR Codes', () => {
    it.each(vectors.brCodes.valid as Array<{source: string; code: string; expect: Record<string, unknown>}>)('$source', ({code, expect: expected}) => {
      const {crc, ...rest} = expected
      const decoded = decodePix(code)
      expect(decoded).toMatchObject(rest)
      expect(decoded.crc).toEqual({valid: true, expected: crc, found: crc})
    })
    it.each(vectors.brCodes.wrongCrc as Array<{source: string; code: string; expected: string}>)('$source', ({code, expected}) => {
      let error: unknown
      try {
        decodePix(code)
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(PixDecodeError)
      expect((error as PixDecodeError).crc).toMatchObject({valid: false, expected, found: 'ABCD'})
    })
  })
})
