import {createServer, type Socket} from 'node:net'
import type {AddressInfo} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {WebhookListener, type ListenerEvent} from '../../src/webhooks/listener.js'
import {startTestSandbox, tokenFor, type Sandbox} from '../helpers/sandbox.js'

/** An app that takes connections and never answers: a forward to it can only time out. */
async function silentApp(): Promise<{url: string; close(): Promise<void>}> {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/**
 * A delivery whose sender gives up (the sandbox's own delivery timeout) while the listener is
 * still trying the app is one failure of one notification: the listener says it once, not a
 * "could not forward" line and then a "could not answer" line for the same notification.
 */
describe('a notification the app never answers, whose sender gives up first', () => {
  const open: Array<{close(): Promise<void>}> = []
  afterEach(async () => {
    await Promise.all(open.splice(0).map((thing) => thing.close()))
  })

  it('is reported as failed once, saying the sender had hung up, and counted once', async () => {
    const app = await silentApp()
    open.push(app)
    const listener = new WebhookListener({port: 0, forwardTo: app.url, forwardTimeoutMs: 600})
    open.push(listener)
    const url = await listener.start()
    const events: ListenerEvent[] = []
    listener.on('event', (event: ListenerEvent) => events.push(event))
    const sandbox: Sandbox = await startTestSandbox({forwardWebhooksTo: `${url}/`, notificationTimeoutMs: 200})
    open.push(sandbox)

    const headers = {authorization: `Bearer ${await tokenFor(sandbox.baseUrl)}`, 'content-type': 'application/json'}
    const ids: string[] = []
    for (let i = 0; i < 3; i++) {
      const body = {amount: 1000, paymentMethod: 'PIX', pix: {}, idempotencyKey: `reported-once-${i}-${Date.now()}`, webhookUrl: 'https://hooks.example.com/pix'}
      const created = (await (await fetch(`${sandbox.baseUrl}/core/transaction`, {method: 'POST', headers, body: JSON.stringify(body)})).json()) as {id: string}
      expect((await fetch(`${sandbox.baseUrl}/_sandbox/transactions/${created.id}/pay`, {method: 'POST', headers, body: '{}'})).status).toBe(200)
      ids.push(created.id)
    }
    await sandbox.domain.notifications.idle()
    // Every delivery has ended on the sandbox's side (ERROR, after 200 ms); the listener's forward ends after 600 ms.
    const deadline = Date.now() + 5000
    while (events.filter((event) => event.type === 'failed').length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    await new Promise((resolve) => setTimeout(resolve, 300))

    const notifications = sandbox.domain.notifications.list()
    expect(notifications).toHaveLength(3)
    for (const notification of notifications) {
      expect(notification.attempts.map((attempt) => attempt.outcome)).toEqual(['ERROR'])
      const about = events.filter((event) => event.id === notification.id)
      expect(about.map((event) => event.type), JSON.stringify(about)).toEqual(['received', 'failed'])
      expect(about[1]).toMatchObject({stage: 'forward', error: expect.stringMatching(/^timed out.*; the sender had hung up before it could be answered$/)})
      expect(about[1]).not.toHaveProperty('answered')
    }
  })
})
