import {randomUUID} from 'node:crypto'

import {describe, expect, it} from 'vitest'

import {PIX_KEY_TYPES} from '../../src/schemas/enums.js'
import {checkResend} from '../../src/schemas/resend.js'
import {pixKeyProblem, readPixKey} from '../../src/schemas/pix-key.js'
import {destinationUrlProblem} from '../../src/schemas/rules.js'
import {checkWithdraw} from '../../src/schemas/withdraw.js'

describe('PIX keys', () => {
  it.each([
    ['52998224725', 'CPF', '52998224725'],
    ['529.982.247-25', 'CPF', '52998224725'],
    ['11.222.333/0001-81', 'CNPJ', '11222333000181'],
    ['12abc34501de35', 'CNPJ', '12ABC34501DE35'],
    ['Maria@Example.com', 'EMAIL', 'maria@example.com'],
    ['(11) 98765-4321', 'PHONE', '+5511987654321'],
    ['+55 21 99876-5432', 'PHONE', '+5521998765432'],
    ['7D9F0335-8DCC-4054-9BF9-0C3E6E0A8B1E', 'EVP', '7d9f0335-8dcc-4054-9bf9-0c3e6e0a8b1e'],
  ])('infers %s as a %s key, written %s, which then passes its check', (key, type, value) => {
    expect(readPixKey(key)).toEqual({ok: true, type, value})
    expect(pixKeyProblem(value, type as (typeof PIX_KEY_TYPES)[number])).toBeUndefined()
  })

  it.each(['', 'not a key', '52998224724', '+551130000000', 'maria@', `${'a'.repeat(66)}@example.com`])('infers no type for %j', (key) => {
    expect(readPixKey(key).ok).toBe(false)
  })

  it('checks the key against its type, naming the reading that failed and the type it reads as', () => {
    expect(pixKeyProblem('maria@example.com', 'PHONE')).toBe('is not a phone number: write it +55 11 98765-4321 or (11) 98765-4321; it reads as an EMAIL key')
    expect(pixKeyProblem('(11) 98765-4321', 'PHONE')).toBe("must be written +5511987654321, in the DICT's form")
    expect(checkWithdraw({amount: 100, pixKey: 'x@y.io', pixKeyType: 'EMAIL', extra: 1}, {strict: true})).toEqual({
      ok: false,
      issues: [{path: '(body)', message: 'unknown field extra'}],
    })
  })
})

describe('destination URLs (overrideURL, --forward-webhooks)', () => {
  it.each(['https://hooks.example.com/x?a=1', 'http://127.0.0.1:4020/', 'http://localhost:8080/hooks', 'https://[::1]:9000/'])('accepts %s', (url) => {
    expect(destinationUrlProblem(url)).toBeUndefined()
  })

  it.each([
    ['http://hooks.example.com/', /https unless its host is loopback/],
    ['https://intranet/', /top-level domain/],
    ['https://user:pw@hooks.example.com/', /credentials/],
    ['mailto:a@b.c', /http\(s\)/],
  ])('refuses %s', (url, says) => {
    expect(destinationUrlProblem(url)).toMatch(says)
  })
})

describe('checkResend', () => {
  const now = Date.parse('2026-05-04T12:00:00Z')

  it('tells a broken combination (400) from a broken field (422)', () => {
    expect(checkResend({}, {nowMs: now})).toMatchObject({ok: false, problem: 'combination'})
    expect(checkResend({referenceId: 'x', endDate: '2026-05-04T00:00:00Z'}, {nowMs: now})).toMatchObject({ok: false, problem: 'combination'})
    expect(checkResend({startDate: '2026-05-04T00:00:00Z'}, {nowMs: now})).toEqual({
      ok: false,
      problem: 'combination',
      issues: [{path: 'endDate', message: 'is required with startDate'}],
    })
    expect(checkResend({referenceId: randomUUID(), tags: []}, {nowMs: now})).toMatchObject({ok: false, problem: 'fields'})
  })

  it('accepts either combination, dates up to now included', () => {
    expect(checkResend({referenceId: 'abc', status: ['FAILED', 'ERROR'], tags: ['PAID']}, {nowMs: now}).ok).toBe(true)
    expect(checkResend({startDate: '2026-05-04T08:00:00-03:00', endDate: '2026-05-04T12:00:00Z'}, {nowMs: now}).ok).toBe(true)
    expect(checkResend({startDate: '2026-05-04T08:00:00-03:00', endDate: '2026-05-04T12:00:00.001Z'}, {nowMs: now}).ok).toBe(false)
  })
})
