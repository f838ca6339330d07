import {createServer} from 'node:http'

import {afterEach, describe, expect, it} from 'vitest'

import {WebhookListener, type ListenerEvent} from '../../src/webhooks/listener.js'
import {closedPort, startListener, type Listener} from '../sandbox/listener.js'

const NOTIFICATION = {
  id: 'b5d7e0c2-9a51-4a3e-8c1f-0e6f1d2a3b4c',
  referenceId: '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11',
  kind: 'transaction',
  status: 'RECEIVED',
  tags: ['transaction', 'PAID'],
  createdAt: '2026-11-20T14:03:07.000Z',
  data: {id: '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11', status: 'PAID', amount: 1000},
}

/** Sends a notification as the sandbox does: POST, JSON, its id and original destination in headers. */
function deliver(url: string, body: unknown = NOTIFICATION) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-notification-id': NOTIFICATION.id,
      'x-original-url': 'https://hooks.example.com/pix?shop=1',
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

describe('the webhook listener', () => {
  const open: Array<{close(): Promise<void>}> = []
  afterEach(async () => {
    await Promise.all(open.splice(0).map((thing) => thing.close()))
  })

  async function listen(forwardTo?: string) {
    const listener = new WebhookListener({port: 0, forwardTo, forwardTimeoutMs: 2000})
    open.push(listener)
    const url = await listener.start()
    const events: ListenerEvent[] = []
    listener.on('event', (event: ListenerEvent) => events.push(event))
    return {listener, url, events}
  }

  /** The operator's app: it keeps what it gets and answers `status`. */
  async function app(status = 200): Promise<Listener> {
    const started = await startListener({status})
    open.push(started)
    return started
  }

  it('reports what each notification says about itself, and answers 200 when there is no app', async () => {
    const {url, events} = await listen()
    const response = await deliver(url)
    expect(response.status).toBe(200)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      type: 'received',
      method: 'POST',
      path: '/',
      id: NOTIFICATION.id,
      referenceId: NOTIFICATION.referenceId,
      kind: 'transaction',
      status: 'RECEIVED',
      recordStatus: 'PAID',
      tags: ['transaction', 'PAID'],
      originalUrl: 'https://hooks.example.com/pix?shop=1',
      body: NOTIFICATION,
    })
  })

  it('keeps a body that is not JSON as text, and still reports it', async () => {
    const {url, events} = await listen()
    expect((await deliver(url, 'plain words')).status).toBe(200)
    expect(events[0]).toMatchObject({type: 'received', id: NOTIFICATION.id, body: 'plain words', kind: undefined})
  })

  it('relays headers and body to the app and answers with the app\'s status', async () => {
    const target = await app(201)
    const {url, events} = await listen(target.url)
    const response = await deliver(url)
    expect(response.status).toBe(201)
    // The sender learns the app's status, never its body.
    expect(await response.text()).toBe('')
    const [relayed] = target.received
    expect(relayed).toMatchObject({method: 'POST', path: '/hooks'})
    expect(relayed.body).toEqual(NOTIFICATION)
    expect(relayed.headers).toMatchObject({
      'content-type': 'application/json',
      'x-notification-id': NOTIFICATION.id,
      'x-original-url': 'https://hooks.example.com/pix?shop=1',
    })
    expect(events.map((event) => event.type)).toEqual(['received', 'forwarded'])
    expect(events[1]).toMatchObject({type: 'forwarded', id: NOTIFICATION.id, status: 201, target: target.url})
  })

  it('passes an app\'s 500 back as it is', async () => {
    const target = await app(500)
    const {url, events} = await listen(target.url)
    expect((await deliver(url)).status).toBe(500)
    expect(events[1]).toMatchObject({type: 'forwarded', status: 500})
  })

  it('answers 502 when the app cannot be reached, and reports the failure', async () => {
    const {url, events} = await listen(await closedPort())
    const response = await deliver(url)
    expect(response.status).toBe(502)
    expect(((await response.json()) as {message: string}).message).toContain('connection refused')
    expect(events.map((event) => event.type)).toEqual(['received', 'failed'])
    expect(events[1]).toMatchObject({type: 'failed', stage: 'forward', id: NOTIFICATION.id, error: 'connection refused', answered: 502})
  })

  it('keeps serving through failures and an app restarted on the same port: nothing is kept between notifications', async () => {
    const target = await app(200)
    const {url, events} = await listen(target.url)
    expect((await deliver(url)).status).toBe(200)
    target.settings.status = 503
    expect((await deliver(url)).status).toBe(503)
    await target.close()
    expect((await deliver(url)).status).toBe(502)
    // The app comes back on the same port: the very next notification reaches it.
    let reached = 0
    const restarted = createServer((req, res) => {
      reached += 1
      req.resume().on('end', () => res.writeHead(204).end())
    })
    await new Promise<void>((resolve) => restarted.listen(Number(new URL(target.url).port), '127.0.0.1', resolve))
    open.push({close: () => new Promise<void>((resolve) => restarted.close(() => resolve()))})
    expect((await deliver(url)).status).toBe(204)
    expect(reached).toBe(1)
    const answers = events.flatMap((event) => (event.type === 'forwarded' ? [event.status] : event.type === 'failed' ? [event.answered] : []))
    expect(answers).toEqual([200, 503, 502, 204])
  })

  it('gives its events as an async iterator until the signal aborts', async () => {
    const {listener, url} = await listen()
    const stop = new AbortController()
    const seen: string[] = []
    const reading = (async () => {
      for await (const event of listener.events(stop.signal)) {
        seen.push(event.type)
        if (seen.length === 2) stop.abort()
      }
    })()
    await deliver(url)
    await deliver(url)
    await reading
    expect(seen).toEqual(['received', 'received'])
  })
})
