import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {StoredNotification} from '../../src/schemas/notification.js'
import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {runListener} from '../helpers/listen.js'
import {startTestSandbox, stats, tokenFor, type Sandbox} from '../helpers/sandbox.js'
import {closedPort, startListener, type Listener} from '../sandbox/listener.js'

const WEBHOOK = 'https://hooks.example.com/pix'

/**
 * The whole loop, in-process: the sandbox forwards every notification to `webhooks listen` on a
 * fixed port, which shows it and relays it to the operator's app; what the app (or the absence of
 * a listener) answers becomes the notification's status; `webhooks resend` replays what failed.
 */
describe('notifications through webhooks listen, and webhooks resend', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  let port: string
  const apps: Listener[] = []

  const cli = async (args: string[]) => {
    const result = await runCommand(args, {env})
    expect(result.code, result.stderr).toBe(0)
    return result
  }
  const listen = (args: string[] = []) => runListener(['--port', port, ...args], {env})

  /** A charge with a webhookUrl, paid: answers its id. */
  const paidCharge = async () => {
    const {id} = JSON.parse((await cli(['tx', 'create', '--amount', '1000', '--webhook-url', WEBHOOK, '--json'])).stdout) as {id: string}
    await cli(['sandbox', 'pay', id])
    return id
  }
  /** A withdrawal with a webhookUrl, settled: answers its id. */
  const settledWithdrawal = async () => {
    const {id} = JSON.parse((await cli(['withdraw', '--amount', '700', '--pix-key', 'maria@example.com', '--webhook-url', WEBHOOK, '--yes', '--json'])).stdout) as {id: string}
    await cli(['sandbox', 'settle', id])
    return id
  }
  /** A record's notifications (or one notification), once every delivery under way has ended. */
  const notificationsOf = async (referenceId: string) => {
    await sandbox.domain.notifications.idle()
    const response = await fetch(`${sandbox.baseUrl}/_sandbox/notifications?referenceId=${referenceId}`)
    return ((await response.json()) as {data: StoredNotification[]}).data
  }
  const app = async (status: number) => {
    const started = await startListener({status})
    apps.push(started)
    return started
  }

  beforeAll(async () => {
    const forwardTo = await closedPort()
    port = new URL(forwardTo).port
    sandbox = await startTestSandbox({forwardWebhooksTo: forwardTo})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
  })
  afterAll(async () => {
    await Promise.all(apps.map((started) => started.close()))
    await sandbox.close()
    config.remove()
  })

  let sentCharge: string
  let failedWithdrawal: string
  let failedCharge: string
  let unreachedCharge: string

  it('a listener that answers: the notification is SENT, and the listener shows it', async () => {
    const running = listen()
    const url = await running.url
    sentCharge = await paidCharge()
    const notifications = await notificationsOf(sentCharge)
    const result = await running.stop()
    const paid = notifications.find((notification) => notification.tags.includes('PAID'))!
    expect(paid).toMatchObject({kind: 'transaction', referenceId: sentCharge, status: 'SENT', tags: ['transaction', 'PAID'], url: WEBHOOK})
    expect(paid.attempts).toEqual([expect.objectContaining({url: WEBHOOK, forwardedTo: expect.stringContaining(url.replace('http://', '')), responseStatus: 200, outcome: 'SENT'})])
    for (const notification of notifications) expect(notification.status).toBe('SENT')
    expect(result.stdout).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d {2}${paid.id} {2}transaction {2}PAID {2}\\[RECEIVED\\] {2}ref ${sentCharge} {2}for ${WEBHOOK}$`, 'm'))
  })

  it('forwarding to an app that answers 500: the 500 is passed back, the notification is FAILED', async () => {
    const target = await app(500)
    const running = listen(['--forward-to', target.url])
    await running.url
    failedWithdrawal = await settledWithdrawal()
    const notifications = await notificationsOf(failedWithdrawal)
    const result = await running.stop()
    expect(notifications.length).toBeGreaterThan(0)
    for (const notification of notifications) {
      expect(notification).toMatchObject({kind: 'withdrawal', status: 'FAILED'})
      expect(notification.attempts.at(-1)).toMatchObject({responseStatus: 500, outcome: 'FAILED'})
    }
    const settled = notifications.find((notification) => notification.tags.includes('PAID'))!
    expect(target.received.map((request) => request.body.id)).toContain(settled.id)
    const relayed = target.received.find((request) => request.body.id === settled.id)!
    expect(relayed.headers['x-original-url']).toBe(WEBHOOK)
    expect(relayed.headers['x-notification-id']).toBe(settled.id)
    expect(result.stdout).toContain(`${settled.id}  withdrawal  PAID  [RECEIVED]  ref ${failedWithdrawal}`)
    expect(result.stdout).toMatch(new RegExp(`${settled.id} {2}→ 500 from ${target.url}`))
  })

  it('forwarding to an app that is down: the listener answers 502, the notification is FAILED, the failure printed', async () => {
    const down = await closedPort()
    const running = listen(['--forward-to', down])
    await running.url
    failedCharge = await paidCharge()
    const notifications = await notificationsOf(failedCharge)
    const result = await running.stop()
    const paid = notifications.find((notification) => notification.tags.includes('PAID'))!
    expect(paid).toMatchObject({status: 'FAILED'})
    expect(paid.attempts).toEqual([expect.objectContaining({responseStatus: 502, outcome: 'FAILED'})])
    expect(result.stderr).toContain(`${paid.id}  ✗ could not forward to ${down}: connection refused; answered 502`)
  })

  it('no listener at all: the notification is ERROR', async () => {
    unreachedCharge = await paidCharge()
    const paid = (await notificationsOf(unreachedCharge)).find((notification) => notification.tags.includes('PAID'))!
    expect(paid).toMatchObject({status: 'ERROR'})
    expect(paid.attempts).toEqual([expect.objectContaining({outcome: 'ERROR', error: expect.stringMatching(/refused/)})])
  })

  it('resend by reference id: every notification of the record is delivered again, and now SENT', async () => {
    const running = listen()
    await running.url
    const before = (await notificationsOf(unreachedCharge)).length
    const resent = await cli(['webhooks', 'resend', '--reference-id', unreachedCharge])
    expect(resent.stdout).toBe(`✓ Resend ACCEPTED: notifications with reference id ${unreachedCharge}\n`)
    expect(resent.stderr).toContain('Accepted is not delivered')
    expect(resent.stderr).toContain('the gateway does not say how many notifications matched (its 201 has no body)')
    const notifications = await notificationsOf(unreachedCharge)
    const result = await running.stop()
    expect(notifications).toHaveLength(before)
    for (const notification of notifications) {
      expect(notification.status).toBe('SENT')
      expect(notification.attempts.at(-1)).toMatchObject({resend: true, outcome: 'SENT', responseStatus: 200})
    }
    for (const notification of notifications) expect(result.stdout).toContain(`${notification.id}  transaction`)
  })

  it('resend by date range with a status and a tag: only the FAILED withdrawal notifications go again', async () => {
    const running = listen(['--output', 'ndjson'])
    await running.url
    const attempts = async (id: string) => (await notificationsOf(id)).map((notification) => notification.attempts.length)
    const charge = await attempts(failedCharge)
    const sent = await attempts(sentCharge)
    const resent = await cli(['webhooks', 'resend', '--from', '10m', '--status', 'failed', '--tag', 'withdrawal', '--json'])
    const answer = JSON.parse(resent.stdout) as {accepted: boolean; request: Record<string, unknown>}
    expect(answer).toEqual({
      accepted: true,
      // The gateway does not say how many matched.
      matched: null,
      request: {startDate: expect.any(String), endDate: expect.any(String), status: ['FAILED'], tags: ['withdrawal']},
    })
    const withdrawal = await notificationsOf(failedWithdrawal)
    const result = await running.stop()
    for (const notification of withdrawal) {
      expect(notification.status).toBe('SENT')
      expect(notification.attempts.map((attempt) => attempt.outcome)).toEqual(['FAILED', 'SENT'])
    }
    // The FAILED transaction notifications carry another tag; the SENT ones another status.
    expect(await attempts(failedCharge)).toEqual(charge)
    expect(await attempts(sentCharge)).toEqual(sent)
    const received = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as {type: string; referenceId?: string; kind?: string})
    expect(received.filter((event) => event.type === 'received').map((event) => event.referenceId)).toEqual(withdrawal.map(() => failedWithdrawal))
  })

  it('resend with --override-url: delivered for that URL instead of the notification\'s own', async () => {
    const running = listen(['--output', 'ndjson'])
    await running.url
    const override = 'https://hooks.example.net/replay?source=cli'
    const resent = await cli(['webhooks', 'resend', '--reference-id', failedCharge, '--override-url', override])
    expect(resent.stdout).toContain(`To: ${override} (instead of each notification's own URL)`)
    const notifications = await notificationsOf(failedCharge)
    const result = await running.stop()
    for (const notification of notifications) {
      expect(notification.url).toBe(WEBHOOK)
      expect(notification.attempts.at(-1)).toMatchObject({url: override, resend: true, outcome: 'SENT'})
    }
    const received = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as {type: string; originalUrl?: string})
    expect(received.filter((event) => event.type === 'received').map((event) => event.originalUrl)).toEqual(notifications.map(() => override))
  })

  it('with a sandbox-limited login: exit 3 before anything is sent, naming the scope and what to do', async () => {
    const limited = tempConfigDir()
    try {
      const limitedEnv = {GATEWAY_CONFIG_DIR: limited.dir}
      const login = await runCommand(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox-limited'], {
        env: {...limitedEnv, GATEWAY_CLIENT_SECRET: 'sandbox-secret'},
      })
      expect(login.code).toBe(0)
      const before = (await stats(sandbox.baseUrl)).byRoute['POST /dispatcher/request/resend'] ?? 0
      const result = await runCommand(['webhooks', 'resend', '--reference-id', failedCharge], {env: limitedEnv})
      expect(result.code).toBe(3)
      expect(result.stderr).toContain('lacks the resend_dispatcher scope that the resend needs; nothing was sent')
      expect(result.stderr).toContain('Log in with a client that has the resend_dispatcher scope')
      expect((await stats(sandbox.baseUrl)).byRoute['POST /dispatcher/request/resend'] ?? 0).toBe(before)
      // The gateway itself refuses such a token with 403, as the CLI said it would.
      const direct = await fetch(`${sandbox.baseUrl}/dispatcher/request/resend`, {
        method: 'POST',
        headers: {authorization: `Bearer ${await tokenFor(sandbox.baseUrl, 'sandbox-limited')}`, 'content-type': 'application/json'},
        body: JSON.stringify({referenceId: failedCharge}),
      })
      expect(direct.status).toBe(403)

      // A token that does not list its scopes goes out; the gateway's 403 is explained the same way.
      const tokensFile = join(limited.dir, 'tokens.json')
      const tokens = JSON.parse(readFileSync(tokensFile, 'utf8')) as Record<string, {scopes: string[]}>
      tokens.default.scopes = []
      writeFileSync(tokensFile, JSON.stringify(tokens))
      const attempts = (await notificationsOf(failedCharge)).map((notification) => notification.attempts.length)
      const asked = (await stats(sandbox.baseUrl)).byRoute['POST /dispatcher/request/resend']
      const refused = await runCommand(['webhooks', 'resend', '--reference-id', failedCharge, '--json'], {env: limitedEnv})
      expect(refused.code).toBe(3)
      const {error} = JSON.parse(refused.stdout)
      expect(error).toMatchObject({code: 'FORBIDDEN', exitCode: 3, status: 403})
      expect(error.message).toBe('the gateway refused the resend (403): the token needs the resend_dispatcher scope')
      expect(error.hint).toContain('Log in with a client that has the resend_dispatcher scope')
      expect((await stats(sandbox.baseUrl)).byRoute['POST /dispatcher/request/resend']).toBe(asked + 1)
      expect((await notificationsOf(failedCharge)).map((notification) => notification.attempts.length)).toEqual(attempts)
    } finally {
      limited.remove()
    }
  })
})
