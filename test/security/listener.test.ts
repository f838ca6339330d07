import {createServer, request, type IncomingHttpHeaders, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runListener, type RunningListener} from '../helpers/listen.js'

/**
 * `webhooks listen` relays only what a gateway could have sent: a POST naming the listener as its
 * Host, without a browser's Origin. Against a real listener and a real app.
 */

const NOTIFICATION = JSON.stringify({
  id: 'b5d7e0c2-9a51-4a3e-8c1f-0e6f1d2a3b4c',
  referenceId: '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11',
  kind: 'transaction',
  status: 'RECEIVED',
  data: {id: '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11', status: 'PAID', amount: 1000},
})

/** The operator's app: it keeps what it gets and answers 200 with a body only it should see. */
async function startApp() {
  const received: Array<{method: string; headers: IncomingHttpHeaders; body: string}> = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      received.push({method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8')})
      res.writeHead(200, {'content-type': 'application/json', 'set-cookie': 'session=app-secret'}).end('{"session":"app-secret-body"}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {url: `http://127.0.0.1:${port}/hooks`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve()))}
}

/** A raw HTTP request with exactly these headers (Host and Origin included), as a browser or a rebinding page sends them. */
function send(url: string, options: {method?: string; headers?: Record<string, string>; body?: string}) {
  const target = new URL(url)
  return new Promise<{status: number; headers: IncomingHttpHeaders; body: string}>((resolve, reject) => {
    const req = request({host: target.hostname, port: target.port, path: '/', method: options.method ?? 'POST', headers: {host: target.host, ...(options.body === undefined ? {} : {'content-length': String(Buffer.byteLength(options.body))}), ...options.headers}, setHost: false}, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8')}))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

describe('webhooks listen relays only what a gateway could have sent', () => {
  let app: Awaited<ReturnType<typeof startApp>>
  let run: RunningListener
  let url: string
  let port: string

  beforeAll(async () => {
    app = await startApp()
    run = runListener(['--port', '0', '--forward-to', app.url, '--output', 'ndjson'])
    url = await run.url
    port = new URL(url).port
  })
  afterAll(async () => {
    await run.stop()
    await app.close()
  })

  it('a browser\'s no-CORS text/plain POST with an Origin gets 403: not shown as a notification, not relayed', async () => {
    const before = app.received.length
    const answer = await send(url, {headers: {origin: 'https://evil.example', 'content-type': 'text/plain'}, body: NOTIFICATION})
    expect(answer.status).toBe(403)
    expect(app.received.length).toBe(before)
  })

  it('a request whose Host is not the listener (DNS rebinding) gets 403, and never the app\'s answer', async () => {
    const before = app.received.length
    for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1.evil.example:${port}`, `localhost:${Number(port) + 1}`]) {
      const answer = await send(url, {headers: {host, 'content-type': 'application/json'}, body: NOTIFICATION})
      expect(answer.status, host).toBe(403)
      expect(answer.body).not.toContain('app-secret')
    }
    expect(app.received.length).toBe(before)
  })

  it.each(['DELETE', 'PUT', 'GET', 'PATCH'])('%s gets 405 and is not relayed', async (method) => {
    const before = app.received.length
    const answer = await send(url, {method, headers: {'content-type': 'application/json'}, body: method === 'GET' ? undefined : NOTIFICATION})
    expect(answer.status).toBe(405)
    expect(answer.headers.allow).toBe('POST')
    expect(app.received.length).toBe(before)
  })

  it('a gateway\'s POST to its own address or a loopback name is relayed; the sender gets the status, not the app\'s body', async () => {
    const before = app.received.length
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      const answer = await send(url, {headers: {host, 'content-type': 'application/json', 'x-notification-id': 'n-1'}, body: NOTIFICATION})
      expect(answer.status, host).toBe(200)
      expect(answer.body).toBe('')
      expect(answer.headers['set-cookie']).toBeUndefined()
    }
    expect(app.received.length).toBe(before + 4)
    expect(app.received.at(-1)).toMatchObject({method: 'POST', body: NOTIFICATION})
  })

  it('shows only the gateway\'s notifications as received; the refusals are failures naming why', async () => {
    const result = await run.stop()
    expect(result.code).toBe(0)
    const events = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as {type: string; stage?: string; error?: string; answered?: number})
    expect(events.filter((event) => event.type === 'received')).toHaveLength(4)
    expect(events.filter((event) => event.type === 'forwarded')).toHaveLength(4)
    const refused = events.filter((event) => event.stage === 'refused')
    expect(refused.map((event) => event.answered)).toEqual([403, 403, 403, 403, 403, 405, 405, 405, 405])
    expect(refused[0].error).toContain('Origin https://evil.example')
    run = runListener(['--port', '0'])
    await run.url
  })

  it('behind a tunnel, --public-host NAME is accepted as Host too, and only that name', async () => {
    const tunnel = runListener(['--port', '0', '--forward-to', app.url, '--public-host', 'abc.tunnel.example'])
    try {
      const at = await tunnel.url
      const before = app.received.length
      for (const host of ['abc.tunnel.example', 'ABC.tunnel.example:443', 'abc.tunnel.example.']) {
        const answer = await send(at, {headers: {host, 'content-type': 'application/json'}, body: NOTIFICATION})
        expect(answer.status, host).toBe(200)
      }
      expect((await send(at, {headers: {host: 'other.tunnel.example', 'content-type': 'application/json'}, body: NOTIFICATION})).status).toBe(403)
      expect(app.received.length).toBe(before + 3)
    } finally {
      expect((await tunnel.stop()).code).toBe(0)
    }
  })
})
