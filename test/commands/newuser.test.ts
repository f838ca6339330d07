import {describe, expect, it} from 'vitest'

import {refusedBeforeSending, runCommand} from '../helpers/context.js'
import {loggedInSandbox} from '../helpers/world.js'

/** What a new user still tripped over, in-process through the command context. */
describe('what a new user trips over', () => {
  const world = loggedInSandbox({seedDeposits: 50})
  const cli = (args: string[], extra: Record<string, string> = {}) => runCommand(args, {env: {...world.env, ...extra}, sleep: async () => {}})
  const refused = (args: string[], message: RegExp, extra: Record<string, string> = {}) => refusedBeforeSending(world.sandbox.baseUrl, () => cli(args, extra), message)

  it('--until takes a status in any case', async () => {
    const created = JSON.parse((await cli(['tx', 'create', '--amount', '1000', '--json'])).stdout) as {id: string}
    expect((await cli(['sandbox', 'pay', created.id])).code).toBe(0)
    const result = await cli(['tx', 'get', created.id, '--watch', '--until', 'paid', '--interval', '10ms', '--timeout', '5s'])
    expect(result.code, result.stderr).toBe(0)
    await refused(['tx', 'get', created.id, '--watch', '--until', 'paidd'], /^Error: --until must be one of PENDING/m)
  })

  it('--per-page over 100 is refused offline, exit 2, nothing sent', async () => {
    await refused(['deposits', 'list', '--per-page', '101'], /^Error: --per-page must be from 1 to 100$/m)
    await refused(['deposits', 'summary', '--max-amount', '100', '--min-amount', '500'], /^Error: --min-amount must not exceed --max-amount/m)
  })

  it('webhooks resend merges a status given twice in any case', async () => {
    const result = await cli(['webhooks', 'resend', '--from', '10m', '--status', 'SENT', '--status', 'sent', '--debug'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain('"status":["SENT"]')
  })

  it('withdraw with no flags asks for what is missing: the amount and the key, not the type it infers', async () => {
    const result = await refused(['withdraw', '--yes'], /^Error: --amount is required$/m)
    expect(result.stderr).toMatch(/^Error: --pix-key is required$/m)
    expect(result.stderr).not.toContain('--pix-key-type')
  })

  it.each([
    [['deposits', 'list', '--from', '1d', '--to', '2d'], {}, /^Error: --from must not be after --to$/m],
    [['deposits', 'list', '--min-amount', '500', '--max-amount', '100'], {}, /^Error: --min-amount must not exceed --max-amount \(500 > 100\)$/m],
    [['deposits', 'list'], {GATEWAY_RETRIES: 'x'}, /^Error: GATEWAY_RETRIES must be an integer, got "x"$/m],
    [['tx', 'create', '--amount', '150000.00'], {}, /^Error: --amount takes integer cents, not a decimal: 150000\.00 would be 15000000 cents, over the limit of 10000000$/m],
    [['withdraw', '--amount', '100', '--pix-key', `${'a'.repeat(70)}@example.com`, '--yes'], {}, /^Error: --pix-key is an e-mail key of 82 characters: an EMAIL key has at most 77$/m],
  ])('names what the operator typed: %j', async (args, extra, message) => {
    await refused(args, message, extra)
  })

  it('names the profile that has no login, and the closest field of a mistyped --body', async () => {
    const result = await cli(['deposits', 'list'], {GATEWAY_PROFILE: 'nosuch'})
    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/^Error: not logged in: no client credentials are stored for profile "nosuch"$/m)
    const {writeFileSync} = await import('node:fs')
    const body = `${world.config.dir}/../typo.json`
    writeFileSync(body, JSON.stringify({amount: 1000, extrnalCode: 'order-12345'}))
    await refused(['tx', 'create', '--body', body], /^Error: --body unknown field extrnalCode; did you mean externalCode\?$/m)
  })

  it('says a plain-http server reached over https does not speak TLS, in one line', async () => {
    const result = await cli(['login', '--base-url', world.sandbox.baseUrl.replace('http:', 'https:'), '--client-id', 'sandbox', '--retries', '0'], {GATEWAY_CLIENT_SECRET: 'sandbox-secret'})
    expect(result.code).toBe(7)
    expect(result.stderr).toMatch(/this server does not speak TLS/)
    expect(result.stderr).not.toMatch(/SSL routines|\\n/)
  })

  it('ends a watch at once (exit 9) when the QR code has expired unpaid', async () => {
    let clock = Date.now()
    const created = JSON.parse((await cli(['tx', 'create', '--amount', '1000', '--expiration-seconds', '60', '--json'])).stdout) as {id: string}
    clock += 120_000
    const result = await runCommand(['tx', 'get', created.id, '--watch', '--timeout', '10m', '--json'], {env: world.env, now: () => clock, sleep: async () => {}})
    expect(result.code).toBe(9)
    expect(JSON.parse(result.stdout).error.message).toMatch(/its QR code expired at .*: it can no longer be paid/)
  })

  it('keeps --output in the next-page command', async () => {
    const result = await cli(['deposits', 'list', '--output', 'csv'])
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/^Next page: gateway deposits list .*--page 2 --output csv$/m)
  })
})
