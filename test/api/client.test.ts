import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {GatewayClient} from '../../src/api/client.js'
import {AuthError, NotFoundError, UnavailableError} from '../../src/api/errors.js'
import {GatewayApi} from '../../src/api/gateway.js'
import {memoryTokenStore} from '../../src/api/token.js'
import {control, startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

describe('GatewayClient as a library', () => {
  let sandbox: Sandbox
  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })
  afterAll(() => sandbox.close())

  const make = (clientSecret = 'sandbox-secret', trace?: (line: string) => void) =>
    new GatewayClient({baseUrl: sandbox.baseUrl, tokens: memoryTokenStore({clientId: 'sandbox', clientSecret}), trace})

  it('creates and reads a transaction with one token, and renews it once after a revocation', async () => {
    const client = make()
    const api = new GatewayApi(client)
    try {
      const before = await stats(sandbox.baseUrl)
      const created = await api.createTransaction({amount: 1234, paymentMethod: 'PIX', idempotencyKey: `lib-${Date.now()}`, pix: {}})
      expect((await api.getTransaction(created.id)).amount).toBe(1234)
      expect((await stats(sandbox.baseUrl)).tokenRequests).toBe(before.tokenRequests + 1)
      await control(sandbox.baseUrl, '/_sandbox/auth/revoke')
      expect((await api.getTransaction(created.id)).id).toBe(created.id)
      expect((await stats(sandbox.baseUrl)).tokenRequests).toBe(before.tokenRequests + 2)
    } finally {
      await client.close()
    }
  })

  it('throws typed errors carrying the status and the gateway messages', async () => {
    const client = make()
    try {
      const error = await new GatewayApi(client).getTransaction('00000000-0000-4000-8000-000000000000').catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(NotFoundError)
      expect(error).toMatchObject({status: 404, code: 'NOT_FOUND', retryable: false, messages: ['no transaction with id 00000000-0000-4000-8000-000000000000']})
      await expect(make('wrong').accessToken()).rejects.toBeInstanceOf(AuthError)
    } finally {
      await client.close()
    }
  })

  it('traces exchanges with the secret and the token redacted', async () => {
    const lines: string[] = []
    const client = make('sandbox-secret', (line) => lines.push(line))
    try {
      const token = await client.accessToken()
      await client.request('GET', '/core/transaction/00000000-0000-4000-8000-000000000000').catch(() => undefined)
      const text = lines.join('\n')
      expect(text).toContain('> POST')
      expect(text).toContain('< 404')
      expect(text).not.toContain('sandbox-secret')
      expect(text).not.toContain(token.accessToken)
    } finally {
      await client.close()
    }
  })

  it('reports an unreachable gateway as UnavailableError', async () => {
    const client = new GatewayClient({baseUrl: 'http://127.0.0.1:9', timeoutMs: 2000})
    await expect(client.fetchToken({clientId: 'x', clientSecret: 'y'})).rejects.toBeInstanceOf(UnavailableError)
    await client.close()
  })
})

describe('answers read in pieces', () => {
  it('reads an answer in many chunks whole, its characters split across them, however long the one before it was', async () => {
    // Names with characters of two and three bytes, cut every 7 bytes: most cuts fall inside one.
    const bodies = new Map([
      ['/long', JSON.stringify({names: Array.from({length: 4000}, (_, index) => `Vitória Conceição ${index} €`)})],
      ['/short', JSON.stringify({names: ['João', 'Açaí €']})],
      ['/huge', JSON.stringify({names: Array.from({length: 60_000}, (_, index) => `Ana Lúcia ${index} ✓`)})],
    ])
    const server = createServer((request, response) => {
      const bytes = Buffer.from(bodies.get(request.url ?? '') ?? '{}')
      response.writeHead(200, {'content-type': 'application/json', 'content-length': bytes.length})
      const cut = request.url === '/huge' ? 65_521 : 7
      for (let at = 0; at < bytes.length; at += cut) response.write(bytes.subarray(at, at + cut))
      response.end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const client = new GatewayClient({baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, retries: 0})
      // The short answer after the long one (joined in the same memory), and one past the size joined so.
      for (const path of ['/long', '/short', '/huge', '/short', '/long']) {
        const answer = await client.request<{names: string[]}>('GET', path, {auth: false})
        expect(answer.body, path).toEqual(JSON.parse(bodies.get(path)!))
      }
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
