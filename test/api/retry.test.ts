import {createServer, type Server} from 'node:net'
import type {AddressInfo} from 'node:net'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {GatewayClient, type ClientOptions} from '../../src/api/client.js'
import {RateLimitError, RejectedError, UnavailableError} from '../../src/api/errors.js'
import {GatewayApi} from '../../src/api/gateway.js'
import {memoryTokenStore} from '../../src/api/token.js'
import {control, startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

/** A TCP server that misbehaves with every connection, counting them: reset at once, never answer, or cut its answer short. */
async function brokenServer(behaviour: 'reset' | 'silent' | 'cut'): Promise<{url: string; connections(): number; close(): Promise<void>}> {
  let count = 0
  const sockets = new Set<import('node:net').Socket>()
  const server: Server = createServer((socket) => {
    count += 1
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    // Read the request first, so the failure comes after it was sent.
    socket.once('data', () => {
      if (behaviour === 'reset') socket.resetAndDestroy()
      // Headers that promise 100 bytes, then 10 of them, then the connection closes.
      if (behaviour === 'cut') socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"data": [')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** The error a request ends with; a request that succeeds fails the test. */
async function failure<E>(pending: Promise<unknown>): Promise<E> {
  return pending.then(
    (value) => {
      throw new Error(`expected the request to fail, it answered ${JSON.stringify(value)}`)
    },
    (caught: unknown) => caught as E,
  )
}

/** A client of a broken server, both closed once the test's body has run. */
async function withBrokenServer(
  behaviour: 'reset' | 'silent' | 'cut',
  options: Omit<ClientOptions, 'baseUrl'>,
  body: (client: GatewayClient, server: Awaited<ReturnType<typeof brokenServer>>) => Promise<void>,
): Promise<void> {
  const server = await brokenServer(behaviour)
  const client = new GatewayClient({baseUrl: server.url, ...options})
  try {
    await body(client, server)
  } finally {
    await client.close()
    await server.close()
  }
}

describe('retries in the client', () => {
  let sandbox: Sandbox
  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })
  afterAll(() => sandbox.close())

  /** A client on the sandbox whose waits are recorded instead of slept. */
  function make(options: Partial<ClientOptions> = {}) {
    const lines: string[] = []
    const waits: number[] = []
    const client = new GatewayClient({
      baseUrl: sandbox.baseUrl,
      tokens: memoryTokenStore({clientId: 'sandbox', clientSecret: 'sandbox-secret'}),
      trace: (line) => lines.push(line),
      sleep: async (ms) => {
        waits.push(ms)
      },
      ...options,
    })
    return {client, api: new GatewayApi(client), lines, waits}
  }
  const fault = (route: string, status: number, count: number, retryAfter?: number) =>
    control(sandbox.baseUrl, '/_sandbox/faults', {route, status, count, retryAfter})
  const countRoute = async (route: string) => (await stats(sandbox.baseUrl)).byRoute[route] ?? 0
  const body = (key: string) => ({amount: 1500, paymentMethod: 'PIX' as const, idempotencyKey: key, pix: {}})

  it('retries a GET after 500, 502, 503 and 504, with waits of full jitter under a doubling ceiling', async () => {
    const {client, api, lines, waits} = make({random: () => 0.999, baseDelayMs: 500})
    try {
      const {id} = await api.createTransaction(body(`retry-get-${Date.now()}`))
      for (const status of [500, 502, 503]) await fault('GET /core/transaction/:id', status, 1)
      const before = await countRoute('GET /core/transaction/:id')
      // One more failure than retries would allow: 504 is the fourth, the retries are three.
      expect((await api.getTransaction(id)).id).toBe(id)
      expect((await countRoute('GET /core/transaction/:id')) - before).toBe(4)
      expect(waits).toEqual([500, 999, 1998])
      expect(lines.filter((line) => line.startsWith('* attempt'))).toEqual([
        '* attempt 1 of 4 failed (500): waiting 500 ms (backoff) before attempt 2',
        '* attempt 2 of 4 failed (502): waiting 999 ms (backoff) before attempt 3',
        '* attempt 3 of 4 failed (503): waiting 1998 ms (backoff) before attempt 4',
      ])
      expect(lines.some((line) => /^< 200 \(\d+ ms, attempt 4 of 4\)$/.test(line))).toBe(true)
    } finally {
      await client.close()
    }
  })

  it('retries a POST that carries an idempotency key, and the gateway keeps one record', async () => {
    const {client, api} = make()
    try {
      await client.accessToken()
      const key = `retry-post-${Date.now()}`
      await fault('POST /core/transaction', 504, 2)
      const before = await countRoute('POST /core/transaction')
      const {body: record, replayed} = await api.postTransaction(body(key))
      expect(replayed).toBe(false)
      expect((await countRoute('POST /core/transaction')) - before).toBe(3)
      const again = await api.postTransaction(body(key))
      expect(again.body.id).toBe(record.id)
      expect(again.replayed).toBe(true)
    } finally {
      await client.close()
    }
  })

  it('never retries a POST without an idempotency key', async () => {
    const {client, waits} = make()
    try {
      await client.accessToken()
      await fault('POST /core/transaction', 503, 1)
      const before = await countRoute('POST /core/transaction')
      // The same body, but the client is not told it carries a key: to the client, a POST without one.
      const error = await client.request('POST', '/core/transaction', {json: body(`retry-nokey-${Date.now()}`)}).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(UnavailableError)
      expect((error as UnavailableError).attempts).toBe(1)
      expect((await countRoute('POST /core/transaction')) - before).toBe(1)
      expect(waits).toEqual([])
    } finally {
      await client.close()
    }
  })

  it('honours Retry-After, and names the idempotency key when the retries run out', async () => {
    const {client, api, waits} = make({retries: 2})
    try {
      await client.accessToken()
      const key = `retry-429-${Date.now()}`
      await fault('POST /core/transaction', 429, 3, 7)
      const error = await failure<RateLimitError>(api.createTransaction(body(key)))
      expect(error).toBeInstanceOf(RateLimitError)
      expect(error).toMatchObject({status: 429, attempts: 3, idempotencyKey: key})
      expect(error.message).toContain('gave up after 3 attempts')
      expect(error.message).toContain(`idempotency key ${key}`)
      expect(waits).toEqual([7000, 7000])
    } finally {
      await client.close()
    }
  })

  it('gives up at once when Retry-After would pass the overall deadline', async () => {
    const {client, api, waits, lines} = make({deadlineMs: 5000})
    try {
      await client.accessToken()
      await fault('POST /core/transaction', 429, 1, 60)
      const error = await failure<RateLimitError>(api.createTransaction(body(`retry-deadline-${Date.now()}`)))
      expect(error).toBeInstanceOf(RateLimitError)
      expect(error.attempts).toBe(1)
      expect(error.message).toContain('would pass the deadline')
      expect(waits).toEqual([])
      expect(lines.join('\n')).toContain('the wait of 60000 ms (Retry-After) would pass the deadline')
    } finally {
      await client.close()
    }
  })

  it('does not retry a refusal (422), which no repeat can change', async () => {
    const {client, api, waits} = make()
    try {
      const error = await api.createTransaction({...body('short'), amount: 1}).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(RejectedError)
      expect(waits).toEqual([])
    } finally {
      await client.close()
    }
  })

  it('--retries 0 sends once', async () => {
    const {client, api, waits} = make({retries: 0})
    try {
      await client.accessToken()
      await fault('POST /core/transaction', 500, 1)
      await expect(api.createTransaction(body(`retry-zero-${Date.now()}`))).rejects.toBeInstanceOf(UnavailableError)
      expect(waits).toEqual([])
    } finally {
      await client.close()
    }
  })

  describe('connections that fail', () => {
    it('retries a GET whose connection is reset, but not a POST without a key', async () => {
      const waits: number[] = []
      await withBrokenServer('reset', {retries: 2, sleep: async (ms) => void waits.push(ms)}, async (client, server) => {
        const get = await failure<UnavailableError>(client.request('GET', '/core/deposit', {auth: false}))
        expect(get).toBeInstanceOf(UnavailableError)
        expect(get.attempts).toBe(3)
        expect(server.connections()).toBe(3)
        const post = await failure<UnavailableError>(client.request('POST', '/core/transaction', {auth: false, json: {}}))
        expect(post).toBeInstanceOf(UnavailableError)
        expect(post.attempts).toBe(1)
        expect(server.connections()).toBe(4)
        // Told never to retry, a GET is sent once too.
        const once = await failure<UnavailableError>(client.request('GET', '/core/deposit', {auth: false, retry: 'never'}))
        expect(once.attempts).toBe(1)
        expect(server.connections()).toBe(5)
        expect(waits).toHaveLength(2)
      })
    })

    it('retries a refused connection even for a POST without a key, since nothing was sent', async () => {
      const server = await brokenServer('reset')
      const url = server.url
      await server.close()
      const lines: string[] = []
      const client = new GatewayClient({baseUrl: url, retries: 2, sleep: async () => {}, trace: (line) => lines.push(line)})
      try {
        const error = await failure<UnavailableError>(client.request('POST', '/dispatcher/request/resend', {auth: false, json: {}}))
        expect(error).toBeInstanceOf(UnavailableError)
        expect(error.attempts).toBe(3)
        expect(error.message).toContain('connection refused')
        expect(lines.filter((line) => line.startsWith('* attempt'))).toHaveLength(3)
      } finally {
        await client.close()
      }
    })

    it('an answer cut short is a failure of the gateway, retried for a GET, never read as whole', async () => {
      const waits: number[] = []
      await withBrokenServer('cut', {retries: 1, sleep: async (ms) => void waits.push(ms)}, async (client, server) => {
        const once = await failure<UnavailableError>(client.request('GET', '/core/deposit', {auth: false, retry: 'never'}))
        expect(once).toBeInstanceOf(UnavailableError)
        expect(once.message).toContain(`could not reach the gateway at ${server.url}`)
        expect(once.attempts).toBe(1)
        expect(server.connections()).toBe(1)
        const retried = await failure<UnavailableError>(client.request('GET', '/core/deposit', {auth: false}))
        expect(retried).toBeInstanceOf(UnavailableError)
        expect(retried.attempts).toBe(2)
        expect(server.connections()).toBe(3)
        expect(waits).toHaveLength(1)
      })
    })

    it('retries an idempotent request whose answer does not come within the timeout', async () => {
      await withBrokenServer('silent', {retries: 1, timeoutMs: 200, sleep: async () => {}}, async (client, server) => {
        const error = await failure<UnavailableError>(client.request('POST', '/core/transaction', {auth: false, json: {}, idempotencyKey: 'silent-key'}))
        expect(error).toBeInstanceOf(UnavailableError)
        expect(error.message).toContain('timed out waiting for the answer')
        expect(error.message).toContain('idempotency key silent-key')
        expect(error.attempts).toBe(2)
        expect(server.connections()).toBe(2)
      })
    })
  })
})
