import {randomUUID} from 'node:crypto'
import {readFileSync} from 'node:fs'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {decodePix, PixDecodeError} from '../../src/pix/decode.js'
import {pixLines} from '../../src/render/pix.js'
import {pixKeyProblem, readPixKey} from '../../src/schemas/pix-key.js'
import {document, isDocument} from '../../src/schemas/rules.js'
import {runCommand} from '../helpers/context.js'
import {startTestSandbox, tokenFor, type Sandbox} from '../helpers/sandbox.js'

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

  describe(`CPF masks (${vectors.cpfMasks.source})`, () => {
    const {separators, cpf: cpfs} = vectors.cpfMasks as {separators: string[]; cpf: string[]}
    const masked = cpfs.flatMap((cpf) =>
      separators.flatMap((a) => separators.flatMap((b) => separators.map((c) => [`${cpf.slice(0, 3)}${a}${cpf.slice(3, 6)}${b}${cpf.slice(6, 9)}${c}${cpf.slice(9)}`, cpf]))),
    )
    it(`every one of ${masked.length} writings is the same CPF, as a document and as a PIX key (type inferred or given)`, () => {
      for (const [typed, cpf] of masked) {
        for (const written of [typed, ` ${typed} `]) {
          expect(isDocument(written), written).toBe(true)
          expect(readPixKey(written), written).toEqual({ok: true, type: 'CPF', value: cpf})
          expect(readPixKey(written, 'CPF'), written).toEqual({ok: true, type: 'CPF', value: cpf})
        }
      }
    })
    it('the whitespace mask of the well-known test number is refused by policy, as a document and as a key', () => {
      const typed = vectors.cpfMasks.whitespaceMask as string
      expect(isDocument(typed)).toBe(false)
      expect(readPixKey(typed)).toEqual({ok: false, message: expect.stringMatching(/^is refused: 123\.456\.789-09 is a well-known test number/)})
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

  describe('BR Codes of every kind: static or dynamic by what the code carries, reuse by field 01', () => {
    interface KindVector {
      view: string
      source: string
      code: string
      expect: Record<string, unknown>
      lines: Record<string, string>
    }
    const plain = (_style: unknown, text: string) => text
    /** The "Label: value" rows of the human view. */
    const view = (code: string) =>
      Object.fromEntries(pixLines(decodePix(code), plain).map((line) => /^\s*([^:]+):\s+(.*)$/.exec(line)!).map((match) => [match[1], match[2]]))

    it.each(vectors.brCodeKinds.codes as KindVector[])('$view: $source', ({code, expect: expected, lines}) => {
      expect(decodePix(code)).toMatchObject(expected)
      expect(view(code)).toMatchObject(lines)
    })

    it('a static code with field 01 "12" is static and single use, its amount typed by the payer when it states none: never "set by the location"', () => {
      for (const {code, expect: expected} of vectors.brCodeKinds.codes as KindVector[]) {
        const decoded = decodePix(code)
        expect(decoded.kind === 'static', code).toBe(decoded.key !== undefined)
        expect(decoded.kind === 'dynamic', code).toBe(decoded.url !== undefined)
        expect(decoded.reusable, code).toBe(expected.reusable ?? !code.startsWith('000201010212'))
        if (decoded.kind !== 'dynamic') expect(view(code).Amount).not.toMatch(/location \(the payer/)
      }
    })
  })

  describe('BR Codes without their CRC field', () => {
    it.each(vectors.brCodesWithoutCrc.codes as Array<{source: string; code: string; alsoNamed?: string}>)('$source', ({code, alsoNamed}) => {
      let error: unknown
      try {
        decodePix(code)
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(PixDecodeError)
      const {field, rule} = error as PixDecodeError
      expect(field).toEqual({id: '63', name: 'CRC'})
      expect(rule).toMatch(/^is missing: the code must end with field 63, the CRC/)
      expect(rule).not.toMatch(/field 00/)
      if (alsoNamed) expect(rule).toContain(`besides, field ${alsoNamed} `)
    })
  })

  describe(`e-mail keys (${vectors.emailKeys.source})`, () => {
    it.each(vectors.emailKeys.admitted as Array<{key: string; sent: string}>)('$key is admitted, sent as $sent, by the CLI and by the sandbox', ({key, sent}) => {
      expect(readPixKey(key)).toEqual({ok: true, type: 'EMAIL', value: sent})
      expect(readPixKey(key, 'EMAIL')).toEqual({ok: true, type: 'EMAIL', value: sent})
      expect(pixKeyProblem(sent, 'EMAIL')).toBeUndefined()
    })
    it.each(vectors.emailKeys.refused as string[])('%s is refused, by the CLI and by the sandbox', (key) => {
      expect(readPixKey(key, 'EMAIL').ok).toBe(false)
      expect(pixKeyProblem(key, 'EMAIL')).toBeDefined()
    })
  })

  describe(`the well-known test CPF (${vectors.testCpf.source})`, () => {
    it.each(vectors.testCpf.values as string[])('%s is refused by policy, and the message says so: its check digits hold', (cpf) => {
      const policy = /123\.456\.789-09 is a well-known test number: its check digits hold, but it is refused by policy/
      const read = readPixKey(cpf)
      expect(read.ok).toBe(false)
      if (!read.ok) expect(read.message).toMatch(policy)
      expect(pixKeyProblem(cpf.replace(/\D/g, ''), 'CPF')).toMatch(policy)
      const checked = document().safeParse(cpf)
      expect(checked.success).toBe(false)
      expect(checked.error?.issues.map((issue) => issue.message)).toEqual([expect.stringMatching(policy)])
      expect(checked.error?.issues[0].message).not.toMatch(/check digits verified/)
    })
  })

  describe('the CLI and the sandbox say the same', () => {
    let sandbox: Sandbox
    let post: (path: string, body: unknown) => Promise<{status: number; body: {message?: string | string[]; pixKey?: string}}>
    beforeAll(async () => {
      sandbox = await startTestSandbox()
      const authorization = `Bearer ${await tokenFor(sandbox.baseUrl)}`
      post = async (path, body) => {
        const response = await fetch(`${sandbox.baseUrl}${path}`, {method: 'POST', headers: {'content-type': 'application/json', authorization}, body: JSON.stringify(body)})
        return {status: response.status, body: (await response.json()) as {message?: string | string[]; pixKey?: string}}
      }
    })
    afterAll(() => sandbox.close())

    const policy = /123\.456\.789-09 is a well-known test number: its check digits hold, but it is refused by policy/

    it('refuses 123.456.789-09 as a customer document by policy, in the CLI (exit 2) and in the sandbox (422)', async () => {
      const cli = await runCommand(['tx', 'create', '--amount', '1000', '--customer-name', 'Ana', '--customer-document', '123.456.789-09'])
      expect(cli.code).toBe(2)
      expect(cli.stderr).toMatch(new RegExp(`^Error: --customer-document must be a real CPF or CNPJ: ${policy.source}`))
      const created = await post('/core/transaction', {amount: 1000, paymentMethod: 'PIX', idempotencyKey: randomUUID(), pix: {}, customer: {name: 'Ana', document: '123.456.789-09'}})
      expect(created.status).toBe(422)
      expect(created.body.message).toEqual([expect.stringMatching(new RegExp(`^customer\\.document must be a real CPF or CNPJ: ${policy.source}`))])
    })

    it('refuses 123.456.789-09 as a PIX key by policy, in the CLI and in the sandbox', async () => {
      const cli = await runCommand(['withdraw', '--amount', '1000', '--pix-key', '123.456.789-09', '--yes'])
      expect(cli.code).toBe(2)
      expect(cli.stderr).toMatch(new RegExp(`^Error: --pix-key is refused: ${policy.source}`))
      const refused = await post('/core/withdraw', {amount: 1000, pixKey: '12345678909', pixKeyType: 'CPF', idempotencyKey: randomUUID()})
      expect(refused.status).toBe(422)
      expect(String(refused.body.message)).toMatch(policy)
    })

    it.each(['john..doe@x.com', '.john@x.com', 'z@co.c'])('takes the e-mail key %s the DICT admits, in the sandbox and in the CLI (sent lower case)', async (key) => {
      const taken = await post('/core/withdraw', {amount: 1000, pixKey: key, pixKeyType: 'EMAIL', idempotencyKey: randomUUID()})
      expect(taken.status, JSON.stringify(taken.body)).toBeLessThan(300)
      const cli = await runCommand(['withdraw', '--amount', '1000', '--pix-key', key.toUpperCase(), '--dry-run', '--json'])
      expect(cli.code, cli.stderr).toBe(0)
      expect(cli.stderr).toContain('PIX key type: EMAIL')
    })
  })
})
