import {randomUUID} from 'node:crypto'

import {generateCpf} from '@brazilian-utils/brazilian-utils'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import type {Notification, StoredNotification} from '../../src/schemas/notification.js'
import {startTestSandbox, tokenFor, type Sandbox} from '../helpers/sandbox.js'
import {closedPort, startListener, type Listener} from './listener.js'

const WEBHOOK = 'https://hooks.example.com/pix?source=sandbox'
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** A caller of one sandbox: creates and moves records, reads its notifications. */
async function connect(sandbox: Sandbox, clientId = 'sandbox') {
  const token = await tokenFor(sandbox.baseUrl, clientId)
  const headers = {authorization: `Bearer ${token}`, 'content-type': 'application/json'}
  const post = async (path: string, payload?: unknown) => {
    const response = await fetch(`${sandbox.baseUrl}${path}`, {method: 'POST', headers, body: payload === undefined ? undefined : JSON.stringify(payload)})
    const raw = await response.text()
    return {status: response.status, raw, body: (raw ? JSON.parse(raw) : undefined) as Record<string, unknown>}
  }
  return {
    post,
    /** A new transaction with a webhookUrl (none for null), answering its id. */
    async charge(webhookUrl: string | null = WEBHOOK): Promise<string> {
      const result = await post('/core/transaction', {amount: 5000, paymentMethod: 'PIX', idempotencyKey: randomUUID(), pix: {}, webhookUrl: webhookUrl ?? undefined})
      expect(result.status).toBe(201)
      return result.body.id as string
    },
    async withdrawal(overrides: Record<string, unknown> = {}): Promise<string> {
      const result = await post('/core/withdraw', {amount: 900, pixKey: randomUUID(), pixKeyType: 'EVP', webhookUrl: WEBHOOK, ...overrides})
      expect(result.status).toBe(201)
      return result.body.id as string
    },
    act: (id: string, action: string) => post(`/_sandbox/transactions/${id}/${action}`),
    settle: (id: string, payload?: unknown) => post(`/_sandbox/withdrawals/${id}/settle`, payload),
    resend: (payload: unknown) => post('/dispatcher/request/resend', payload),
    /** The notifications of one record (or one notification), once every delivery under way has ended. */
    async notifications(referenceId?: string): Promise<StoredNotification[]> {
      await sandbox.domain.notifications.idle()
      const query = referenceId ? `?referenceId=${referenceId}` : ''
      const response = await fetch(`${sandbox.baseUrl}/_sandbox/notifications${query}`)
      const list = (await response.json()) as {total: number; data: StoredNotification[]}
      expect(list.total).toBe(list.data.length)
      return list.data
    },
  }
}

type Client = Awaited<ReturnType<typeof connect>>

describe('notifications forwarded to a local listener', () => {
  let listener: Listener
  let sandbox: Sandbox
  let client: Client

  beforeAll(async () => {
    listener = await startListener()
    sandbox = await startTestSandbox({forwardWebhooksTo: listener.url})
    client = await connect(sandbox)
  })
  afterEach(() => {
    listener.settings.status = 200
    listener.settings.hang = false
  })
  afterAll(async () => {
    await sandbox.close()
    await listener.close()
  })

  it('sends nothing when a record is created, one notification when it is paid', async () => {
    const before = listener.received.length
    const id = await client.charge()
    expect(await client.notifications(id)).toEqual([])
    expect((await client.act(id, 'pay')).status).toBe(200)
    await listener.waitFor(before + 1)
    const [delivery] = listener.received.slice(before)
    const body = delivery.body as unknown as Notification
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'data', 'id', 'kind', 'referenceId', 'status', 'tags'])
    expect(body).toMatchObject({referenceId: id, kind: 'transaction', status: 'RECEIVED', tags: ['transaction', 'PAID']})
    expect(body.createdAt).toMatch(ISO)
    expect(body.data).toMatchObject({id, status: 'PAID', amountPaid: 5000, webhookUrl: WEBHOOK})
    expect((body.data.payer as {document: string}).document).toMatch(/^\*+/)
    expect(delivery.method).toBe('POST')
    expect(delivery.path).toBe('/hooks')
    expect(delivery.headers['content-type']).toBe('application/json')
    expect(delivery.headers['x-notification-id']).toBe(body.id)
    expect(delivery.headers['x-original-url']).toBe(WEBHOOK)
    const [stored] = await client.notifications(id)
    expect(stored).toMatchObject({id: body.id, status: 'SENT', url: WEBHOOK})
    expect(stored.attempts).toEqual([
      {at: expect.stringMatching(ISO), url: WEBHOOK, forwardedTo: listener.url, responseStatus: 200, durationMs: expect.any(Number), outcome: 'SENT', resend: false},
    ])
  })

  it('marks a notification FAILED when the listener answers 500', async () => {
    listener.settings.status = 500
    const id = await client.charge()
    await client.act(id, 'fail')
    const [stored] = await client.notifications(id)
    expect(stored).toMatchObject({status: 'FAILED', tags: ['transaction', 'FAILED']})
    expect(stored.attempts).toMatchObject([{responseStatus: 500, outcome: 'FAILED'}])
    expect(stored.attempts[0]).not.toHaveProperty('error')
  })

  it('notifies each step of a record in order: pay, then refund', async () => {
    const before = listener.received.length
    const id = await client.charge()
    await client.act(id, 'pay')
    await client.act(id, 'refund')
    await listener.waitFor(before + 2)
    const mine = listener.received.slice(before).filter((delivery) => delivery.body.referenceId === id)
    expect(mine.map((delivery) => (delivery.body.tags as string[])[1])).toEqual(['PAID', 'REFUNDED'])
    expect(mine.map((delivery) => (delivery.body.data as {status: string}).status)).toEqual(['PAID', 'REFUNDED'])
    const stored = await client.notifications(id)
    expect(stored.map((notification) => notification.tags)).toEqual([['transaction', 'PAID'], ['transaction', 'REFUNDED']])
  })

  it('notifies a settled withdrawal, its document key masked', async () => {
    const cpf = generateCpf()
    const id = await client.withdrawal({pixKeyType: 'CPF', pixKey: cpf, externalCode: 'payout-0001'})
    expect(await client.notifications(id)).toEqual([])
    await client.settle(id)
    const [stored] = await client.notifications(id)
    expect(stored).toMatchObject({kind: 'withdrawal', referenceId: id, status: 'SENT', tags: ['withdrawal', 'PAID']})
    expect(stored.data).toMatchObject({id, status: 'PAID', amount: 900, pixKeyType: 'CPF', pixKey: `*******${cpf.slice(-4)}`, externalCode: 'payout-0001'})
  })

  it('notifies nothing for a record without a webhookUrl', async () => {
    const id = await client.charge(null)
    await client.act(id, 'pay')
    const withdrawal = await client.withdrawal({webhookUrl: undefined})
    await client.settle(withdrawal)
    expect(await client.notifications(id)).toEqual([])
    expect(await client.notifications(withdrawal)).toEqual([])
  })

  it('answers the request before the delivery ends: a listener that never answers slows nothing', async () => {
    listener.settings.hang = true
    const before = listener.received.length
    const id = await client.charge()
    const paid = await client.act(id, 'pay')
    expect(paid.status).toBe(200)
    await listener.waitFor(before + 1)
    // The answer came while the delivery is still waiting for the listener.
    const response = await fetch(`${sandbox.baseUrl}/_sandbox/notifications?referenceId=${id}`)
    const [pending] = ((await response.json()) as {data: StoredNotification[]}).data
    expect(pending).toMatchObject({status: 'RECEIVED', attempts: []})
  })
})

describe('notifications that cannot be delivered', () => {
  let sandbox: Sandbox
  let client: Client
  let hanging: Listener

  beforeAll(async () => {
    hanging = await startListener({hang: true})
    sandbox = await startTestSandbox({notificationTimeoutMs: 300})
    client = await connect(sandbox)
  })
  afterAll(async () => {
    await sandbox.close()
    await hanging.close()
  })

  it('marks ERROR a notification whose https host cannot be reached from here', async () => {
    const id = await client.charge('https://unreachable.invalid/hooks')
    await client.act(id, 'pay')
    const [stored] = await client.notifications(id)
    expect(stored.status).toBe('ERROR')
    expect(stored.attempts).toMatchObject([{url: 'https://unreachable.invalid/hooks', outcome: 'ERROR', error: expect.any(String), resend: false}])
    expect(stored.attempts[0]).not.toHaveProperty('responseStatus')
    expect(stored.attempts[0]).not.toHaveProperty('forwardedTo')
  })

  it('marks ERROR a resend to a port nothing listens on: connection refused', async () => {
    const id = await client.charge()
    await client.act(id, 'pay')
    const refused = await closedPort()
    expect((await client.resend({referenceId: id, overrideURL: refused})).status).toBe(201)
    const [stored] = await client.notifications(id)
    expect(stored.status).toBe('ERROR')
    expect(stored.attempts.at(-1)).toMatchObject({url: refused, outcome: 'ERROR', error: 'connection refused', resend: true})
  })

  it('marks ERROR a delivery that gets no answer within the timeout', async () => {
    const id = await client.charge()
    await client.act(id, 'pay')
    await client.resend({referenceId: id, overrideURL: hanging.url})
    const [stored] = await client.notifications(id)
    expect(stored.attempts.at(-1)).toMatchObject({url: hanging.url, outcome: 'ERROR', error: 'timed out after 300 ms'})
    expect(stored.attempts.at(-1)!.durationMs).toBeGreaterThanOrEqual(250)
  })
})

describe('POST /dispatcher/request/resend', () => {
  const start = Date.parse('2026-05-04T12:00:00.000Z')
  let clock = start
  let listener: Listener
  let override: Listener
  let sandbox: Sandbox
  let client: Client
  const iso = (ms: number) => new Date(ms).toISOString()

  /** Attempts of every notification, by notification id. */
  const attempts = async () => new Map((await client.notifications()).map((notification) => [notification.id, notification.attempts.length]))

  beforeAll(async () => {
    listener = await startListener()
    override = await startListener()
    sandbox = await startTestSandbox({now: () => clock, tokenTtlSec: 86_400})
    client = await connect(sandbox)
  })
  afterAll(async () => {
    await sandbox.close()
    await listener.close()
    await override.close()
  })

  it.each([
    ['neither combination', {}],
    ['only a status', {status: ['FAILED']}],
    ['startDate without endDate', {startDate: iso(start - 1000)}],
    ['endDate without startDate', {endDate: iso(start - 1000)}],
    ['referenceId with dates', {referenceId: randomUUID(), startDate: iso(start - 2000), endDate: iso(start - 1000)}],
    ['referenceId with a startDate', {referenceId: randomUUID(), startDate: iso(start - 2000)}],
  ])('answers 400 for %s', async (_what, payload) => {
    const result = await client.resend(payload)
    expect(result.status).toBe(400)
    expect(result.body).toMatchObject({statusCode: 400, error: 'Bad Request'})
  })

  it('answers 400 for a body that is not JSON', async () => {
    const response = await fetch(`${sandbox.baseUrl}/dispatcher/request/resend`, {
      method: 'POST',
      headers: {authorization: `Bearer ${await tokenFor(sandbox.baseUrl)}`, 'content-type': 'application/json'},
      body: '{"referenceId":',
    })
    expect(response.status).toBe(400)
  })

  const range = () => ({startDate: iso(clock - 60_000), endDate: iso(clock)})
  it.each([
    ['a future startDate', () => ({startDate: iso(clock + 1000), endDate: iso(clock)}), /^startDate must not be in the future$/],
    ['a future endDate', () => ({startDate: iso(clock - 1000), endDate: iso(clock + 1)}), /^endDate must not be in the future$/],
    ['startDate after endDate', () => ({startDate: iso(clock - 1000), endDate: iso(clock - 2000)}), /^startDate must not be after endDate$/],
    ['a date without a time of day', () => ({startDate: '2026-05-01', endDate: iso(clock)}), /^startDate must be an ISO date-time/],
    ['an empty status', () => ({...range(), status: []}), /^status must not be empty$/],
    ['a status outside the four', () => ({...range(), status: ['SENT', 'DELIVERED']}), /^status\.1 must be one of RECEIVED, SENT, FAILED, ERROR$/],
    ['an empty tags', () => ({...range(), tags: []}), /^tags must not be empty$/],
    ['11 tags', () => ({...range(), tags: Array.from({length: 11}, (_, index) => `tag-${index}`)}), /^tags must hold at most 10 tags$/],
    ['an overrideURL that is no URL', () => ({...range(), overrideURL: 'hooks example'}), /^overrideURL must be a valid URL$/],
    ['an ftp overrideURL', () => ({...range(), overrideURL: 'ftp://hooks.example.com/x'}), /^overrideURL must be an http\(s\) URL$/],
    ['a plain http overrideURL off loopback', () => ({...range(), overrideURL: 'http://hooks.example.com/x'}), /^overrideURL must use https unless its host is loopback/],
    ['an overrideURL with a fragment', () => ({...range(), overrideURL: 'https://hooks.example.com/x#y'}), /^overrideURL must not carry a fragment/],
    ['an empty referenceId', () => ({referenceId: ''}), /^referenceId must not be empty$/],
    ['a null status', () => ({...range(), status: null}), /^status must not be null$/],
    ['a null referenceId', () => ({referenceId: null}), /^referenceId must not be null$/],
  ])('answers 422 for %s', async (_what, payload, says) => {
    const before = await attempts()
    const result = await client.resend(payload())
    expect(result.status).toBe(422)
    expect(result.body.message).toEqual([expect.stringMatching(says)])
    expect(await attempts()).toEqual(before)
  })

  it('answers 403 to a token without resend_dispatcher, redelivering nothing', async () => {
    const id = await client.charge(WEBHOOK)
    await client.act(id, 'pay')
    const before = await attempts()
    const limited = await connect(sandbox, 'sandbox-limited')
    const result = await limited.resend({referenceId: id, overrideURL: override.url})
    expect(result.status).toBe(403)
    expect(result.body.message).toBe('the token lacks the scope resend_dispatcher')
    expect(await attempts()).toEqual(before)
  })

  it('answers 201 with no body, and redelivers every notification of a record to overrideURL', async () => {
    const id = await client.charge(WEBHOOK)
    await client.act(id, 'pay')
    clock += 1000
    await client.act(id, 'refund')
    const first = await client.notifications(id)
    expect(first.map((notification) => notification.status)).toEqual(['ERROR', 'ERROR'])
    const before = override.received.length
    const result = await client.resend({referenceId: id, overrideURL: override.url})
    expect(result.status).toBe(201)
    expect(result.raw).toBe('')
    await override.waitFor(before + 2)
    const delivered = override.received.slice(before)
    expect(delivered.map((delivery) => delivery.body.id)).toEqual(first.map((notification) => notification.id))
    // A resend carries the notification's status as it stood when resent.
    expect(delivered.map((delivery) => delivery.body.status)).toEqual(['ERROR', 'ERROR'])
    expect(delivered.every((delivery) => delivery.headers['x-original-url'] === undefined)).toBe(true)
    const after = await client.notifications(id)
    expect(after.map((notification) => notification.status)).toEqual(['SENT', 'SENT'])
    for (const notification of after) {
      expect(notification.attempts).toHaveLength(2)
      expect(notification.attempts[1]).toMatchObject({url: override.url, responseStatus: 200, outcome: 'SENT', resend: true})
      expect(notification.url).toBe(WEBHOOK)
    }
  })

  it('redelivers one notification by its own id', async () => {
    const id = await client.charge(WEBHOOK)
    await client.act(id, 'pay')
    await client.act(id, 'refund')
    const [paid, refunded] = await client.notifications(id)
    const before = override.received.length
    expect((await client.resend({referenceId: refunded.id, overrideURL: override.url})).status).toBe(201)
    await override.waitFor(before + 1)
    const after = await client.notifications(id)
    expect(after.find((notification) => notification.id === paid.id)!.attempts).toHaveLength(1)
    expect(after.find((notification) => notification.id === refunded.id)!.attempts).toHaveLength(2)
  })

  it('redelivers by creation time, both ends included, narrowed by status and by any of the tags', async () => {
    clock = start + 3_600_000
    const early = await client.charge(WEBHOOK)
    await client.act(early, 'pay')
    clock += 60_000
    const paid = await client.charge(WEBHOOK)
    await client.act(paid, 'pay')
    const failed = await client.charge(WEBHOOK)
    await client.act(failed, 'fail')
    const withdrawal = await client.withdrawal()
    await client.settle(withdrawal)
    const from = clock
    clock += 60_000
    const late = await client.charge(WEBHOOK)
    await client.act(late, 'pay')
    const all = await client.notifications()
    const idOf = (referenceId: string) => all.find((notification) => notification.referenceId === referenceId)!.id
    // The first three SENT again through the override, then the range with a tag and a status.
    await client.resend({referenceId: paid, overrideURL: override.url})
    await client.notifications()
    const before = await attempts()
    const result = await client.resend({startDate: iso(from), endDate: iso(from), status: ['ERROR'], tags: ['FAILED', 'withdrawal'], overrideURL: override.url})
    expect(result.status).toBe(201)
    const after = await attempts()
    const grew = [...after].filter(([id, count]) => count > (before.get(id) ?? 0)).map(([id]) => id)
    expect(grew.sort()).toEqual([idOf(failed), idOf(withdrawal)].sort())
    expect(grew).not.toContain(idOf(early))
    expect(grew).not.toContain(idOf(late))
    expect(grew).not.toContain(idOf(paid))
  })

  it('accepts a selection nothing matches', async () => {
    expect((await client.resend({referenceId: randomUUID()})).status).toBe(201)
  })

  it('redelivers to the record webhookUrl when no overrideURL is given', async () => {
    const id = await client.charge(WEBHOOK)
    await client.act(id, 'pay')
    await client.resend({referenceId: id})
    const [stored] = await client.notifications(id)
    expect(stored.attempts.map((attempt) => [attempt.url, attempt.resend])).toEqual([
      [WEBHOOK, false],
      [WEBHOOK, true],
    ])
  })
})

describe('resend through a forwarding sandbox', () => {
  let listener: Listener
  let sandbox: Sandbox
  let client: Client

  beforeAll(async () => {
    listener = await startListener({status: 503})
    sandbox = await startTestSandbox({forwardWebhooksTo: listener.url})
    client = await connect(sandbox)
  })
  afterAll(async () => {
    await sandbox.close()
    await listener.close()
  })

  it('forwards a resend too, with its overrideURL as the original URL, and replays a FAILED notification', async () => {
    const id = await client.charge(WEBHOOK)
    await client.act(id, 'pay')
    const [failed] = await client.notifications(id)
    expect(failed.status).toBe('FAILED')
    listener.settings.status = 204
    const before = listener.received.length
    expect((await client.resend({startDate: failed.createdAt, endDate: failed.createdAt, status: ['FAILED'], overrideURL: 'https://other.example.com/hooks'})).status).toBe(201)
    await listener.waitFor(before + 1)
    const delivery = listener.received[before]
    expect(delivery.headers['x-original-url']).toBe('https://other.example.com/hooks')
    expect(delivery.body).toMatchObject({id: failed.id, status: 'FAILED'})
    const [after] = await client.notifications(id)
    expect(after.status).toBe('SENT')
    expect(after.attempts.at(-1)).toMatchObject({url: 'https://other.example.com/hooks', forwardedTo: listener.url, responseStatus: 204, resend: true})
  })
})
