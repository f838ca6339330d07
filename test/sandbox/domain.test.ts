import {randomUUID} from 'node:crypto'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {SandboxDomain} from '../../src/sandbox/domain/index.js'
import {Conflict, DomainError, Invalid, NotFound} from '../../src/sandbox/domain/errors.js'
import {IdempotencyIndex} from '../../src/sandbox/domain/idempotency.js'
import {depositPageJson, depositView} from '../../src/sandbox/domain/views.js'
import {HttpError} from '../../src/sandbox/http/reply.js'
import {startTestSandbox, tokenFor, type Sandbox} from '../helpers/sandbox.js'

const request = (overrides: Record<string, unknown> = {}) =>
  ({amount: 1500, paymentMethod: 'PIX', idempotencyKey: randomUUID(), pix: {}, ...overrides}) as Parameters<
    SandboxDomain['transactions']['create']
  >[0]

/** What a call raised, or a failure when it raised nothing. */
async function raised(call: () => unknown): Promise<unknown> {
  try {
    await call()
  } catch (error) {
    return error
  }
  throw new Error('expected the call to raise')
}

describe('the sandbox domain, without HTTP', () => {
  const domain = new SandboxDomain()
  afterAll(() => domain.dispose())

  it('raises NotFound for an unknown record, never an HTTP error', async () => {
    const error = await raised(() => domain.transactions.act(randomUUID(), 'pay'))
    expect(error).toBeInstanceOf(NotFound)
    expect(error).not.toBeInstanceOf(HttpError)
    await expect(domain.transactions.get(randomUUID())).rejects.toBeInstanceOf(NotFound)
  })

  it('raises Conflict for a step the status does not allow, naming both', async () => {
    const {data} = await domain.transactions.create(request())
    domain.transactions.act(data.id, 'pay')
    const error = await raised(() => domain.transactions.act(data.id, 'pay'))
    expect(error).toBeInstanceOf(Conflict)
    expect((error as DomainError).message).toBe('cannot pay a record in status PAID: pay applies to PENDING, PIX_QRCODE_GENERATED, DEPOSIT_PIXKEY_GENERATED, PENDING_COMPLIANCE')
  })

  it('raises Invalid for an amount out of bounds, and changes nothing', async () => {
    const {data} = await domain.transactions.create(request({amount: 5000}))
    domain.transactions.act(data.id, 'pay')
    expect(await raised(() => domain.transactions.act(data.id, 'refund', {amount: 5001}))).toBeInstanceOf(Invalid)
    expect(await raised(() => domain.transactions.act(data.id, 'refund', {amount: 0}))).toBeInstanceOf(Invalid)
    expect(domain.transactions.stored(data.id).status).toBe('PAID')
  })

  it('replays a create with the same key and body, and refuses the key with another body', async () => {
    const body = request()
    const first = await domain.transactions.create(body)
    const again = await domain.transactions.create({...body})
    expect(again).toEqual({data: first.data, replayed: true})
    const error = await raised(() => domain.transactions.create({...body, amount: 1501}))
    expect(error).toBeInstanceOf(Invalid)
    expect((error as Error).message).toContain(`was already used with another body (transaction ${first.data.id})`)
  })

  it('builds created, received and seeded records alike: the same fields in the same order', async () => {
    const seeded = new SandboxDomain({seedDeposits: 200})
    try {
      const {data: created} = await seeded.transactions.create(request())
      const entries = [...seeded.records.newestFirst()]
      const seededQr = entries.find((entry) => entry.id !== created.id && entry.data.status === 'PIX_QRCODE_GENERATED')!.data
      expect(Object.keys(seededQr)).toEqual(Object.keys(created))
      const received = seeded.deposits.receive({amount: 100})
      const seededKey = entries.find((entry) => entry.origin === 'PIX_KEY' && entry.data.status === 'DEPOSIT_PIXKEY_GENERATED')!.data
      expect(Object.keys(seededKey)).toEqual(Object.keys(received))
    } finally {
      await seeded.dispose()
    }
  })
})

describe('IdempotencyIndex', () => {
  it('makes one value for concurrent requests with one key, and replays it', async () => {
    const index = new IdempotencyIndex<{id: string}>('thing', (value) => value.id)
    let made = 0
    const make = async () => {
      made += 1
      await new Promise((resolve) => setTimeout(resolve, 20))
      return {id: `thing-${made}`}
    }
    const results = await Promise.all([index.run('key-00001', 'a', make), index.run('key-00001', 'a', make), index.run('key-00001', 'a', make)])
    expect(made).toBe(1)
    expect(results.map((result) => result.value.id)).toEqual(['thing-1', 'thing-1', 'thing-1'])
    expect(results.map((result) => result.replayed)).toEqual([false, true, true])
    await expect(index.run('key-00001', 'b', make)).rejects.toThrow('idempotencyKey "key-00001" was already used with another body (thing thing-1)')
  })

  it('makes a new value every time without a key', async () => {
    const index = new IdempotencyIndex<number>('thing', String)
    let made = 0
    const make = () => ++made
    await index.run(undefined, 'a', make)
    expect((await index.run(undefined, 'a', make)).value).toBe(2)
  })
})

describe('scopes checked from the route', () => {
  let sandbox: Sandbox

  beforeAll(async () => {
    sandbox = await startTestSandbox({
      clients: [
        {clientId: 'deposits-only', clientSecret: 'secret-1', scopes: ['deposit']},
        {clientId: 'transactions-only', clientSecret: 'secret-2', scopes: ['transaction']},
      ],
    })
  })
  afterAll(() => sandbox.close())

  it('answers 403 naming the scope a route needs, and serves the routes the token may use', async () => {
    const deposits = {authorization: `Bearer ${await tokenFor(sandbox.baseUrl, 'deposits-only', 'secret-1')}`}
    const transactions = {authorization: `Bearer ${await tokenFor(sandbox.baseUrl, 'transactions-only', 'secret-2')}`}
    const create = (headers: Record<string, string>) =>
      fetch(`${sandbox.baseUrl}/core/transaction`, {method: 'POST', headers: {...headers, 'content-type': 'application/json'}, body: JSON.stringify(request())})
    const refused = await create(deposits)
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({statusCode: 403, error: 'Forbidden', message: 'the token lacks the scope transaction'})
    expect((await fetch(`${sandbox.baseUrl}/core/deposit`, {headers: deposits})).status).toBe(200)
    expect((await create(transactions)).status).toBe(201)
    expect((await fetch(`${sandbox.baseUrl}/core/deposit`, {headers: transactions})).status).toBe(403)
    expect(sandbox.domain.records.size).toBe(1)
  })
})

describe('deposit pages written from templates', () => {
  it('writes the same bytes JSON.stringify makes of the deposit views, live durations counted to now, again and again', async () => {
    let clock = Date.parse('2026-06-01T12:00:00.000Z')
    const domain = new SandboxDomain({seedDeposits: 700, now: () => clock})
    try {
      const first = domain.deposits.list({perPage: 50})
      for (const now of [clock, clock + 1234, clock + 25 * 60_000]) {
        clock = now
        for (const pageNumber of [1, 2, 14, 15]) {
          const page = domain.deposits.list({perPage: 50, page: pageNumber, snapshot: first.snapshot})
          const expected = JSON.stringify({
            totalPages: page.totalPages,
            currentPage: page.currentPage,
            perPage: page.perPage,
            snapshot: page.snapshot,
            data: page.records.map((record, index) => depositView(record, page.origins[index], now)),
          })
          expect(depositPageJson(page, now).toString('utf8')).toBe(expected)
        }
      }
      // A page past the last has no items.
      const past = domain.deposits.list({perPage: 50, page: 99, snapshot: first.snapshot})
      expect(JSON.parse(depositPageJson(past, clock).toString('utf8'))).toMatchObject({currentPage: 99, data: []})
    } finally {
      await domain.dispose()
    }
  })

  it('keeps showing a snapshot page as it was after its records change', async () => {
    const domain = new SandboxDomain({seedDeposits: 30})
    try {
      const first = domain.deposits.list({perPage: 10, status: ['DEPOSIT_PIXKEY_GENERATED', 'PENDING_COMPLIANCE']})
      const before = depositPageJson(first, domain.now()).toString('utf8')
      const [record] = first.records
      expect(record).toBeDefined()
      domain.transactions.act(record.id, 'pay')
      const again = domain.deposits.list({perPage: 10, status: ['PENDING_COMPLIANCE', 'DEPOSIT_PIXKEY_GENERATED'], snapshot: first.snapshot})
      const item = (text: string) => (JSON.parse(text) as {data: Array<{id: string; status: string}>}).data.find((entry) => entry.id === record.id)
      const shown = item(depositPageJson(again, domain.now()).toString('utf8'))
      expect(shown?.status).toBe(record.status)
      expect(shown?.status).toBe(item(before)?.status)
      expect(domain.transactions.stored(record.id).status).toBe('PAID')
      const fresh = domain.deposits.list({perPage: 10, status: ['PAID']})
      expect(fresh.records.some((entry) => entry.id === record.id)).toBe(true)
    } finally {
      await domain.dispose()
    }
  })
})
