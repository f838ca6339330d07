import {request, Agent} from 'node:http'
import {connect, type Socket} from 'node:net'

import {afterEach, describe, expect, it, vi} from 'vitest'

import {WebhookListener} from '../../src/webhooks/listener.js'
import {startTestSandbox} from '../helpers/sandbox.js'

const realTimeout = globalThis.setTimeout

/** Waits for `promise`, or says it was still waiting after `ms` of real time. */
function settles(promise: Promise<unknown>, ms = 3000): Promise<'closed' | 'still waiting'> {
  return Promise.race([promise.then(() => 'closed' as const), new Promise<'still waiting'>((resolve) => realTimeout(() => resolve('still waiting'), ms))])
}

/** A connection of each kind a client can leave open: idle after an answer (keep-alive), opened and silent, and half-sent. */
async function openConnections(url: string): Promise<{sockets: Socket[]; agent: Agent}> {
  const {hostname, port} = new URL(url)
  const agent = new Agent({keepAlive: true})
  await new Promise<void>((resolve) => {
    const req = request({host: hostname, port, method: 'POST', path: '/', agent, headers: {'content-type': 'application/json'}}, (res) => {
      res.resume()
      res.on('end', () => resolve())
    })
    req.on('error', () => resolve())
    req.end('{}')
  })
  const silent = connect(Number(port), hostname)
  const halfSent = connect(Number(port), hostname)
  halfSent.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":')
  const sockets = [silent, halfSent]
  for (const socket of sockets) socket.on('error', () => {})
  await Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once('connect', resolve))))
  // Let the server see the half-sent request's headers.
  await new Promise((resolve) => realTimeout(resolve, 100))
  return {sockets, agent}
}

/**
 * SIGTERM and SIGINT end `sandbox start` and `webhooks listen` by closing their server: it must
 * close at once, not when the last idle or silent client lets go. The timers are frozen, so a close
 * that waits for its fallback timeout never ends.
 */
describe('closing a server with clients connected', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('the sandbox closes at once, with an idle keep-alive, a silent and a half-sent connection open', async () => {
    const sandbox = await startTestSandbox()
    const {sockets, agent} = await openConnections(sandbox.baseUrl)
    vi.useFakeTimers({toFake: ['setTimeout']})
    expect(await settles(sandbox.close())).toBe('closed')
    vi.useRealTimers()
    for (const socket of sockets) socket.destroy()
    agent.destroy()
  })

  it('webhooks listen closes at once, with an idle keep-alive, a silent and a half-sent connection open', async () => {
    const listener = new WebhookListener({port: 0})
    const url = await listener.start()
    const {sockets, agent} = await openConnections(url)
    vi.useFakeTimers({toFake: ['setTimeout']})
    expect(await settles(listener.close())).toBe('closed')
    vi.useRealTimers()
    for (const socket of sockets) socket.destroy()
    agent.destroy()
  })

  it('a request that arrived whole is still answered while the sandbox closes', async () => {
    const sandbox = await startTestSandbox({latencyMs: 200})
    const answer = fetch(`${sandbox.baseUrl}/core/transaction/00000000-0000-4000-8000-000000000000`)
    await new Promise((resolve) => realTimeout(resolve, 50))
    await sandbox.close()
    expect((await answer).status).toBe(401)
  })
})
