import {describe, expect, it} from 'vitest'

import {buildCreateBody} from '../../src/input/transaction.js'
import {readExpected} from '../../src/reconcile/expected.js'
import {readDocument} from '../../src/schemas/document.js'
import {readPixKey} from '../../src/schemas/pix-key.js'
import {document, documentProblem, isDocument} from '../../src/schemas/rules.js'

/** Each writing, and what it is: the same verdict as a PIX key (type inferred or given) and as a document. */
const WRITINGS: Array<[string, {kind: 'CPF' | 'CNPJ'; value: string} | undefined]> = [
  ['529.982.247-25', {kind: 'CPF', value: '52998224725'}],
  ['529 982 247 25', {kind: 'CPF', value: '52998224725'}],
  ['529982247-25', {kind: 'CPF', value: '52998224725'}],
  ['529 982 247-25', {kind: 'CPF', value: '52998224725'}],
  [' 529.982.247 - 25 ', {kind: 'CPF', value: '52998224725'}],
  ['52998224725', {kind: 'CPF', value: '52998224725'}],
  ['11.222.333/0001-81', {kind: 'CNPJ', value: '11222333000181'}],
  ['11 222 333 0001 81', {kind: 'CNPJ', value: '11222333000181'}],
  ['11222333000181', {kind: 'CNPJ', value: '11222333000181'}],
  ['12.abc.345/01de-35', {kind: 'CNPJ', value: '12ABC34501DE35'}],
  ['12 ABC 345 01DE 35', {kind: 'CNPJ', value: '12ABC34501DE35'}],
  // Digits split otherwise are no CPF punctuation: refused as a key and as a document.
  ['3.6.8.8.9.2.5.5.4.8.8', undefined],
  ['3688 9255 488', undefined],
  ['529..982.247-25', undefined],
  ['5299.8224.725', undefined],
  ['529.982.247-24', undefined],
  ['111 111 111 11', undefined],
  ['123 456 789 09', undefined],
  ['11 222 333 0001 80', undefined],
]

describe('one rule for a document, wherever it is typed', () => {
  it.each(WRITINGS)('%j', (typed, expected) => {
    const read = readDocument(typed)
    expect(read.ok).toBe(expected !== undefined)
    if (read.ok) expect({kind: read.kind, value: read.value}).toEqual(expected)
    // As a customer document: the same verdict, sent with its formatting removed.
    expect(isDocument(typed)).toBe(expected !== undefined)
    const sent = buildCreateBody({'customer-document': typed}).body.customer as {document: string}
    if (expected) {
      expect(sent.document).toBe(expected.value)
      expect(document().safeParse(sent.document).success).toBe(true)
      expect(document().safeParse(typed.trim().toUpperCase()).success).toBe(true)
    } else expect(document().safeParse(sent.document).success).toBe(false)
    // As a PIX key: the same verdict, whether the type is inferred or given.
    expect(readPixKey(typed)).toMatchObject(expected ? {ok: true, type: expected.kind, value: expected.value} : {ok: false})
    for (const type of ['CPF', 'CNPJ'] as const) {
      expect(readPixKey(typed, type).ok).toBe(expected?.kind === type)
    }
  })

  it('3.6.8.8.9.2.5.5.4.8.8 is refused as a key and as a document, naming the writings taken', () => {
    const typed = '3.6.8.8.9.2.5.5.4.8.8'
    expect(documentProblem(typed)).toBe(
      'must be a valid CPF or CNPJ, written as one: a CPF is 11 digits, together or in groups of 3, 3, 3 and 2, e.g. 529.982.247-25, 529 982 247 25 or 52998224725; a CNPJ is 12 letters or digits and 2 check digits, together or in groups of 2, 3, 3, 4 and 2, e.g. 11.222.333/0001-81, 11 222 333 0001 81 or 12.ABC.345/01DE-35',
    )
    expect(readPixKey(typed)).toEqual({ok: false, message: expect.stringMatching(/^fits no PIX key type: .*529 982 247 25/)})
    expect(readPixKey(typed, 'CPF')).toEqual({
      ok: false,
      message: 'is not a CPF: a CPF key has 11 digits (--pix-key-type CPF takes a CPF of 11 digits, together or in groups of 3, 3, 3 and 2, e.g. 529.982.247-25, 529 982 247 25 or 52998224725, with valid check digits)',
    })
  })

  it('a CNPJ written in groups with spaces is a CNPJ, never a phone with a DDD', () => {
    expect(readPixKey('11 222 333 0001 81')).toEqual({ok: true, type: 'CNPJ', value: '11222333000181'})
    expect(readPixKey('11 98765-4321')).toEqual({ok: true, type: 'PHONE', value: '+5511987654321'})
  })

  it('the expected file of a reconcile reads its document column by the same rule', async () => {
    const file = await readExpected('external-code,amount,document\nCODE-0001,100,529 982 247 25\nCODE-0002,100,3.6.8.8.9.2.5.5.4.8.8\n', {maxRows: 10})
    expect(file.byCode.get('CODE-0001')).toMatchObject({document: '529 982 247 25'})
    expect(file.problems.map((problem) => problem.message)).toEqual([expect.stringMatching(/document must be a valid CPF or CNPJ, written as one/)])
  })
})
