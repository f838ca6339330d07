import {randomUUID} from 'node:crypto'

import {
  formatCpf,
  generateCnpj,
  generateCpf,
  getPixPayloadInfo,
  isValidPixPayload,
} from '@brazilian-utils/brazilian-utils'
import jsqr from 'jsqr'
import {PNG} from 'pngjs'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {CreateTransactionResponse, Transaction} from '../../src/api/types.js'
import {ACQUIRER, txidFor} from '../../src/sandbox/domain/fixtures.js'
import {control, startTestSandbox, stats, tokenFor, type Sandbox} from '../helpers/sandbox.js'

// ---------------------------------------------------------------------------------------------
// Bodies and HTTP helpers
// ---------------------------------------------------------------------------------------------

/** Marks a field to leave out of a patched body. */
const REMOVE = Symbol('remove')

const text = (length: number) => 'a'.repeat(length)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The smallest body the reference accepts. */
function minimalBody(): Record<string, unknown> {
  return {amount: 12_345, paymentMethod: 'PIX', idempotencyKey: randomUUID(), pix: {}}
}

/** A body with every documented field, all of them valid. */
function fullBody(): Record<string, unknown> {
  return {
    ...minimalBody(),
    webhookUrl: 'https://hooks.example.com/pix?source=sandbox',
    externalCode: `order-${randomUUID()}`,
    customer: {
      ip: '203.0.113.7',
      name: "José D'Ávila-Müller",
      document: formatCpf(generateCpf()),
      email: 'jose@example.com',
      landline: '(11) 3000-0000',
      mobilePhone: '(11) 98765-4321',
      birthdate: '1990-05-17',
    },
    seller: {name: 'Loja Exemplo', document: generateCnpj()},
    isInfoProduct: false,
    address: {
      postalCode: '01310-100',
      complement: 'Sala 12',
      number: '1578',
      street: 'Avenida Paulista',
      neighborhood: 'Bela Vista',
      city: 'São Paulo',
      state: 'SP',
      country: 'Brasil',
    },
    items: [
      {title: 'Camiseta', description: 'Algodão, azul', unitPrice: 4990, quantity: 2},
      {title: 'Caneca', unitPrice: 2365},
    ],
    metadata: {campaign: 'black-friday', nested: {tags: ['a', 'b']}},
    pix: {expirationSeconds: 600},
  }
}

/** A deep copy of `body` with the field at a dotted path (items.0.title) set, or removed. */
function patched(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body)
  const keys = path.split('.')
  let target = copy
  for (const key of keys.slice(0, -1)) {
    target[key] ??= {}
    target = target[key] as Record<string, unknown>
  }
  const last = keys.at(-1)!
  if (value === REMOVE) delete target[last]
  else target[last] = value
  return copy
}

/** The value at a dotted path. */
const valueAt = (object: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], object)

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

/** A client of one sandbox, with a token of its default client. */
function clientOf(sandbox: Sandbox, token: string) {
  const authorization = `Bearer ${token}`
  return {
    create: (body: unknown, headers: Record<string, string> = {authorization}) =>
      fetch(`${sandbox.baseUrl}/core/transaction`, {
        method: 'POST',
        headers: {'content-type': 'application/json', ...headers},
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }).then((response) => answer<CreateTransactionResponse & ErrorBody>(response)),
    lookup: (id: string, headers: Record<string, string> = {authorization}) =>
      fetch(`${sandbox.baseUrl}/core/transaction/${id}`, {headers}).then((response) => answer<Transaction & ErrorBody>(response)),
    /** A life-cycle control; without a body it sends no content-type at all. */
    act: (id: string, action: string, body?: unknown) =>
      fetch(`${sandbox.baseUrl}/_sandbox/transactions/${id}/${action}`, {
        method: 'POST',
        headers: body === undefined ? {authorization} : {authorization, 'content-type': 'application/json'},
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      }).then((response) => answer<Transaction & ErrorBody>(response)),
  }
}

type Client = ReturnType<typeof clientOf>

/** Creates a transaction that must be accepted, and answers its create response. */
async function created(client: Client, body: Record<string, unknown> = fullBody()): Promise<CreateTransactionResponse> {
  const result = await client.create(body)
  expect(result.body.message, 'the create request was refused').toBeUndefined()
  expect(result.status).toBe(201)
  return result.body
}

/** jsqr is CommonJS: under NodeNext its typed decoder is the module's `default`, which it also sets. */
const jsQR = jsqr.default

/** Reads the text a PNG data URI's QR code carries. */
function decodeQr(dataUri: string): string | undefined {
  const match = /^data:image\/png;base64,([A-Za-z0-9+/=]+)$/.exec(dataUri)
  if (!match) throw new Error(`not a PNG data URI: ${dataUri.slice(0, 40)}`)
  const png = PNG.sync.read(Buffer.from(match[1], 'base64'))
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data
}

const masked = (document: string) => {
  const plain = document.replace(/[^0-9A-Za-z]/g, '').toUpperCase()
  return `${'*'.repeat(plain.length - 4)}${plain.slice(-4)}`
}

const END_TO_END = /^E\d{8}\d{12}[A-Z0-9]{11}$/
const END_TO_END_REFUND = /^D\d{8}\d{12}[A-Z0-9]{11}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

// ---------------------------------------------------------------------------------------------
// The documented field rules, written from the reference's tables (not from the schema's code)
// ---------------------------------------------------------------------------------------------

/** Length bounds of text fields. */
const TEXT_BOUNDS: Array<[path: string, min: number, max: number]> = [
  ['externalCode', 8, 255],
  ['address.complement', 2, 150],
  ['address.street', 2, 200],
  ['address.neighborhood', 2, 100],
  ['address.city', 2, 100],
  ['address.state', 2, 50],
  ['address.country', 2, 60],
  ['items.0.title', 2, 150],
  ['items.0.description', 2, 255],
]

/** Integer bounds of numeric fields. */
const INTEGER_BOUNDS: Array<[path: string, min: number, max: number]> = [
  ['amount', 1, 10_000_000],
  ['items.0.unitPrice', 1, 10_000_000],
  ['items.0.quantity', 1, 100],
  ['pix.expirationSeconds', 60, 86_400],
]

/** [what, path, value, the field the single issue names, what it says] */
type Rejection = [label: string, path: string, value: unknown, field: string, says: RegExp]

const REJECTIONS: Rejection[] = [
  ['amount missing', 'amount', REMOVE, 'amount', /is required/],
  ['amount with decimals', 'amount', 10.5, 'amount', /no decimals/],
  ['amount as a string', 'amount', '1000', 'amount', /integer number of cents/],
  ['amount negative', 'amount', -100, 'amount', /from 1 to 10000000/],
  ['paymentMethod missing', 'paymentMethod', REMOVE, 'paymentMethod', /is required|must be one of PIX/],
  ['paymentMethod BOLETO', 'paymentMethod', 'BOLETO', 'paymentMethod', /must be one of PIX/],
  ['paymentMethod in lower case', 'paymentMethod', 'pix', 'paymentMethod', /must be one of PIX/],
  ['webhookUrl over http', 'webhookUrl', 'http://hooks.example.com/pix', 'webhookUrl', /https/],
  ['webhookUrl with a fragment', 'webhookUrl', 'https://hooks.example.com/pix#done', 'webhookUrl', /fragment/],
  ['webhookUrl without a TLD', 'webhookUrl', 'https://localhost/pix', 'webhookUrl', /top-level domain/],
  ['webhookUrl not a URL', 'webhookUrl', 'hooks example', 'webhookUrl', /valid URL/],
  ['idempotencyKey missing', 'idempotencyKey', REMOVE, 'idempotencyKey', /is required/],
  ['idempotencyKey of 7 characters', 'idempotencyKey', text(7), 'idempotencyKey', /8 to 255/],
  ['idempotencyKey of 256 characters', 'idempotencyKey', text(256), 'idempotencyKey', /8 to 255/],
  ['customer.ip not an address', 'customer.ip', '999.1.1.1', 'customer.ip', /IPv4 or IPv6/],
  ['customer.name missing', 'customer.name', REMOVE, 'customer.name', /is required/],
  ['customer.name blank', 'customer.name', '  ', 'customer.name', /must not be empty/],
  ['customer.name with symbols', 'customer.name', 'Ana <b>', 'customer.name', /letters, digits, spaces/],
  ['customer.document missing', 'customer.document', REMOVE, 'customer.document', /is required/],
  ['customer.document a CPF with bad check digits', 'customer.document', '123.456.789-00', 'customer.document', /valid CPF or CNPJ/],
  ['customer.document of the wrong length', 'customer.document', '1234567890', 'customer.document', /valid CPF or CNPJ/],
  ['customer.email', 'customer.email', 'jose@', 'customer.email', /e-mail/],
  ['customer.landline with a mobile number', 'customer.landline', '(11) 98765-4321', 'customer.landline', /landline/],
  ['customer.landline with an unknown DDD', 'customer.landline', '(20) 3000-0000', 'customer.landline', /landline/],
  ['customer.mobilePhone with a landline', 'customer.mobilePhone', '(11) 3000-0000', 'customer.mobilePhone', /mobile/],
  ['customer.mobilePhone not starting with 9', 'customer.mobilePhone', '(11) 88765-4321', 'customer.mobilePhone', /starting with 9/],
  ['customer.birthdate with a time', 'customer.birthdate', '1990-05-17T10:00:00Z', 'customer.birthdate', /without time/],
  ['customer.birthdate not a calendar date', 'customer.birthdate', '1990-02-30', 'customer.birthdate', /without time/],
  ['customer.birthdate in the future', 'customer.birthdate', '2999-01-01', 'customer.birthdate', /future/],
  ['seller.name missing', 'seller.name', REMOVE, 'seller.name', /is required/],
  ['seller.document not a CNPJ', 'seller.document', '11.222.333/0001-00', 'seller.document', /valid CPF or CNPJ/],
  ['isInfoProduct not a boolean', 'isInfoProduct', 'no', 'isInfoProduct', /true or false/],
  ['isInfoProduct false without address', 'address', REMOVE, 'address', /required when isInfoProduct is false/],
  ['address.postalCode of 7 digits', 'address.postalCode', '1310-100', 'address.postalCode', /CEP/],
  ['address.number empty', 'address.number', '', 'address.number', /1 to 10 digits/],
  ['address.number of 11 digits', 'address.number', '12345678901', 'address.number', /1 to 10 digits/],
  ['address.number with a letter', 'address.number', '12A', 'address.number', /1 to 10 digits/],
  ['address.street missing', 'address.street', REMOVE, 'address.street', /is required/],
  ['items not a list', 'items', 'Camiseta', 'items', /list of items/],
  ['items.0.title missing', 'items.0.title', REMOVE, 'items.0.title', /is required/],
  ['items with a repeated title', 'items.1.title', 'Camiseta', 'items.1.title', /unique/],
  ['metadata a text', 'metadata', 'campaign', 'metadata', /JSON object/],
  ['metadata a list', 'metadata', ['campaign'], 'metadata', /JSON object/],
  ['pix missing', 'pix', REMOVE, 'pix', /required when paymentMethod is PIX/],
  ['pix.expirationSeconds as a string', 'pix.expirationSeconds', '600', 'pix.expirationSeconds', /integer from 60 to 86400/],
  ...TEXT_BOUNDS.flatMap(([path, min, max]): Rejection[] => [
    [`${path} of ${min - 1} characters`, path, text(min - 1), path, new RegExp(`${min} to ${max}`)],
    [`${path} of ${max + 1} characters`, path, text(max + 1), path, new RegExp(`${min} to ${max}`)],
  ]),
  ...INTEGER_BOUNDS.flatMap(([path, min, max]): Rejection[] => [
    [`${path} ${min - 1}`, path, min - 1, path, new RegExp(`${min} to ${max}`)],
    [`${path} ${max + 1}`, path, max + 1, path, new RegExp(`${min} to ${max}`)],
    [`${path} ${min + 0.5}`, path, min + 0.5, path, /integer|decimals/],
  ]),
]

/** [what, path, value]: accepted, and kept as sent. */
const ACCEPTED: Array<[label: string, path: string, value: unknown]> = [
  ['webhookUrl with a query string', 'webhookUrl', 'https://hooks.example.com/pix?token=abc&x=1'],
  ['customer.ip IPv6', 'customer.ip', '2001:db8::1'],
  ['customer.name in other scripts', 'customer.name', "Ψυχή 山田 O'Neil"],
  ['customer.landline as digits', 'customer.landline', '1130000000'],
  ['customer.mobilePhone with +55', 'customer.mobilePhone', '+55 21 99876-5432'],
  ['address.postalCode as digits', 'address.postalCode', '01310100'],
  ['address.number of 1 digit', 'address.number', '1'],
  ['address.number of 10 digits', 'address.number', '1234567890'],
  ['isInfoProduct true', 'isInfoProduct', true],
  ['metadata empty', 'metadata', {}],
  ...TEXT_BOUNDS.flatMap(([path, min, max]): Array<[string, string, unknown]> => [
    [`${path} of ${min} characters`, path, `${randomUUID()}${text(max)}`.slice(0, min)],
    [`${path} of ${max} characters`, path, `${randomUUID()}${text(max)}`.slice(0, max)],
  ]),
  // pix is not part of the record: its bounds are checked through the QR expiry further down.
  ...INTEGER_BOUNDS.filter(([path]) => !path.startsWith('pix.')).flatMap(([path, min, max]): Array<[string, string, unknown]> => [
    [`${path} ${min}`, path, min],
    [`${path} ${max}`, path, max],
  ]),
]

// ---------------------------------------------------------------------------------------------
// The sandbox on the real clock
// ---------------------------------------------------------------------------------------------

describe('sandbox transactions', () => {
  let sandbox: Sandbox
  let token: string
  let client: Client

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    token = await tokenFor(sandbox.baseUrl)
    client = clientOf(sandbox, token)
  })
  afterAll(() => sandbox.close())

  const recordCount = () => sandbox.domain.records.size

  describe('POST /core/transaction: validation', () => {
    it.each(REJECTIONS)('refuses %s with a 422 naming the field', async (_label, path, value, field, says) => {
      const before = recordCount()
      const result = await client.create(patched(fullBody(), path, value))
      expect(result.status).toBe(422)
      expect(result.body.message).toHaveLength(1)
      const [message] = result.body.message as string[]
      expect(message.startsWith(`${field} `), message).toBe(true)
      expect(message).toMatch(says)
      expect(recordCount()).toBe(before)
    })

    it.each(ACCEPTED)('accepts %s and keeps it as sent', async (_label, path, value) => {
      const {id} = await created(client, patched(fullBody(), path, value))
      const {body} = await client.lookup(id)
      expect(valueAt(body, path)).toEqual(value)
    })

    it('accepts the smallest body and ignores fields it does not know', async () => {
      const {id} = await created(client, {...minimalBody(), unknownField: 'ignored'})
      const {body} = await client.lookup(id)
      expect(body).not.toHaveProperty('unknownField')
      expect(body.isInfoProduct).toBe(true)
    })

    it('answers every broken rule of one request at once, in the documented error body', async () => {
      let body = fullBody()
      for (const [path, value] of [
        ['amount', 0],
        ['webhookUrl', 'http://hooks.example.com'],
        ['customer.document', '111.111.111-11'],
        ['items.1.title', 'Camiseta'],
        ['address', REMOVE],
        ['pix.expirationSeconds', 30],
      ] as const) {
        body = patched(body, path, value)
      }
      const result = await client.create(body)
      expect(result.status).toBe(422)
      expect(Object.keys(result.body).sort()).toEqual(['error', 'message', 'statusCode'])
      expect(result.body).toMatchObject({statusCode: 422, error: 'Unprocessable Entity'})
      const fields = (result.body.message as string[]).map((message) => message.split(' ')[0]).sort()
      expect(fields).toEqual(['address', 'amount', 'customer.document', 'items.1.title', 'pix.expirationSeconds', 'webhookUrl'])
    })

    it.each([
      ['invalid JSON', '{"amount": 1000,', /not valid JSON/],
      ['a JSON list', '[{"amount": 1000}]', /JSON object/],
    ])('answers 422 for %s', async (_label, raw, says) => {
      const result = await client.create(raw)
      expect(result.status).toBe(422)
      expect(result.body.message).toMatch(says)
    })
  })

  describe('POST /core/transaction: documents and defaults', () => {
    it.each([
      ['a formatted CPF', () => formatCpf(generateCpf()), 'CPF'],
      ['a CPF as digits', () => generateCpf(), 'CPF'],
      ['a numeric CNPJ', () => generateCnpj(), 'CNPJ'],
      ['an alphanumeric CNPJ', () => generateCnpj(2), 'CNPJ'],
    ])('accepts %s as the customer and seller document, masked on lookup', async (_label, make, type) => {
      const [customerDocument, sellerDocument] = [make(), make()]
      const body = patched(patched(fullBody(), 'customer.document', customerDocument), 'seller.document', sellerDocument)
      const {id} = await created(client, body)
      const {body: tx} = await client.lookup(id)
      expect(tx.customer?.document).toEqual({value: masked(customerDocument), type})
      expect(tx.seller?.document).toEqual({value: masked(sellerDocument), type})
      // The record itself keeps the document whole, as plain characters.
      const stored = sandbox.domain.records.get(id)!.data.customer!.document
      expect(stored).toEqual({value: customerDocument.replace(/[^0-9A-Z]/gi, '').toUpperCase(), type})
    })

    it('refuses an alphanumeric CNPJ in lower case, naming its upper-case form, and makes nothing', async () => {
      const valid = generateCnpj(2)
      const before = recordCount()
      const result = await client.create(patched(patched(fullBody(), 'seller.document', valid.toLowerCase()), 'customer.document', valid))
      expect(result.status).toBe(422)
      expect(result.body.message).toEqual([`seller.document must have the letters of a CNPJ in upper case: ${valid}`])
      expect(recordCount()).toBe(before)
    })

    it.each([
      'amount',
      'paymentMethod',
      'webhookUrl',
      'externalCode',
      'idempotencyKey',
      'customer',
      'seller',
      'isInfoProduct',
      'address',
      'items',
      'metadata',
      'pix',
      'customer.email',
      'customer.birthdate',
      'address.complement',
      'items.0.quantity',
      'items.0.description',
      'pix.expirationSeconds',
    ])('refuses an explicit null %s with a 422, never reading it as the default', async (path) => {
      const before = recordCount()
      const result = await client.create(patched(fullBody(), path, null))
      expect(result.status).toBe(422)
      expect(result.body.message).toEqual([`${path} must not be null`])
      expect(recordCount()).toBe(before)
    })

    it('refuses an alphanumeric CNPJ with a wrong check digit', async () => {
      const valid = generateCnpj(2)
      const wrong = `${valid.slice(0, 13)}${(Number(valid[13]) + 1) % 10}`
      const result = await client.create(patched(fullBody(), 'customer.document', wrong))
      expect(result.status).toBe(422)
      expect(result.body.message).toEqual(['customer.document must be a valid CPF or CNPJ (check digits verified)'])
    })

    it('accepts address.zipCode as an alias of postalCode and stores it as postalCode', async () => {
      const body = fullBody()
      const address = body.address as Record<string, unknown>
      const {postalCode, ...rest} = address
      const {id} = await created(client, {...body, address: {...rest, zipCode: postalCode}})
      const {body: tx} = await client.lookup(id)
      expect(tx.address).toEqual(address)
      expect(tx.address).not.toHaveProperty('zipCode')
    })

    it('names zipCode, not postalCode, when the alias is wrong', async () => {
      const body = fullBody()
      const {postalCode: _postalCode, ...rest} = body.address as Record<string, unknown>
      const result = await client.create({...body, address: {...rest, zipCode: '123'}})
      expect(result.status).toBe(422)
      expect(result.body.message).toHaveLength(1)
      expect((result.body.message as string[])[0]).toMatch(/^address\.zipCode .*CEP/)
    })

    it('gives an item without quantity the quantity 1 and keeps the others', async () => {
      const body = fullBody()
      const {id} = await created(client, body)
      const {body: tx} = await client.lookup(id)
      const sent = body.items as Array<Record<string, unknown>>
      expect(sent[1]).not.toHaveProperty('quantity')
      expect(tx.items).toEqual([sent[0], {...sent[1], quantity: 1}])
    })

    it.each([
      ['pix {}', {}, 1800],
      ['pix.expirationSeconds 60', {expirationSeconds: 60}, 60],
      ['pix.expirationSeconds 86400', {expirationSeconds: 86_400}, 86_400],
    ])('sets the QR expiry from %s', async (_label, pix, seconds) => {
      const {id, pixResponse} = await created(client, {...minimalBody(), pix})
      const {body: tx} = await client.lookup(id)
      expect(Date.parse(pixResponse!.expirationDate) - Date.parse(tx.createdAt)).toBe(seconds * 1000)
    })
  })

  describe('POST /core/transaction: the created record', () => {
    it('answers 201 with the documented create response', async () => {
      const body = fullBody()
      const result = await client.create(body)
      expect(result.status).toBe(201)
      expect(Object.keys(result.body).sort()).toEqual(['amount', 'externalCode', 'id', 'pixResponse', 'status', 'type'])
      expect(result.body).toMatchObject({
        amount: body.amount,
        externalCode: body.externalCode,
        type: 'TRANSACTION',
        status: 'PIX_QRCODE_GENERATED',
      })
      expect(result.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(Object.keys(result.body.pixResponse!).sort()).toEqual(['expirationDate', 'qrCodeBase64', 'uri'])
    })

    it('leaves externalCode out of the response when none was sent', async () => {
      const response = await created(client, minimalBody())
      expect(response).not.toHaveProperty('externalCode')
    })

    it.each([1, 1000, 12_345, 10_000_000])('makes a BR Code with a valid CRC carrying %i cents and the txid', async (amount) => {
      const {id, pixResponse} = await created(client, {...minimalBody(), amount})
      const uri = pixResponse!.uri
      expect(isValidPixPayload(uri)).toBe(true)
      const info = getPixPayloadInfo(uri)
      expect(info).toMatchObject({amount: amount / 100, txid: txidFor(id)})
      // A broken CRC is caught: the check above can fail.
      expect(isValidPixPayload(`${uri.slice(0, -1)}${uri.endsWith('0') ? '1' : '0'}`)).toBe(false)
    })

    it('draws qrCodeBase64 as a PNG QR code of the uri text', async () => {
      const {pixResponse} = await created(client)
      expect(pixResponse!.qrCodeBase64).toMatch(/^data:image\/png;base64,/)
      expect(decodeQr(pixResponse!.qrCodeBase64!)).toBe(pixResponse!.uri)
    })

    it('gives every transaction its own id and BR Code', async () => {
      const [first, second] = await Promise.all([created(client, minimalBody()), created(client, minimalBody())])
      expect(first.id).not.toBe(second.id)
      expect(first.pixResponse!.uri).not.toBe(second.pixResponse!.uri)
    })
  })

  describe('POST /core/transaction: idempotency', () => {
    it('answers the original transaction for the same key and body, without a second record', async () => {
      const body = fullBody()
      const first = await client.create(body)
      const countAfterFirst = recordCount()
      const postsBefore = (await stats(sandbox.baseUrl)).byRoute['POST /core/transaction']
      const again = await client.create(body)
      expect(again.status).toBe(201)
      expect(again.body).toEqual(first.body)
      expect(first.headers.get('idempotent-replayed')).toBeNull()
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(recordCount()).toBe(countAfterFirst)
      // The replay did reach the sandbox: it was answered, not skipped.
      expect((await stats(sandbox.baseUrl)).byRoute['POST /core/transaction']).toBe(postsBefore + 1)
      expect((await client.lookup(first.body.id)).status).toBe(200)
    })

    it('treats the same body with its keys in another order as the same body', async () => {
      const body = fullBody()
      const reordered = Object.fromEntries(Object.entries(body).reverse())
      reordered.customer = Object.fromEntries(Object.entries(body.customer as object).reverse())
      // Free-form metadata keeps the order it was sent in, unlike the fields the schema knows.
      reordered.metadata = Object.fromEntries(Object.entries(body.metadata as object).reverse())
      const first = await created(client, body)
      const again = await created(client, reordered)
      expect(again.id).toBe(first.id)
    })

    it('refuses the same key with another body with a 422, keeping the original', async () => {
      const body = fullBody()
      const first = await created(client, body)
      const count = recordCount()
      const result = await client.create({...body, amount: (body.amount as number) + 1})
      expect(result.status).toBe(422)
      expect(result.body.message).toMatch(/idempotencyKey .* already used with another body/)
      expect(recordCount()).toBe(count)
      expect((await client.lookup(first.id)).body.amount).toBe(body.amount)
    })

    it('makes one record for concurrent requests with the same key', async () => {
      const body = fullBody()
      const before = recordCount()
      const results = await Promise.all(Array.from({length: 5}, () => client.create(body)))
      expect(results.map((result) => result.status)).toEqual([201, 201, 201, 201, 201])
      expect(results.filter((result) => result.headers.get('idempotent-replayed') === 'true')).toHaveLength(4)
      expect(new Set(results.map((result) => result.body.id)).size).toBe(1)
      expect(recordCount()).toBe(before + 1)
    })

    it.each([
      ['8', () => randomUUID().slice(0, 8)],
      ['255', () => `${randomUUID()}${text(255)}`.slice(0, 255)],
    ])('accepts an idempotencyKey of %s characters and replays with it', async (_label, makeKey) => {
      const body = {...minimalBody(), idempotencyKey: makeKey()}
      const first = await created(client, body)
      expect((await created(client, body)).id).toBe(first.id)
    })
  })

  describe('authentication', () => {
    /** A token signed with another key: well-formed, but not the sandbox's. */
    const forged = () => {
      const [header, payload] = token.split('.')
      return `${header}.${payload}.${Buffer.from('not the signature').toString('base64url')}`
    }

    it.each([
      ['no Authorization header', () => ({})],
      ['a forged bearer', () => ({authorization: `Bearer ${forged()}`})],
      ['a malformed header', () => ({authorization: `Token ${token}`})],
    ])('answers 401 to a create with %s, and makes nothing', async (_label, headers) => {
      const before = recordCount()
      const result = await client.create(fullBody(), headers())
      expect(result.status).toBe(401)
      expect(result.body.statusCode).toBe(401)
      expect(recordCount()).toBe(before)
    })

    it('answers 401 to a lookup without or with a forged bearer', async () => {
      const {id} = await created(client, minimalBody())
      expect((await client.lookup(id, {})).status).toBe(401)
      expect((await client.lookup(id, {authorization: `Bearer ${forged()}`})).status).toBe(401)
    })

    it('answers 401 to a life-cycle control without a bearer', async () => {
      const {id} = await created(client, minimalBody())
      const result = await answer<ErrorBody>(await control(sandbox.baseUrl, `/_sandbox/transactions/${id}/pay`))
      expect(result.status).toBe(401)
      expect((await client.lookup(id)).body.status).toBe('PIX_QRCODE_GENERATED')
    })
  })

  describe('GET /core/transaction/:id', () => {
    it('answers 422 for an id that is not a UUID', async () => {
      const result = await client.lookup('not-a-uuid')
      expect(result.status).toBe(422)
      expect(result.body.message).toMatch(/UUID/)
    })

    it('answers 404 for an unknown UUID', async () => {
      const result = await client.lookup(randomUUID())
      expect(result.status).toBe(404)
      expect(result.body).toMatchObject({statusCode: 404, error: 'Not Found'})
    })

    it('answers the whole transaction as sent, documents masked', async () => {
      const body = fullBody()
      const response = await created(client, body)
      const result = await client.lookup(response.id)
      expect(result.status).toBe(200)
      const tx = result.body
      const customer = body.customer as Record<string, string>
      const seller = body.seller as Record<string, string>
      expect(tx).toMatchObject({
        id: response.id,
        acquirer: ACQUIRER.name,
        acquirerCode: ACQUIRER.code,
        amount: body.amount,
        paymentMethod: 'PIX',
        webhookUrl: body.webhookUrl,
        externalCode: body.externalCode,
        isInfoProduct: false,
        address: body.address,
        metadata: body.metadata,
        status: 'PIX_QRCODE_GENERATED',
        pixResponse: response.pixResponse,
      })
      expect(tx.customer).toEqual({...customer, document: {value: masked(customer.document), type: 'CPF'}})
      expect(tx.seller).toEqual({...seller, document: {value: masked(seller.document), type: 'CNPJ'}})
      expect(JSON.stringify(tx)).not.toContain(customer.document.replace(/\D/g, ''))
      expect(tx.createdAt).toMatch(ISO)
      expect(tx.updatedAt).toMatch(ISO)
      expect(tx).not.toHaveProperty('idempotencyKey')
    })

    it('answers a history of PENDING then PIX_QRCODE_GENERATED with real durations', async () => {
      const {id} = await created(client, minimalBody())
      await sleep(30)
      const {body: tx} = await client.lookup(id)
      expect(tx.statusHistory.map((entry) => entry.status)).toEqual(['PENDING', 'PIX_QRCODE_GENERATED'])
      const [pending, generated] = tx.statusHistory
      expect(pending.date).toBe(tx.createdAt)
      expect(generated.date).toBe(tx.updatedAt)
      expect(pending.durationInMilliseconds).toBe(Date.parse(generated.date) - Date.parse(pending.date))
      // The current status's duration runs on until the lookup.
      expect(generated.durationInMilliseconds).toBeGreaterThanOrEqual(30)
      const later = await client.lookup(id)
      expect(later.body.statusHistory[1].durationInMilliseconds).toBeGreaterThanOrEqual(generated.durationInMilliseconds)
    })

    it('answers a PIX-key deposit kept in the same store', async () => {
      const id = randomUUID()
      const at = new Date().toISOString()
      sandbox.domain.records.insert({
        id,
        origin: 'PIX_KEY',
        createdAtMs: Date.parse(at),
        data: Object.freeze({
          id,
          acquirer: ACQUIRER.name,
          amount: 5000,
          paymentMethod: 'PIX',
          isInfoProduct: true,
          createdAt: at,
          updatedAt: at,
          status: 'DEPOSIT_PIXKEY_GENERATED',
          statusHistory: [{status: 'DEPOSIT_PIXKEY_GENERATED', date: at, durationInMilliseconds: 0}],
        } satisfies Transaction),
      })
      const result = await client.lookup(id)
      expect(result.status).toBe(200)
      expect(result.body).toMatchObject({id, status: 'DEPOSIT_PIXKEY_GENERATED', amount: 5000})
    })
  })

  describe('life-cycle controls', () => {
    /** Creates a transaction and applies each action in turn, each one answering 200. */
    async function through(actions: string[], body: Record<string, unknown> = fullBody()): Promise<Transaction> {
      const {id} = await created(client, body)
      let tx = (await client.lookup(id)).body
      for (const action of actions) {
        const result = await client.act(id, action)
        expect(result.body.message, `${action} was refused`).toBeUndefined()
        expect(result.status).toBe(200)
        tx = result.body
      }
      return tx
    }

    it.each([
      [['pay'], ['PAID']],
      [['fail'], ['FAILED']],
      [['pay', 'refund'], ['PAID', 'PROCESSING_REFUND', 'REFUNDED']],
      [['pay', 'infraction'], ['PAID', 'PROCESSING_INFRACTION', 'INFRACTION']],
      [['pay', 'block'], ['PAID', 'BLOCKED']],
    ])('moves a new transaction through %j, keeping every status in the history', async (actions, statuses) => {
      const tx = await through(actions)
      expect(tx.status).toBe(statuses.at(-1))
      expect(tx.statusHistory.map((entry) => entry.status)).toEqual(['PENDING', 'PIX_QRCODE_GENERATED', ...statuses])
      for (const [index, entry] of tx.statusHistory.slice(0, -1).entries()) {
        expect(entry.durationInMilliseconds).toBe(Date.parse(tx.statusHistory[index + 1].date) - Date.parse(entry.date))
      }
      expect(tx.updatedAt).toBe(tx.statusHistory.at(-1)!.date)
      // The lookup answers the same record the control did.
      const history = (record: Transaction) => record.statusHistory.map((entry) => entry.status)
      expect(history((await client.lookup(tx.id)).body)).toEqual(history(tx))
    })

    it('pay fills the amount paid, the date, the end-to-end id, payer and receiver', async () => {
      const body = fullBody()
      const tx = await through(['pay'], body)
      const customer = body.customer as Record<string, string>
      expect(tx.amountPaid).toBe(body.amount)
      expect(tx.paymentDate).toBe(tx.updatedAt)
      expect(tx.endToEnd).toMatch(END_TO_END)
      expect(tx.endToEnd!.slice(1, 9)).toBe(tx.payer!.bankAccount.ispb)
      expect(tx.payer).toMatchObject({type: 'PF', name: customer.name, document: masked(customer.document)})
      expect(tx.receiver).toMatchObject({type: 'PJ', document: expect.stringMatching(/^\*+\d{4}$/)})
      expect(tx.paymentReceipt?.url).toMatch(/^https:\/\//)
      expect(tx.feeAmount).toBeGreaterThan(0)
      expect(tx.errorMessage).toBeNull()
    })

    it('pay takes the amount paid from the body', async () => {
      const {id} = await created(client)
      const result = await client.act(id, 'pay', {amount: 1000})
      expect(result.status).toBe(200)
      expect(result.body.amountPaid).toBe(1000)
    })

    it('pays a transaction without a customer with someone made up', async () => {
      const tx = await through(['pay'], minimalBody())
      expect(tx.payer?.name).toMatch(/\S+ \S+/)
      expect(tx.payer?.document).toMatch(/^\*+[0-9A-Z]{4}$/)
    })

    it('refund fills the refund amount, date, end-to-end id and receipt', async () => {
      const tx = await through(['pay', 'refund'])
      expect(tx.refundAmount).toBe(tx.amountPaid)
      expect(tx.refundDate).toBe(tx.updatedAt)
      expect(tx.endToEndRefund).toMatch(END_TO_END_REFUND)
      expect(tx.refundReceipt?.url).toMatch(/^https:\/\//)
      expect(tx.errorMessageRefund).toBeNull()
    })

    it('refunds part of the payment, and never more than was paid', async () => {
      const {id} = await created(client, {...minimalBody(), amount: 5000})
      await client.act(id, 'pay')
      const tooMuch = await client.act(id, 'refund', {amount: 5001})
      expect(tooMuch.status).toBe(422)
      expect(tooMuch.body.message).toMatch(/must not exceed the amount paid \(5000\)/)
      const part = await client.act(id, 'refund', {amount: 1200})
      expect(part.status).toBe(200)
      expect(part.body).toMatchObject({status: 'REFUNDED', refundAmount: 1200, amountPaid: 5000})
    })

    it('infraction fills the infraction amount and date', async () => {
      const {id} = await created(client, {...minimalBody(), amount: 8000})
      await client.act(id, 'pay')
      const result = await client.act(id, 'infraction', {amount: 3000})
      expect(result.status).toBe(200)
      expect(result.body).toMatchObject({status: 'INFRACTION', infractionAmount: 3000, infractionDate: result.body.updatedAt})
    })

    it('block keeps the payment and adds BLOCKED', async () => {
      const tx = await through(['pay', 'block'])
      expect(tx.status).toBe('BLOCKED')
      expect(tx.amountPaid).toBe(tx.amount)
      expect(tx.endToEnd).toMatch(END_TO_END)
    })

    it('fail sets the error message sent, or a default one', async () => {
      const {id} = await created(client, minimalBody())
      const result = await client.act(id, 'fail', {message: 'insufficient funds at the acquirer'})
      expect(result.body).toMatchObject({status: 'FAILED', errorMessage: 'insufficient funds at the acquirer'})
      const other = await through(['fail'], minimalBody())
      expect(other.errorMessage).toEqual(expect.stringMatching(/\S/))
    })

    it.each([
      ['refund', [], 'PIX_QRCODE_GENERATED'],
      ['infraction', [], 'PIX_QRCODE_GENERATED'],
      ['block', [], 'PIX_QRCODE_GENERATED'],
      ['pay', ['pay'], 'PAID'],
      ['fail', ['pay'], 'PAID'],
      ['pay', ['fail'], 'FAILED'],
      ['refund', ['pay', 'refund'], 'REFUNDED'],
      ['pay', ['pay', 'block'], 'BLOCKED'],
      ['refund', ['pay', 'infraction'], 'INFRACTION'],
    ])('refuses %s after %j with a 409 naming the status, changing nothing', async (action, before, status) => {
      const tx = await through(before, minimalBody())
      const result = await client.act(tx.id, action)
      expect(result.status).toBe(409)
      expect(result.body.message).toMatch(new RegExp(`cannot ${action} a record in status ${status}`))
      const after = (await client.lookup(tx.id)).body
      expect(after.status).toBe(status)
      expect(after.statusHistory).toHaveLength(tx.statusHistory.length)
    })

    it('answers 422 for an id that is not a UUID and 404 for an unknown one', async () => {
      expect((await client.act('123', 'pay')).status).toBe(422)
      expect((await client.act(randomUUID(), 'pay')).status).toBe(404)
    })

    it('answers 404 for an action it does not know', async () => {
      const {id} = await created(client, minimalBody())
      expect((await client.act(id, 'cancel')).status).toBe(404)
    })

    it.each([
      ['invalid JSON', '{"amount":', /not valid JSON/],
      ['a JSON list', '[1000]', /JSON object/],
      ['amount as a string', {amount: '1000'}, /amount must be an integer/],
      ['amount 0', {amount: 0}, /amount must be an integer number of cents from 1/],
      ['amount with decimals', {amount: 10.5}, /amount must be an integer/],
      ['message not a text', {message: 42}, /message must be a text/],
    ])('answers 422 for a control body with %s, changing nothing', async (_label, body, says) => {
      const {id} = await created(client, minimalBody())
      const result = await client.act(id, 'pay', body)
      expect(result.status).toBe(422)
      expect(String(result.body.message)).toMatch(says)
      expect((await client.lookup(id)).body.status).toBe('PIX_QRCODE_GENERATED')
    })

    it('accepts an empty JSON body', async () => {
      const {id} = await created(client, minimalBody())
      expect((await client.act(id, 'pay', '')).status).toBe(200)
    })

    it('is a sandbox control: injected faults of the gateway API do not hit it', async () => {
      const {id} = await created(client, minimalBody())
      expect((await control(sandbox.baseUrl, '/_sandbox/faults', {route: '*', status: 503})).status).toBe(204)
      expect((await client.act(id, 'pay')).status).toBe(200)
      // The fault is still there for the gateway API, and consumed by it.
      expect((await client.lookup(id)).status).toBe(503)
      expect((await client.lookup(id)).status).toBe(200)
    })
  })
})

// ---------------------------------------------------------------------------------------------
// Sandboxes with their own settings
// ---------------------------------------------------------------------------------------------

describe('sandbox transactions on a clock the test moves', () => {
  const start = Date.parse('2026-03-02T12:00:00.000Z')
  let clock = start
  let sandbox: Sandbox
  let client: Client

  beforeAll(async () => {
    sandbox = await startTestSandbox({now: () => clock})
    client = clientOf(sandbox, await tokenFor(sandbox.baseUrl))
  })
  afterAll(() => sandbox.close())

  it('counts each status for as long as the record stayed in it', async () => {
    clock = start
    const {id} = await created(client, minimalBody())
    clock += 5000
    await client.act(id, 'pay')
    clock += 2000
    const {body: tx} = await client.lookup(id)
    expect(tx.statusHistory).toEqual([
      {status: 'PENDING', date: new Date(start).toISOString(), durationInMilliseconds: 0},
      {status: 'PIX_QRCODE_GENERATED', date: new Date(start).toISOString(), durationInMilliseconds: 5000},
      {status: 'PAID', date: new Date(start + 5000).toISOString(), durationInMilliseconds: 2000},
    ])
    expect(tx.paymentDate).toBe(new Date(start + 5000).toISOString())
  })

  it('refuses to pay a QR code that has expired', async () => {
    clock = start + 60_000
    const {id, pixResponse} = await created(client, {...minimalBody(), pix: {expirationSeconds: 60}})
    expect(pixResponse!.expirationDate).toBe(new Date(clock + 60_000).toISOString())
    clock += 61_000
    const result = await client.act(id, 'pay')
    expect(result.status).toBe(409)
    expect(result.body.message).toMatch(/expired/)
    expect((await client.act(id, 'fail')).status).toBe(200)
  })
})

describe('sandbox transactions with auto-pay', () => {
  let sandbox: Sandbox
  let client: Client

  beforeAll(async () => {
    sandbox = await startTestSandbox({autoPayMs: 50})
    client = clientOf(sandbox, await tokenFor(sandbox.baseUrl))
  })
  afterAll(() => sandbox.close())

  /** Looks the record up until it reaches `status`, for two seconds at most. */
  async function waitFor(id: string, status: string): Promise<Transaction> {
    const deadline = Date.now() + 2000
    for (;;) {
      const {body} = await client.lookup(id)
      if (body.status === status || Date.now() > deadline) return body
      await sleep(10)
    }
  }

  it('pays every new QR code on its own', async () => {
    const body = fullBody()
    const response = await created(client, body)
    expect(response.status).toBe('PIX_QRCODE_GENERATED')
    const tx = await waitFor(response.id, 'PAID')
    expect(tx.status).toBe('PAID')
    expect(tx.amountPaid).toBe(body.amount)
    expect(tx.endToEnd).toMatch(END_TO_END)
  })

  it('leaves a record moved before its time as it is', async () => {
    const {id} = await created(client, minimalBody())
    expect((await client.act(id, 'fail')).status).toBe(200)
    await sleep(150)
    const {status, body} = await client.lookup(id)
    expect(status).toBe(200)
    expect(body.status).toBe('FAILED')
  })

  it('pays a replayed create only once', async () => {
    const body = minimalBody()
    const {id} = await created(client, body)
    await created(client, body)
    const tx = await waitFor(id, 'PAID')
    await sleep(150)
    const after = (await client.lookup(id)).body
    expect(after.statusHistory.map((entry) => entry.status)).toEqual(['PENDING', 'PIX_QRCODE_GENERATED', 'PAID'])
    expect(after.paymentDate).toBe(tx.paymentDate)
  })
})
