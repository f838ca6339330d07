import {afterEach, describe, expect, it} from 'vitest'

import {runCommand} from '../helpers/context.js'
import {runListener} from '../helpers/listen.js'
import {closedPort, startListener, type Listener} from '../sandbox/listener.js'

const NOTIFICATION = {
  id: 'b5d7e0c2-9a51-4a3e-8c1f-0e6f1d2a3b4c',
  referenceId: '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11',
  kind: 'withdrawal',
  status: 'RECEIVED',
  tags: ['withdrawal', 'PAID'],
  createdAt: '2026-11-20T14:03:07.000Z',
  data: {id: '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11', status: 'PAID', amount: 1000},
}

function deliver(url: string) {
  return fetch(url, {
    method: 'POST',
    headers: {'content-type': 'application/json', 'x-notification-id': NOTIFICATION.id, 'x-original-url': 'https://hooks.example.com/pix'},
    body: JSON.stringify(NOTIFICATION),
  })
}

/** The listener on any free port, its clock and zone fixed so its lines can be compared whole. */
const listen = (args: string[]) =>
  runListener(['--port', '0', ...args], {env: {TZ: 'America/Sao_Paulo'}, now: () => Date.parse('2026-11-20T14:03:07.000Z')})

describe('webhooks listen', () => {
  const apps: Listener[] = []
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()))
  })

  it('prints one line per notification with its time, id, kind, status, reference id and destination, until Ctrl-C', async () => {
    const run = listen([])
    const url = await run.url
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect((await deliver(url)).status).toBe(200)
    const result = await run.stop()
    expect(result.code).toBe(0)
    // The time of arrival in the operator's zone (TZ), then the notification's own facts.
    expect(result.stdout).toBe(`11:03:07  ${NOTIFICATION.id}  withdrawal  PAID  [RECEIVED]  ref ${NOTIFICATION.referenceId}  for https://hooks.example.com/pix\n`)
    expect(result.stderr).toContain('gateway sandbox start --forward-webhooks http://127.0.0.1:')
    expect(result.stderr).toMatch(/Stopped \(SIGINT\): 1 received, 0 failed\.\n$/)
  })

  it('forwards to the app, prints its answer, and writes NDJSON events with --output ndjson', async () => {
    const app = await startListener({status: 202})
    apps.push(app)
    const run = listen(['--forward-to', app.url, '--output', 'ndjson'])
    const url = await run.url
    expect((await deliver(url)).status).toBe(202)
    const result = await run.stop()
    expect(result.code).toBe(0)
    const events = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line))
    expect(events.map((event) => event.type)).toEqual(['received', 'forwarded'])
    expect(events[0]).toMatchObject({id: NOTIFICATION.id, kind: 'withdrawal', status: 'RECEIVED', recordStatus: 'PAID', body: NOTIFICATION, originalUrl: 'https://hooks.example.com/pix'})
    expect(events[1]).toMatchObject({id: NOTIFICATION.id, status: 202, target: app.url})
    expect(app.received[0].body).toEqual(NOTIFICATION)
    expect(result.stderr).toMatch(/1 received, 1 forwarded, 0 failed/)
  })

  it('answers 502 when the app is down and prints the failure on stderr', async () => {
    const down = await closedPort()
    const run = listen(['--forward-to', down])
    const url = await run.url
    expect((await deliver(url)).status).toBe(502)
    const result = await run.stop()
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`${NOTIFICATION.id}  withdrawal  PAID  [RECEIVED]`)
    expect(result.stderr).toContain(`${NOTIFICATION.id}  ✗ could not forward to ${down}: connection refused; answered 502`)
    expect(result.stderr).toMatch(/1 received, 0 forwarded, 1 failed/)
  })

  it('refuses a --forward-to that is not an http(s) URL, and a port in use, with exit 2', async () => {
    const bad = await runCommand(['webhooks', 'listen', '--forward-to', 'ftp://example.com'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--forward-to must use http or https')
    const app = await startListener()
    apps.push(app)
    const busy = await runCommand(['webhooks', 'listen', '--port', new URL(app.url).port])
    expect(busy.code).toBe(2)
    expect(busy.stderr).toContain('is already in use')
  })
})
