import {randomUUID} from 'node:crypto'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {startTestSandbox, stats, tokenFor, type Sandbox} from '../helpers/sandbox.js'

/** A caller of one sandbox; `send` answers the status, or the error when the connection failed. */
async function connect(sandbox: Sandbox) {
  const token = await tokenFor(sandbox.baseUrl)
  const authorization = `Bearer ${token}`
  async function send(path: string, init: RequestInit = {}): Promise<{status: number; headers: Headers; body: unknown} | {error: string}> {
    try {
      const response = await fetch(`${sandbox.baseUrl}${path}`, {...init, headers: {authorization, 'content-type': 'application/json', ...init.headers}})
      const raw = await response.text()
      return {status: response.status, headers: response.headers, body: raw ? JSON.parse(raw) : undefined}
    } catch (error) {
      return {error: String((error as {cause?: {code?: string}}).cause?.code ?? (error as Error).name)}
    }
  }
  return {
    send,
    create: (body: Record<string, unknown>, init: RequestInit = {}) => send('/core/transaction', {method: 'POST', body: JSON.stringify(body), ...init}),
    list: () => send('/core/deposit'),
    fault: (body: unknown) =>
      fetch(`${sandbox.baseUrl}/_sandbox/faults`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)}),
  }
}

type Client = Awaited<ReturnType<typeof connect>>

const charge = () => ({amount: 1000, paymentMethod: 'PIX', idempotencyKey: randomUUID(), pix: {}})
const CREATE = 'POST /core/transaction'

describe('faults injected by the control', () => {
  let sandbox: Sandbox
  let client: Client
  const records = () => sandbox.domain.records.size

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    client = await connect(sandbox)
  })
  afterEach(async () => {
    await fetch(`${sandbox.baseUrl}/_sandbox/faults`, {method: 'DELETE'})
  })
  afterAll(() => sandbox.close())

  it.each([
    ['500', 500],
    ['503', 503],
  ])('kind %s answers that status before the handler, making nothing', async (kind, status) => {
    expect((await client.fault({route: CREATE, kind})).status).toBe(204)
    const before = records()
    const result = await client.create(charge())
    expect(result).toMatchObject({status, body: {statusCode: status, message: `injected fault: ${status}`}})
    expect(records()).toBe(before)
    expect(await client.create(charge())).toMatchObject({status: 201})
  })

  it('kind 429 answers with Retry-After, 1 s unless told otherwise', async () => {
    await client.fault({route: CREATE, kind: '429'})
    await client.fault({route: CREATE, kind: '429', retryAfter: 7})
    const [first, second] = [await client.create(charge()), await client.create(charge())]
    expect(first).toMatchObject({status: 429})
    expect('headers' in first && first.headers.get('retry-after')).toBe('1')
    expect('headers' in second && second.headers.get('retry-after')).toBe('7')
  })

  it('kind reset resets the connection before the handler: nothing is made', async () => {
    await client.fault({route: CREATE, kind: 'reset'})
    const before = records()
    const result = await client.create(charge())
    expect(result).toHaveProperty('error')
    expect(records()).toBe(before)
  })

  it('kind reset-after commits the record, then resets the connection: the answer is lost, a replay finds it', async () => {
    await client.fault({route: CREATE, kind: 'reset-after'})
    const body = charge()
    const before = records()
    const lost = await client.create(body)
    expect(lost).toHaveProperty('error')
    expect(records()).toBe(before + 1)
    const replay = await client.create(body)
    expect(replay).toMatchObject({status: 201})
    expect('headers' in replay && replay.headers.get('idempotent-replayed')).toBe('true')
    expect(records()).toBe(before + 1)
  })

  it('kind slow commits the record and holds the answer past the client timeout', async () => {
    await client.fault({route: CREATE, kind: 'slow', delayMs: 5000})
    const body = charge()
    const before = records()
    const late = await client.create(body, {signal: AbortSignal.timeout(300)})
    expect(late).toEqual({error: 'TimeoutError'})
    expect(records()).toBe(before + 1)
    expect(await client.create(body)).toMatchObject({status: 201})
    expect(records()).toBe(before + 1)
  })

  it('takes any error status, for every gateway route with "*", never for the sandbox controls', async () => {
    expect((await client.fault({route: '*', status: 418, count: 2})).status).toBe(204)
    expect(await client.list()).toMatchObject({status: 418})
    expect((await fetch(`${sandbox.baseUrl}/_sandbox/withdrawals`)).status).toBe(200)
    expect(await client.send('/core/withdraw', {method: 'POST', body: JSON.stringify({amount: 1, pixKey: randomUUID(), pixKeyType: 'EVP'})})).toMatchObject({status: 418})
    expect(await client.list()).toMatchObject({status: 200})
  })

  it.each([
    ['an unknown kind', {route: '*', kind: 'boom'}, /kind must be one of 500, 503, 429, reset, reset-after, slow/],
    ['both kind and status', {route: '*', kind: '500', status: 500}, /give either kind or status/],
    ['neither kind nor status', {route: '*'}, /give either kind or status/],
    ['no route', {kind: '500'}, /route is required/],
    ['a status below 400', {route: '*', status: 302}, /status must be a status from 400 to 599/],
    ['a rate above 1', {rate: 1.5}, /rate must be a share from 0 to 1/],
    ['a plan of unknown kinds', {rate: 0.5, kinds: ['teapot']}, /kinds\.0 must be one of/],
  ])('answers 400 to %s', async (_what, body, says) => {
    const response = await client.fault(body)
    expect(response.status).toBe(400)
    expect(((await response.json()) as {message: string[]}).message.join(' ')).toMatch(says)
  })

  it('counts injected faults by kind in the stats and the faults control', async () => {
    const before = (await stats(sandbox.baseUrl)).faultsInjected
    await client.fault({route: CREATE, kind: '503', count: 2})
    await client.fault({route: CREATE, kind: 'reset'})
    for (let index = 0; index < 3; index += 1) await client.create(charge())
    const after = (await stats(sandbox.baseUrl)).faultsInjected
    expect(after['503']).toBe((before['503'] ?? 0) + 2)
    expect(after.reset).toBe((before.reset ?? 0) + 1)
    const control = (await (await fetch(`${sandbox.baseUrl}/_sandbox/faults`)).json()) as {injected: Record<string, number>; queued: unknown[]}
    expect(control.injected).toEqual(after)
    expect(control.queued).toEqual([])
  })
})

describe('faults at random', () => {
  /** The statuses (or connection errors) of `count` sequential deposit listings. */
  async function outcomes(sandbox: Sandbox, count: number): Promise<string[]> {
    const client = await connect(sandbox)
    const seen: string[] = []
    for (let index = 0; index < count; index += 1) {
      const result = await client.list()
      seen.push('error' in result ? 'error' : String(result.status))
    }
    return seen
  }

  it('fails the same requests for the same seed, and other ones for another seed', async () => {
    const plan = {rate: 0.4, kinds: ['500', '503', '429', 'reset'] as const, seed: 42}
    const runs: string[][] = []
    for (const seed of [42, 42, 43]) {
      const sandbox = await startTestSandbox({faults: {...plan, kinds: [...plan.kinds], seed}})
      try {
        runs.push(await outcomes(sandbox, 60))
      } finally {
        await sandbox.close()
      }
    }
    expect(runs[0]).toEqual(runs[1])
    expect(runs[0]).not.toEqual(runs[2])
    const failed = runs[0].filter((outcome) => outcome !== '200')
    expect(failed.length).toBeGreaterThan(5)
    expect(failed.length).toBeLessThan(55)
    expect(new Set(failed)).toEqual(new Set(['500', '503', '429', 'error']))
  })

  it('spares the token endpoint and the controls; the control sets and ends a plan', async () => {
    const sandbox = await startTestSandbox()
    try {
      const client = await connect(sandbox)
      const set = await client.fault({rate: 1, kinds: ['503'], seed: 9})
      expect(set.status).toBe(200)
      expect(await set.json()).toEqual({rate: 1, kinds: ['503'], seed: 9})
      expect(await client.list()).toMatchObject({status: 503})
      expect(await tokenFor(sandbox.baseUrl)).toMatch(/^ey/)
      expect((await fetch(`${sandbox.baseUrl}/_sandbox/stats`)).status).toBe(200)
      const plan = (await (await fetch(`${sandbox.baseUrl}/_sandbox/faults`)).json()) as {plan: unknown}
      expect(plan.plan).toEqual({rate: 1, kinds: ['503'], seed: 9})
      await client.fault({rate: 0})
      expect(await client.list()).toMatchObject({status: 200})
    } finally {
      await sandbox.close()
    }
  })
})

describe('latency', () => {
  let sandbox: Sandbox

  beforeAll(async () => {
    sandbox = await startTestSandbox({latencyMs: 1500})
  })
  afterAll(() => sandbox.close())

  it('delays the answers of the gateway API, not those of the sandbox controls', async () => {
    const token = await tokenFor(sandbox.baseUrl).catch(() => undefined)
    expect(token).toBeDefined()
    const slow = await fetch(`${sandbox.baseUrl}/core/deposit`, {headers: {authorization: `Bearer ${token}`}, signal: AbortSignal.timeout(300)}).catch(
      (error: Error) => error.name,
    )
    expect(slow).toBe('TimeoutError')
    const control = await fetch(`${sandbox.baseUrl}/_sandbox/stats`, {signal: AbortSignal.timeout(2000)})
    expect(control.status).toBe(200)
  })
})
