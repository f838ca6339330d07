import {randomUUID} from 'node:crypto'
import type {Socket} from 'node:net'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {exchange as rawExchange, jsonOf, request} from '../helpers/raw-http.js'
import {startTestSandbox, tokenFor, type Sandbox} from '../helpers/sandbox.js'

/** The raw exchanges, on the sandbox's port. */
const exchange = (sandbox: Sandbox, talk: (socket: Socket) => void) => rawExchange(sandbox.port, talk)

describe('the sandbox under bad input', () => {
  let sandbox: Sandbox
  let token: string
  let authorization: Record<string, string>

  beforeAll(async () => {
    sandbox = await startTestSandbox({headersTimeoutMs: 400, requestTimeoutMs: 1500})
    token = await tokenFor(sandbox.baseUrl)
    authorization = {authorization: `Bearer ${token}`}
  })
  afterAll(() => sandbox.close())

  /** The sandbox still answers, and its records are as they were. */
  async function expectAlive(records: number): Promise<void> {
    const response = await fetch(`${sandbox.baseUrl}/core/deposit`, {headers: authorization})
    expect(response.status).toBe(200)
    expect(sandbox.domain.records.size).toBe(records)
  }

  it.each([
    ['malformed JSON to the create endpoint', '/core/transaction', 'application/json', '{"amount": 1000,', 422],
    ['JSON that is no object', '/core/transaction', 'application/json', '"amount"', 422],
    ['a form to the create endpoint', '/core/transaction', 'application/x-www-form-urlencoded', 'amount=1000', 422],
    ['text to the withdraw endpoint', '/core/withdraw', 'text/plain', 'amount=1000', 422],
    ['malformed JSON to the resend endpoint', '/dispatcher/request/resend', 'application/json', '{', 400],
    ['JSON to the token endpoint', '/auth/token', 'application/json', '{"grant_type":"client_credentials"}', 400],
    ['malformed JSON to a control', '/_sandbox/faults', 'application/json', '{"route":', 400],
  ])('answers %s with a 4xx error body', async (_what, path, type, body, status) => {
    const before = sandbox.domain.records.size
    const response = await fetch(`${sandbox.baseUrl}${path}`, {method: 'POST', headers: {...authorization, 'content-type': type}, body})
    expect(response.status).toBe(status)
    expect(await response.json()).toMatchObject({statusCode: status})
    await expectAlive(before)
  })

  it('answers 413 to a body declared over 1 MiB before reading it, and closes the connection', async () => {
    const before = sandbox.domain.records.size
    const result = await exchange(sandbox, (socket) =>
      socket.write(`POST /core/transaction HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: ${2 ** 21}\r\n\r\n{`),
    )
    expect(result.status).toBe(413)
    expect(jsonOf(result).message).toBe('the body is larger than 1 MiB')
    expect(result.text.toLowerCase()).toContain('connection: close')
    await expectAlive(before)
  })

  it('stops reading a chunked body past 1 MiB: a 413, or the connection closed', async () => {
    const before = sandbox.domain.records.size
    const result = await exchange(sandbox, (socket) => {
      socket.write(`POST /core/transaction HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`)
      const chunk = 'x'.repeat(64 * 1024)
      for (let index = 0; index < 20; index += 1) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)
    })
    expect(result.status === 413 || result.text === '').toBe(true)
    await expectAlive(before)
  })

  it.each([
    ['a request line that is no HTTP', 'GARBAGE\r\n\r\n', 400],
    ['a header without a colon', 'GET /core/deposit HTTP/1.1\r\nhost: x\r\nno colon here\r\n\r\n', 400],
    ['headers over the size limit', `GET /core/deposit HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
    ['a content-length that is no number', 'POST /core/transaction HTTP/1.1\r\nhost: x\r\ncontent-length: ten\r\n\r\n', 400],
  ])('answers %s with a JSON error and closes the connection', async (_what, raw, status) => {
    const before = sandbox.domain.records.size
    const result = await exchange(sandbox, (socket) => socket.write(raw))
    expect(result.status).toBe(status)
    expect(jsonOf(result)).toMatchObject({statusCode: status})
    await expectAlive(before)
  })

  it('answers 400 to a path with broken percent-encoding', async () => {
    const result = await exchange(sandbox, (socket) => socket.write(request('GET', '/core/transaction/%E0%A4%A', authorization)))
    expect(result.status).toBe(400)
    expect(jsonOf(result).message).toMatch(/percent-encoding/)
  })

  it('cuts off a client that sends its headers slowly, and serves others meanwhile', async () => {
    const before = sandbox.domain.records.size
    let timer: NodeJS.Timeout | undefined
    const slow = exchange(sandbox, (socket) => {
      socket.write('GET /core/deposit HTTP/1.1\r\nhost: x\r\n')
      // One header byte every 100 ms, for ever: the headers never end.
      timer = setInterval(() => socket.writable && socket.write('x'), 100)
    })
    await expectAlive(before)
    const result = await slow
    clearInterval(timer)
    expect(result.status).toBe(408)
    await expectAlive(before)
  })

  it('cuts off a client that sends its body slowly', async () => {
    let timer: NodeJS.Timeout | undefined
    const result = await exchange(sandbox, (socket) => {
      socket.write(`POST /core/transaction HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{`)
      timer = setInterval(() => socket.writable && socket.write(' '), 100)
    })
    clearInterval(timer)
    expect(result.status).toBe(408)
    expect(jsonOf(result).message).toBe('the request took too long to arrive')
    await expectAlive(sandbox.domain.records.size)
  })
})

describe('the sandbox under 1,000 concurrent connections', () => {
  let sandbox: Sandbox

  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })
  afterAll(() => sandbox.close())

  it('answers every one or closes it, never crashes, and keeps exactly the records it said it made', async () => {
    const token = await tokenFor(sandbox.baseUrl)
    const authorization = {authorization: `Bearer ${token}`, 'content-type': 'application/json'}
    const keys: string[] = []
    const talks = Array.from({length: 1000}, (_, index) => {
      const kind = index % 4
      if (kind === 0) {
        const key = randomUUID()
        keys.push(key)
        return request('POST', '/core/transaction', authorization, JSON.stringify({amount: 100 + index, paymentMethod: 'PIX', idempotencyKey: key, pix: {}}))
      }
      if (kind === 1) return request('GET', '/core/deposit?perPage=100', authorization)
      if (kind === 2) return request('POST', '/core/withdraw', authorization, JSON.stringify({amount: 100 + index, pixKey: randomUUID(), pixKeyType: 'EVP'}))
      return request('POST', '/core/transaction', authorization, '{"amount": broken')
    })
    const results = await Promise.all(talks.map((raw) => exchange(sandbox, (socket) => socket.write(raw))))
    for (const result of results) expect(result.status === undefined || (result.status >= 200 && result.status < 500)).toBe(true)
    const createdTx = results.filter((result, index) => index % 4 === 0 && result.status === 201).length
    const createdWithdrawals = results.filter((result, index) => index % 4 === 2 && result.status === 201).length
    expect(createdTx + createdWithdrawals).toBeGreaterThan(0)
    expect(sandbox.domain.records.size).toBe(createdTx)
    expect(sandbox.domain.withdrawals.all()).toHaveLength(createdWithdrawals)
    expect(results.filter((result, index) => index % 4 === 3).every((result) => result.status === 422 || result.status === undefined)).toBe(true)
    const after = await fetch(`${sandbox.baseUrl}/core/deposit`, {headers: {authorization: `Bearer ${token}`}})
    expect(after.status).toBe(200)
  })
})
