import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCommand} from '../helpers/context.js'
import {runListener} from '../helpers/listen.js'
import {exchange, jsonOf} from '../helpers/raw-http.js'
import {control, startTestSandbox, stats, tokenFor, type Sandbox} from '../helpers/sandbox.js'

const deep = (levels: number) => `{"amount":1000,"paymentMethod":"PIX","idempotencyKey":"deep-key-0001","pix":{},"metadata":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`

/** The sandbox and the listener under abuse: hostile bodies, cross-site and rebinding requests, bounds. */
describe('the sandbox under abuse', () => {
  let sandbox: Sandbox
  let token: string
  const api = (path: string, init: RequestInit = {}) => fetch(`${sandbox.baseUrl}${path}`, {...init, headers: {authorization: `Bearer ${token}`, ...init.headers}})

  beforeAll(async () => {
    sandbox = await startTestSandbox({headersTimeoutMs: 400, requestTimeoutMs: 1500})
    token = await tokenFor(sandbox.baseUrl)
  })
  afterAll(() => sandbox.close())

  it('answers 422 to a body nested 3,000 levels deep, never 500 (which a client would retry)', async () => {
    const answer = await api('/core/transaction', {method: 'POST', headers: {'content-type': 'application/json'}, body: deep(3000)})
    expect(answer.status).toBe(422)
    expect(await answer.json()).toMatchObject({message: 'the body nests deeper than 64 levels'})
    // 64 levels are fine.
    const fine = await api('/core/transaction', {method: 'POST', headers: {'content-type': 'application/json'}, body: deep(60).replace('deep-key-0001', 'deep-key-0002')})
    expect(fine.status).toBe(201)
  })

  it('answers 413 to a chunked body over 1 MiB, having read the rest, so the client sees it', async () => {
    const result = await exchange(sandbox.port, (socket) => {
      socket.write(`POST /core/transaction HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`)
      const chunk = 'x'.repeat(64 * 1024)
      for (let index = 0; index < 24; index += 1) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)
      socket.write('0\r\n\r\n')
    })
    expect(result.status).toBe(413)
    expect(result.ended).toBe('closed')
    expect(jsonOf(result).message).toBe('the body is larger than 1 MiB')
  })

  it('gives exactly one answer to a request with a bad token whose body is still arriving', async () => {
    const result = await exchange(sandbox.port, (socket) => {
      socket.write('POST /core/transaction HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer forged\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"amount":')
    })
    expect(result.status).toBe(401)
    expect(result.text.match(/HTTP\/1\.1 \d{3}/g)).toHaveLength(1)
  })

  it.each<[string, {host?: string; origin?: string; 'content-type'?: string}]>([
    ['a foreign Host (DNS rebinding)', {host: 'evil.example.com'}],
    ['a web page of another origin, text/plain', {origin: 'https://evil.example.com', 'content-type': 'text/plain'}],
    ['an opaque origin', {origin: 'null'}],
  ])('refuses %s at the controls: 403, and nothing revoked', async (_what, headers) => {
    const result = await exchange(sandbox.port, (socket) =>
      socket.write(`POST /_sandbox/auth/revoke HTTP/1.1\r\nhost: ${headers.host ?? '127.0.0.1'}\r\nconnection: close\r\n${headers.origin ? `origin: ${headers.origin}\r\n` : ''}content-length: 0\r\n\r\n`),
    )
    expect(result.status).toBe(403)
    expect((await api('/core/deposit')).status).toBe(200)
  })

  it('serves the controls to loopback origins and hosts', async () => {
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:8080']) {
      const answer = await fetch(`${sandbox.baseUrl}/_sandbox/stats`, {headers: {origin}})
      expect(answer.status).toBe(200)
    }
  })

  it('never delivers to itself: a resend aimed at its own revoke control is refused, and tokens live on', async () => {
    const created = await api('/core/transaction', {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({amount: 100, paymentMethod: 'PIX', pix: {}, idempotencyKey: 'self-target-0001', webhookUrl: 'https://hooks.example.com/x'})})
    const {id} = (await created.json()) as {id: string}
    expect((await api(`/_sandbox/transactions/${id}/pay`, {method: 'POST'})).status).toBe(200)
    for (const host of ['127.0.0.1', 'localhost']) {
      const answer = await api('/dispatcher/request/resend', {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify({referenceId: id, overrideURL: `http://${host}:${sandbox.port}/_sandbox/auth/revoke`}),
      })
      expect(answer.status).toBe(422)
      expect(JSON.stringify(await answer.json())).toContain('must not point at the sandbox itself')
    }
    expect((await api('/core/deposit')).status).toBe(200)
  })

  it('refuses a repeated token parameter (RFC 6749 §3.2): 400, no token for the first value', async () => {
    const answer = await fetch(`${sandbox.baseUrl}/auth/token`, {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: 'grant_type=client_credentials&client_id=sandbox-limited&client_id=sandbox&client_secret=sandbox-secret',
    })
    expect(answer.status).toBe(400)
    expect(JSON.stringify(await answer.json())).toContain('client_id is given more than once')
  })

  it('bounds the durations of its controls: a slow fault longer than a timer can hold is 400', async () => {
    const answer = await control(sandbox.baseUrl, '/_sandbox/faults', {route: '*', kind: 'slow', delayMs: 3_000_000_000})
    expect(answer.status).toBe(400)
    expect((await stats(sandbox.baseUrl)).faultsInjected).toEqual({})
  })

  it.each([
    [['--latency', '3000000000'], /--latency/],
    [['--auto-pay', '3000000000'], /--auto-pay/],
    [['--seed-deposits', '100000000'], /--seed-deposits/],
  ])('sandbox start %j exits 2 naming the flag', async (args, flag) => {
    const result = await runCommand(['sandbox', 'start', '--port', '0', ...args], {interrupted: () => new Promise((resolve) => setTimeout(() => resolve('SIGINT'), 2000).unref())})
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(flag)
  })
})

describe('the listener under abuse', () => {
  it('refuses a body nested 5,000 levels deep with 422 before acknowledging it, and keeps listening (--json too)', async () => {
    for (const args of [[], ['--json']]) {
      const run = runListener(['--port', '0', ...args])
      const url = await run.url
      const refused = await fetch(url, {method: 'POST', headers: {'content-type': 'application/json'}, body: `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`})
      expect(refused.status).toBe(422)
      const next = await fetch(url, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({id: 'n-1', status: 'SENT'})})
      expect(next.status).toBe(200)
      const result = await run.stop()
      expect(result.code).toBe(0)
      expect(`${result.stdout}${result.stderr}`).toContain('a body nested deeper than 64 levels was refused')
    }
  })
})
