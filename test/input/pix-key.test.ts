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
    ['not a key', undefined, /^fits no PIX key type: "not a key" is none of CPF, CNPJ, EMAIL, PHONE, EVP$/],
    ['123.456.789-00', undefined, /fits no PIX key type/],
    ['+551130000000', undefined, /fits no PIX key type/],
    ['', undefined, /^must not be empty$/],
    ['529.982.247-25', 'EMAIL', /^is not a valid EMAIL key \(it reads as a CPF key\): EMAIL takes an e-mail address of at most 77 characters$/],
    ['maria@example.com', 'CPF', /^is not a valid CPF key \(it reads as an EMAIL key\): CPF takes a CPF of 11 digits/],
    ['123.456.789-00', 'CPF', /^is not a valid CPF key: CPF takes a CPF of 11 digits/],
    ['11.222.333/0001-80', 'CNPJ', /^is not a valid CNPJ key: CNPJ takes a CNPJ of 14 characters/],
    ['11987654321x', 'PHONE', /^is not a valid PHONE key: PHONE takes a mobile number written \+55, DDD and number/],
    ['71c7d9be-4b85-4e43-9f1c', 'EVP', /^is not a valid EVP key: EVP takes a random key \(a UUID\)/],
    [`${'a'.repeat(72)}@ex.com`, 'EMAIL', /^is not a valid EMAIL key: EMAIL takes an e-mail address of at most 77 characters$/],
    ['529.982.247-25', 'RANDOM', /^must be one of CPF, CNPJ, EMAIL, PHONE, EVP, got "RANDOM"$/],
  ])('refuses %j as %s', (input, given, message) => {
    const resolved = resolvePixKey(input, given)
    expect(resolved.ok).toBe(false)
    if (!resolved.ok) expect(resolved.message).toMatch(message)
  })

  it('masks a key as lookups mask documents, keeping the last four characters', () => {
    expect(maskKey('52998224725')).toBe('*******4725')
    expect(maskKey('+5511987654321')).toBe('**********4321')
    expect(maskKey('abc')).toBe('***')
  })
})
