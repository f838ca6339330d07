import {describe, expect, it} from 'vitest'

import {maskKey, resolvePixKey} from '../../src/input/pix-key.js'

describe('PIX keys', () => {
  it.each([
    ['529.982.247-25', 'CPF', '52998224725'],
    ['52998224725', 'CPF', '52998224725'],
    ['11.222.333/0001-81', 'CNPJ', '11222333000181'],
    ['12.ABC.345/01DE-35', 'CNPJ', '12ABC34501DE35'],
    ['12abc34501de35', 'CNPJ', '12ABC34501DE35'],
    ['Maria.Silva@Example.com', 'EMAIL', 'maria.silva@example.com'],
    ['+5511987654321', 'PHONE', '+5511987654321'],
    ['+55 (11) 98765-4321', 'PHONE', '+5511987654321'],
    ['71C7D9BE-4B85-4E43-9F1C-1F3B8B4E9A2D', 'EVP', '71c7d9be-4b85-4e43-9f1c-1f3b8b4e9a2d'],
  ])('infers %s as %s, sent as %s', (input, type, key) => {
    expect(resolvePixKey(input)).toEqual({ok: true, key, type, inferred: true})
  })

  it.each([
    ['529.982.247-25', 'cpf', 'CPF', '52998224725'],
    ['12abc34501de35', 'Cnpj', 'CNPJ', '12ABC34501DE35'],
    // Eleven digits that are a valid CPF and a valid mobile number: the type given decides.
    ['51998259765', 'PHONE', 'PHONE', '+5551998259765'],
    ['51998259765', 'CPF', 'CPF', '51998259765'],
  ])('takes %s as the type given (%s)', (input, given, type, key) => {
    expect(resolvePixKey(input, given)).toEqual({ok: true, key, type, inferred: false})
  })

  it.each([
    ['not a key', undefined, /^fits no PIX key type: it is none of CPF, CNPJ, EMAIL, PHONE, EVP/],
    ['123.456.789-00', undefined, /^is not a valid CPF: its check digits do not match$/],
    ['+551130000000', undefined, /^is not a mobile number: a PHONE key is a DDD and 9 digits starting with 9 \(10 digits given\)$/],
    ['', undefined, /^must not be empty$/],
    ['529.982.247-25', 'EMAIL', /^is not a valid e-mail address; it reads as a CPF key \(--pix-key-type EMAIL takes an e-mail address of at most 77 characters\)$/],
    ['maria@example.com', 'CPF', /^is not a CPF: a CPF key has 11 digits; it reads as an EMAIL key/],
    ['123.456.789-00', 'CPF', /^is not a valid CPF: its check digits do not match \(--pix-key-type CPF takes a CPF of 11 digits/],
    ['11.222.333/0001-80', 'CNPJ', /^is not a valid CNPJ: its check digits do not match/],
    ['11987654321x', 'PHONE', /^is not a phone number/],
    ['71c7d9be-4b85-4e43-9f1c', 'EVP', /^is not a random key: an EVP key is a UUID/],
    [`${'a'.repeat(72)}@ex.com`, 'EMAIL', /^is an e-mail key of 79 characters: an EMAIL key has at most 77/],
    [`${'a'.repeat(72)}@ex.com`, undefined, /^is an e-mail key of 79 characters: an EMAIL key has at most 77$/],
    ['529.982.247-25', 'RANDOM', /^must be one of CPF, CNPJ, EMAIL, PHONE, EVP, got "RANDOM"$/],
  ])('refuses %j as %s', (input, given, message) => {
    const resolved = resolvePixKey(input, given)
    expect(resolved.ok).toBe(false)
    if (!resolved.ok) expect(resolved.message).toMatch(message)
  })

  // What was seen: keys the operator never typed, or read as another type.
  it.each([
    // A CPF with one wrong check digit is a CPF that fails, never the phone +5511987654375.
    ['119.876.543-75', /^is not a valid CPF: its check digits do not match$/],
    ['11987654375', /^is neither a valid CPF \(its check digits do not match\) nor a phone written as one: write a phone \+55 11 98765-4375, or give --pix-key-type PHONE$/],
    // +55 followed by no DDD: never a DDD made of the country code.
    ['+55 98909-2712', /^has no DDD: \+55 must be followed by a DDD and the 9-digit number/],
    // A mobile number starts with 9 after the DDD, as --customer-mobile demands.
    ['+5561888888888', /^is not a mobile number/],
    ['+55 20 98765-4321', /^has the DDD 20, which is no Brazilian area code$/],
    ['+1 415 555 0100', /^is not a Brazilian number: a PHONE key starts \+55$/],
    ['111.111.111-11', /^is not a valid CPF: that number is no real CPF$/],
    ['123.456.789-09', /^is refused: 123\.456\.789-09 is a well-known test number: its check digits hold, but it is refused by policy/],
    ['00.000.000/0000-00', /^is not a valid CNPJ: that number is no real CNPJ$/],
  ])('never sends %s to a key it was not typed as: %s', (input, message) => {
    const resolved = resolvePixKey(input)
    expect(resolved).toMatchObject({ok: false})
    if (!resolved.ok) expect(resolved.message).toMatch(message)
  })

  it.each([
    ['(11) 98765-4321', '+5511987654321'],
    ['11 98765-4321', '+5511987654321'],
    ['+55 11 98765-4321', '+5511987654321'],
    ['+55 (61) 99999-0000', '+5561999990000'],
  ])('reads %s, a phone written with its DDD, as the PHONE %s: +55 the only thing added', (input, key) => {
    expect(resolvePixKey(input)).toEqual({ok: true, key, type: 'PHONE', inferred: true})
  })

  it('takes 11 bare digits as a phone only when the type says PHONE, and then adds only +55', () => {
    expect(resolvePixKey('11987654321', 'PHONE')).toEqual({ok: true, key: '+5511987654321', type: 'PHONE', inferred: false})
    expect(resolvePixKey('11987654321', 'phone')).toMatchObject({ok: true, key: '+5511987654321'})
  })

  it('masks a key as lookups mask documents, keeping the last four characters', () => {
    expect(maskKey('52998224725')).toBe('*******4725')
    expect(maskKey('+5511987654321')).toBe('**********4321')
    expect(maskKey('abc')).toBe('***')
  })
})
