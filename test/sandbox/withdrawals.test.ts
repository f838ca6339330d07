import {randomUUID} from 'node:crypto'

import {generateCnpj, generateCpf} from '@brazilian-utils/brazilian-utils'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {Withdrawal} from '../../src/sandbox/domain/withdrawals.js'
import {startTestSandbox, tokenFor, type Sandbox} from '../helpers/sandbox.js'

interface ErrorBody {
  statusCode: number
  error: string
  message: string | string[]
}

interface Answer<T> {
  status: number
  headers: Headers
  body: T
}

async function answer<T>(response: Response): Promise<Answer<T>> {
  const raw = await response.text()
  return {status: response.status, headers: response.headers, body: (raw ? JSON.parse(raw) : undefined) as T}
}

const text = (length: number) => 'a'.repeat(length)

/** A valid key of every type, as the gateway takes it. */
const KEYS = {
  CPF: () => generateCpf(),
  CNPJ: () => generateCnpj(),
  ALPHANUMERIC_CNPJ: () => generateCnpj({version: 2}),
  EMAIL: () => `maria.${randomUUID().slice(0, 8)}@example.com`,
  PHONE: () => '+5511987654321',
  EVP: () => randomUUID(),
}

function body(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {amount: 2500, pixKey: KEYS.EVP(), pixKeyType: 'EVP', idempotencyKey: randomUUID(), ...overrides}
}

function clientOf(sandbox: Sandbox, token: string) {
  const authorization = `Bearer ${token}`
  return {
    withdraw: (payload: unknown, path = '/core/withdraw', headers: Record<string, string> = {authorization}) =>
      fetch(`${sandbox.baseUrl}${path}`, {
        method: 'POST',
        headers: {'content-type': 'application/json', ...headers},
        body: typeof payload === 'string' ? payload : JSON.stringify(payload),
      }).then((response) => answer<Record<string, unknown> & ErrorBody>(response)),
    settle: (id: string, payload?: unknown, headers: Record<string, string> = {authorization}) =>
      fetch(`${sandbox.baseUrl}/_sandbox/withdrawals/${id}/settle`, {
        method: 'POST',
        headers: payload === undefined ? headers : {...headers, 'content-type': 'application/json'},
        body: payload === undefined ? undefined : typeof payload === 'string' ? payload : JSON.stringify(payload),
      }).then((response) => answer<Withdrawal & ErrorBody>(response)),
    list: () => fetch(`${sandbox.baseUrl}/_sandbox/withdrawals`).then((response) => answer<{total: number; data: Withdrawal[]}>(response)),
  }
}

type Client = ReturnType<typeof clientOf>

describe('POST /core/withdraw', () => {
  let sandbox: Sandbox
  let client: Client
  const count = () => sandbox.domain.withdrawals.all().length

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    client = clientOf(sandbox, await tokenFor(sandbox.baseUrl))
  })
  afterAll(() => sandbox.close())

  it.each(Object.entries(KEYS))('accepts a %s key and answers 201 with id, externalCode, amount and PENDING', async (type, key) => {
    const pixKeyType = type === 'ALPHANUMERIC_CNPJ' ? 'CNPJ' : type
    const externalCode = `payout-${randomUUID()}`
    const pixKey = key()
    const result = await client.withdraw(body({pixKey, pixKeyType, externalCode, amount: 123_456}))
    expect(result.body.message, 'refused').toBeUndefined()
    expect(result.status).toBe(201)
    expect(Object.keys(result.body).sort()).toEqual(['amount', 'externalCode', 'id', 'status'])
    expect(result.body).toMatchObject({externalCode, amount: 123_456, status: 'PENDING'})
    expect(result.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(result.headers.get('idempotent-replayed')).toBeNull()
    const stored = sandbox.domain.withdrawals.get(result.body.id as string)
    expect(stored).toMatchObject({pixKey, pixKeyType, amount: 123_456, status: 'PENDING'})
  })

  it('serves /withdraw too, and leaves externalCode out when none was sent', async () => {
    const result = await client.withdraw(body(), '/withdraw')
    expect(result.status).toBe(201)
    expect(result.body).not.toHaveProperty('externalCode')
  })

  it('ignores fields it does not know', async () => {
    expect((await client.withdraw(body({note: 'rent'}))).status).toBe(201)
  })

  /** [what, overrides, the field the one issue names, what it says] */
  const rejections: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['no amount', {amount: undefined}, 'amount', /is required/],
    ['amount 0', {amount: 0}, 'amount', /from 1 to 10000000/],
    ['amount over the maximum', {amount: 10_000_001}, 'amount', /from 1 to 10000000/],
    ['amount with decimals', {amount: 10.5}, 'amount', /no decimals/],
    ['amount as text', {amount: '2500'}, 'amount', /integer number of cents/],
    ['no pixKey', {pixKey: undefined}, 'pixKey', /is required/],
    ['an empty pixKey', {pixKey: ''}, 'pixKey', /must not be empty/],
    ['no pixKeyType', {pixKeyType: undefined}, 'pixKeyType', /is required/],
    ['an unknown pixKeyType', {pixKeyType: 'RANDOM'}, 'pixKeyType', /one of CPF, CNPJ, EMAIL, PHONE, EVP/],
    ['a pixKeyType in lower case', {pixKeyType: 'evp'}, 'pixKeyType', /one of CPF, CNPJ, EMAIL, PHONE, EVP/],
    ['a formatted CPF', {pixKeyType: 'CPF', pixKey: '529.982.247-25'}, 'pixKey', /^pixKey must be written 52998224725, in the DICT's form$/],
    ['a CPF with wrong check digits', {pixKeyType: 'CPF', pixKey: '52998224724'}, 'pixKey', /^pixKey is not a valid CPF: its check digits do not match$/],
    ['a CNPJ in lower case', {pixKeyType: 'CNPJ', pixKey: '12abc34501de35'}, 'pixKey', /^pixKey must be written 12ABC34501DE35, in the DICT's form$/],
    ['a CNPJ with wrong check digits', {pixKeyType: 'CNPJ', pixKey: '11222333000180'}, 'pixKey', /^pixKey is not a valid CNPJ: its check digits do not match$/],
    ['an EMAIL of 78 characters', {pixKeyType: 'EMAIL', pixKey: `${text(66)}@example.com`}, 'pixKey', /^pixKey is an e-mail key of 78 characters: an EMAIL key has at most 77$/],
    ['an EMAIL that is none', {pixKeyType: 'EMAIL', pixKey: 'maria@'}, 'pixKey', /^pixKey is not a valid e-mail address$/],
    ['a PHONE without +55', {pixKeyType: 'PHONE', pixKey: '(11) 98765-4321'}, 'pixKey', /^pixKey must be written \+5511987654321, in the DICT's form$/],
    ['a landline as PHONE', {pixKeyType: 'PHONE', pixKey: '+551130000000'}, 'pixKey', /^pixKey is not a mobile number/],
    ['a PHONE with an unknown DDD', {pixKeyType: 'PHONE', pixKey: '+5520987654321'}, 'pixKey', /^pixKey has the DDD 20, which is no Brazilian area code$/],
    ['an EVP that is no UUID', {pixKeyType: 'EVP', pixKey: 'not-a-uuid'}, 'pixKey', /^pixKey is not a random key: an EVP key is a UUID/],
    ['a CPF given as EMAIL', {pixKeyType: 'EMAIL', pixKey: '52998224725'}, 'pixKey', /^pixKey is not a valid e-mail address; it reads as a CPF key$/],
    ['an e-mail given as CPF', {pixKeyType: 'CPF', pixKey: 'maria@example.com'}, 'pixKey', /^pixKey is not a CPF: a CPF key has 11 digits; it reads as an EMAIL key$/],
    ['a webhookUrl over http', {webhookUrl: 'http://hooks.example.com/pix'}, 'webhookUrl', /https/],
    ['a webhookUrl without a TLD', {webhookUrl: 'https://localhost/pix'}, 'webhookUrl', /top-level domain/],
    ['a webhookUrl with a fragment', {webhookUrl: 'https://hooks.example.com/pix#x'}, 'webhookUrl', /fragment/],
    ['an externalCode of 7 characters', {externalCode: text(7)}, 'externalCode', /8 to 255/],
    ['an externalCode of 256 characters', {externalCode: text(256)}, 'externalCode', /8 to 255/],
    ['an idempotencyKey of 7 characters', {idempotencyKey: text(7)}, 'idempotencyKey', /8 to 255/],
    ['an idempotencyKey of 256 characters', {idempotencyKey: text(256)}, 'idempotencyKey', /8 to 255/],
    ...['amount', 'pixKey', 'pixKeyType', 'webhookUrl', 'externalCode', 'idempotencyKey'].map(
      (field): [string, Record<string, unknown>, string, RegExp] => [`an explicit null ${field}`, {[field]: null}, field, /must not be null/],
    ),
  ]

  it.each(rejections)('answers 422 for %s, naming the field, and makes nothing', async (_what, overrides, field, says) => {
    const before = count()
    const result = await client.withdraw(body(overrides))
    expect(result.status).toBe(422)
    expect(result.body).toMatchObject({statusCode: 422, error: 'Unprocessable Entity'})
    const messages = result.body.message as string[]
    expect(messages, messages.join('; ')).toHaveLength(1)
    expect(messages[0].startsWith(`${field} `), messages[0]).toBe(true)
    expect(messages[0]).toMatch(says)
    expect(count()).toBe(before)
  })

  it('lists every broken rule at once', async () => {
    const result = await client.withdraw({amount: -1, pixKey: '', pixKeyType: 'X', externalCode: 'short'})
    expect(result.status).toBe(422)
    expect((result.body.message as string[]).map((message) => message.split(' ')[0]).sort()).toEqual(['amount', 'externalCode', 'pixKey', 'pixKeyType'])
  })

  it.each([
    ['not JSON', '{"amount":', /not valid JSON/],
    ['a JSON list', '[]', /JSON object/],
  ])('answers 422 for a body that is %s', async (_what, raw, says) => {
    const result = await client.withdraw(raw)
    expect(result.status).toBe(422)
    expect(String(result.body.message)).toMatch(says)
  })

  it('answers 401 without a bearer, and 403 to a token without the withdraw scope', async () => {
    expect((await client.withdraw(body(), '/core/withdraw', {})).status).toBe(401)
    const limited = await startTestSandbox({clients: [{clientId: 'payins', clientSecret: 'secret-1', scopes: ['transaction', 'deposit']}]})
    try {
      const other = clientOf(limited, await tokenFor(limited.baseUrl, 'payins', 'secret-1'))
      const result = await other.withdraw(body())
      expect(result.status).toBe(403)
      expect(result.body.message).toBe('the token lacks the scope withdraw')
      expect(limited.domain.withdrawals.all()).toHaveLength(0)
    } finally {
      await limited.close()
    }
  })

  describe('idempotent replays', () => {
    it('answers the original withdrawal for the same key and body, marked Idempotent-Replayed, without a second one', async () => {
      const request = body({externalCode: `payout-${randomUUID()}`})
      const first = await client.withdraw(request)
      const before = count()
      const again = await client.withdraw({...request})
      expect(again.status).toBe(201)
      expect(again.body).toEqual(first.body)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(count()).toBe(before)
    })

    it('treats the same body with its keys in another order, or with unknown fields, as the same body', async () => {
      const request = body()
      const first = await client.withdraw(request)
      const reordered = Object.fromEntries(Object.entries(request).reverse())
      const again = await client.withdraw({...reordered, note: 'ignored'})
      expect(again.status).toBe(201)
      expect(again.body.id).toBe(first.body.id)
    })

    it('refuses the same key with another body with a 422 naming the withdrawal, keeping the original', async () => {
      const request = body()
      const first = await client.withdraw(request)
      const before = count()
      const other = await client.withdraw({...request, amount: 2501})
      expect(other.status).toBe(422)
      expect(other.body.message).toBe(
        `idempotencyKey "${String(request.idempotencyKey)}" was already used with another body (withdrawal ${String(first.body.id)}): use a new key for a new withdrawal`,
      )
      expect(count()).toBe(before)
      expect(sandbox.domain.withdrawals.get(first.body.id as string).amount).toBe(2500)
    })

    it('makes one withdrawal for concurrent requests with one key', async () => {
      const request = body()
      const before = count()
      const results = await Promise.all(Array.from({length: 10}, () => client.withdraw(request)))
      expect(new Set(results.map((result) => result.body.id)).size).toBe(1)
      expect(results.filter((result) => result.headers.get('idempotent-replayed') === 'true')).toHaveLength(9)
      expect(count()).toBe(before + 1)
    })

    it('answers the current status in a replay after settling', async () => {
      const request = body()
      const {body: first} = await client.withdraw(request)
      expect((await client.settle(first.id as string)).status).toBe(200)
      const again = await client.withdraw(request)
      expect(again.body).toMatchObject({id: first.id, status: 'PAID'})
    })

    it('makes a new withdrawal every time without a key, and keeps the keys of transactions apart', async () => {
      const request = body({idempotencyKey: undefined})
      const before = count()
      const ids = [(await client.withdraw(request)).body.id, (await client.withdraw(request)).body.id]
      expect(new Set(ids).size).toBe(2)
      expect(count()).toBe(before + 2)
    })
  })
})

describe('withdrawal controls', () => {
  let sandbox: Sandbox
  let client: Client

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    client = clientOf(sandbox, await tokenFor(sandbox.baseUrl))
  })
  afterAll(() => sandbox.close())

  const created = async (overrides: Record<string, unknown> = {}) => (await client.withdraw(body(overrides))).body.id as string

  it('settles a withdrawal PAID by default, filling its end-to-end id and history', async () => {
    const id = await created()
    const result = await client.settle(id)
    expect(result.status).toBe(200)
    expect(result.body).toMatchObject({id, status: 'PAID', amount: 2500})
    expect(result.body.endToEnd).toMatch(/^E18236120\d{12}[A-Z0-9]{11}$/)
    expect(result.body.statusHistory.map((entry) => entry.status)).toEqual(['PENDING', 'PAID'])
    expect(result.body.updatedAt).toBe(result.body.statusHistory[1].date)
  })

  it('settles a withdrawal FAILED with the message sent, or a default one', async () => {
    const id = await created()
    const result = await client.settle(id, {status: 'FAILED', message: 'account closed'})
    expect(result.body).toMatchObject({status: 'FAILED', errorMessage: 'account closed'})
    expect(result.body).not.toHaveProperty('endToEnd')
    const other = await client.settle(await created(), {status: 'FAILED'})
    expect(other.body.errorMessage).toMatch(/\S/)
  })

  it('refuses to settle twice with a 409, changing nothing', async () => {
    const id = await created()
    await client.settle(id)
    const again = await client.settle(id, {status: 'FAILED'})
    expect(again.status).toBe(409)
    expect(again.body.message).toBe('cannot settle a withdrawal in status PAID: settle applies to PENDING')
    expect(sandbox.domain.withdrawals.get(id).status).toBe('PAID')
  })

  it.each([
    ['an id that is not a UUID', 'abc', undefined, 422],
    ['an unknown id', randomUUID(), undefined, 404],
  ])('answers %s with its status', async (_what, id, payload, status) => {
    expect((await client.settle(id, payload)).status).toBe(status)
  })

  it.each([
    ['invalid JSON', '{"status":', /not valid JSON/],
    ['another status', {status: 'REFUNDED'}, /status must be PAID or FAILED/],
    ['a message for PAID', {status: 'PAID', message: 'x'}, /message goes with status FAILED only/],
    ['an unknown field', {fail: true}, /unknown field fail/],
  ])('answers 422 for a settle body with %s, changing nothing', async (_what, payload, says) => {
    const id = await created()
    const result = await client.settle(id, payload)
    expect(result.status).toBe(422)
    expect(String(result.body.message)).toMatch(says)
    expect(sandbox.domain.withdrawals.get(id).status).toBe('PENDING')
  })

  it('needs a bearer to settle', async () => {
    expect((await client.settle(await created(), undefined, {})).status).toBe(401)
  })

  it('lists every withdrawal, oldest first, CPF and CNPJ keys masked, without a bearer', async () => {
    const cpf = generateCpf()
    const first = await created({pixKeyType: 'CPF', pixKey: cpf, externalCode: 'listed-0001'})
    const second = await created({pixKeyType: 'EMAIL', pixKey: 'ana@example.com'})
    const {status, body: list} = await client.list()
    expect(status).toBe(200)
    expect(list.total).toBe(list.data.length)
    expect(list.data.map((withdrawal) => withdrawal.id)).toEqual(sandbox.domain.withdrawals.all().map((withdrawal) => withdrawal.id))
    const ids = list.data.map((withdrawal) => withdrawal.id)
    expect(ids.indexOf(first)).toBeLessThan(ids.indexOf(second))
    expect(list.data.find((withdrawal) => withdrawal.id === first)).toMatchObject({pixKey: `*******${cpf.slice(-4)}`, pixKeyType: 'CPF', externalCode: 'listed-0001'})
    expect(list.data.find((withdrawal) => withdrawal.id === second)?.pixKey).toBe('ana@example.com')
  })
})
