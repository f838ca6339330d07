import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {runCommand, type RunOptions} from '../helpers/context.js'
import {HOSTILE, RAW_CONTROL, poison, startHostileGateway, type HostileGateway} from '../helpers/hostile-gateway.js'
import {runListener} from '../helpers/listen.js'
import {control, startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

/**
 * Text from a hostile gateway, or a hostile webhook sender, is data: every human view shows its
 * control characters as escapes, in a terminal and in a pipe, while JSON keeps the values exactly.
 */
describe('text from outside never reaches the terminal as control', () => {
  let sandbox: Sandbox
  let hostile: HostileGateway
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  let id: string

  /** A person at a wide colour terminal: our own colours are on, so only theirs must be escaped. */
  const terminal: RunOptions = {tty: {stdout: true, stderr: true}, columns: 400}
  const cli = (args: string[], options: RunOptions = {}) => runCommand(args, {sleep: async () => {}, ...options, env: {...env, ...options.env}})
  const clean = (result: {stdout: string; stderr: string}, options: {shown?: boolean} = {}) => {
    // Our own colours are the only escape sequences left; anything else is theirs.
    // Our own colours (the QR code's black on white among them), and the progress line's own return-and-erase, are the only sequences left.
    const withoutOurs = `${result.stdout}${result.stderr}`.replace(/\u001b\[(?:1|2|22|31|32|33|36|39|90|30|47|49)m|\r\u001b\[2K/g, '')
    expect(withoutOurs.match(RAW_CONTROL)?.[0], withoutOurs).toBeUndefined()
    // What they sent is shown, escaped (unless a narrow column cut it off).
    if (options.shown !== false) expect(withoutOurs).toContain('\\u001b]0;pwned\\u0007')
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 5})
    hostile = await startHostileGateway(sandbox.baseUrl)
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    const login = await cli(['login', '--base-url', hostile.baseUrl, '--client-id', 'sandbox'], {env: {GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
    expect(login.code, login.stderr).toBe(0)
  })
  afterAll(async () => {
    await hostile.close()
    await sandbox.close()
    config.remove()
  })

  it.each([[{}], [terminal]])('tx create shows the charge escaped (%j); --json keeps every value as sent', async (options) => {
    const shown = await cli(['tx', 'create', '--amount', '1000', '--item', 'title=Cap,unitPrice=1000', '--metadata', 'order=4711'], options)
    expect(shown.code, shown.stderr).toBe(0)
    clean(shown)
    const json = await cli(['tx', 'create', '--amount', '1000', '--item', 'title=Cap,unitPrice=1000', '--metadata', 'order=4711', '--json'])
    expect(json.code).toBe(0)
    const document = JSON.parse(json.stdout)
    id = document.id
    expect(document.status).toBe(`PIX_QRCODE_GENERATED${HOSTILE}`)
  })

  it('tx get shows every text of the record escaped; --json and --output csv keep it', async () => {
    const shown = await cli(['tx', 'get', id], terminal)
    expect(shown.code, shown.stderr).toBe(0)
    clean(shown)
    const json = await cli(['tx', 'get', id, '--json'])
    const record = JSON.parse(json.stdout)
    expect(record.status).toBe(`PIX_QRCODE_GENERATED${HOSTILE}`)
    expect(record.items[0].title).toBe(`Cap${HOSTILE}`)
    expect(record.metadata.order).toBe(`4711${HOSTILE}`)
    expect(record.metadata[`note${HOSTILE}`]).toBe(`x${HOSTILE}`)
  })

  it('deposits list: rows and footer escaped, in a terminal and a pipe; ndjson keeps the values', async () => {
    for (const options of [{}, {...terminal, tty: {stdout: true, stderr: true, stdin: false}}]) {
      const shown = await cli(['deposits', 'list', '--no-interactive'], options)
      expect(shown.code, shown.stderr).toBe(0)
      clean(shown)
    }
    const ndjson = await cli(['deposits', 'list', '--output', 'ndjson'])
    expect(ndjson.stdout.split('\n')[0]).toContain(JSON.stringify(HOSTILE).slice(1, -1))
  })

  it('deposits summary and journal list show outside text escaped', async () => {
    const summary = await cli(['deposits', 'summary'], terminal)
    expect(summary.code, summary.stderr).toBe(0)
    clean(summary)
    // A refusal whose message carries escapes lands in the journal, and in its view.
    await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', status: 422, count: 1})
    expect((await cli(['tx', 'create', '--amount', '1000'])).code).toBe(5)
    const journal = await cli(['journal', 'list', '--pending'], terminal)
    expect(journal.code).toBe(0)
    const all = await cli(['journal', 'list'], terminal)
    expect(all.code).toBe(0)
    clean(all, {shown: false})
    const json = await cli(['journal', 'list', '--json'])
    expect(json.stdout).toContain(JSON.stringify(HOSTILE).slice(1, -1))
  })

  it('a 201 without the record is no success: exit 7, the entry pending, and a replay settles it', async () => {
    hostile.noRecord = true
    try {
      const result = await cli(['withdraw', '--amount', '500', '--pix-key', 'maria@example.com', '--idempotency-key', 'hostile-no-record-1', '--yes'])
      expect(result.code).toBe(7)
      expect(result.stderr).toMatch(/^Error: the gateway answered without the record \(the withdrawal: 201 with a body that is not JSON\)/m)
    } finally {
      hostile.noRecord = false
    }
    const pending = JSON.parse((await cli(['journal', 'list', '--pending', '--json'])).stdout) as Array<{idempotencyKey: string}>
    expect(pending.map((entry) => entry.idempotencyKey)).toContain('hostile-no-record-1')
    expect((await cli(['journal', 'retry', '--yes', '--key', 'hostile-no-record-1'])).code).toBe(0)
  })

  it('--debug traces the hostile answers escaped', async () => {
    const traced = await cli(['tx', 'get', id, '--debug'])
    expect(traced.code).toBe(0)
    clean(traced)
  })

  it('webhooks listen shows a hostile notification on one line, escaped; --output ndjson keeps it', async () => {
    const run = runListener(['--port', '0'], {tty: {stdout: true, stderr: true}, env: {NO_COLOR: '1'}})
    const url = await run.url
    const hostileBody = poison({id: 'b5d7e0c2-9a51-4a3e-8c1f-0e6f1d2a3b4c', referenceId: 'ref', kind: 'transaction', status: 'SENT', data: {status: 'PAID'}})
    const answered = await fetch(url, {method: 'POST', headers: {'content-type': 'application/json', 'x-original-url': 'https://hooks.example.com/pix'}, body: JSON.stringify(hostileBody)})
    expect(answered.status).toBe(200)
    const result = await run.stop()
    clean(result)
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1)
  })
})
