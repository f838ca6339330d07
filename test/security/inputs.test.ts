import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {refusedBeforeSending, runCommand} from '../helpers/context.js'
import {loggedInSandbox} from '../helpers/world.js'

/** What the operator types, or a file holds, is checked for what could hurt: names, keys, depths, bounds. */
describe('hostile or careless input, on the CLI', () => {
  const world = loggedInSandbox()
  const cli = (args: string[], extra: Record<string, string> = {}) => runCommand(args, {env: {...world.env, ...extra}})
  const refused = (args: string[], message: RegExp, extra: Record<string, string> = {}) => refusedBeforeSending(world.sandbox.baseUrl, () => cli(args, extra), message)

  it.each(['__proto__', 'constructor', 'prototype', '', 'a'.repeat(65), 'name\u001b[2J', 'two words', '../etc'])('refuses the profile name %j (exit 2, one line), from the flag or GATEWAY_PROFILE', async (name) => {
    const flag = await refused(['tx', 'create', '--amount', '100', '--profile', name], /^Error: --profile must be 1 to 64 letters, digits, - or _, and not __proto__, constructor or prototype; got "/m)
    expect(flag.stderr).not.toContain('\u001b[2J')
    if (name) await refused(['auth', 'status'], /^Error: GATEWAY_PROFILE must be 1 to 64 letters/m, {GATEWAY_PROFILE: name})
  })

  it('login to a profile named __proto__ stores nothing and is refused', async () => {
    const result = await cli(['login', '--profile', '__proto__', '--base-url', world.sandbox.baseUrl, '--client-id', 'sandbox'], {GATEWAY_CLIENT_SECRET: 'sandbox-secret'})
    expect(result.code).toBe(2)
    expect((await cli(['auth', 'status', '--all', '--json'])).stdout).not.toContain('__proto__')
  })

  it('keeps a metadata key exactly, __proto__ included: sent, stored and returned', async () => {
    const created = await cli(['tx', 'create', '--amount', '100', '--metadata', '__proto__=x', '--metadata', 'constructor=y', '--json'])
    expect(created.code, created.stderr).toBe(0)
    const got = await cli(['tx', 'get', JSON.parse(created.stdout).id, '--json'])
    const {metadata} = JSON.parse(got.stdout) as {metadata: Record<string, unknown>}
    expect(Object.hasOwn(metadata, '__proto__') && metadata.__proto__).toBe('x')
    expect(Object.hasOwn(metadata, 'constructor') && metadata.constructor).toBe('y')
  })

  it.each([['        '], ['\t \t \t \t \t']])('refuses a blank idempotency key %j, as the sandbox does', async (key) => {
    await refused(['tx', 'create', '--amount', '100', '--idempotency-key', key], /^Error: --idempotency-key must not be blank$/m)
    const token = await (await fetch(`${world.sandbox.baseUrl}/auth/token`, {method: 'POST', body: new URLSearchParams({grant_type: 'client_credentials', client_id: 'sandbox', client_secret: 'sandbox-secret'})})).json()
    const answer = await fetch(`${world.sandbox.baseUrl}/core/transaction`, {
      method: 'POST',
      headers: {authorization: `Bearer ${(token as {access_token: string}).access_token}`, 'content-type': 'application/json'},
      body: JSON.stringify({amount: 100, paymentMethod: 'PIX', idempotencyKey: key, pix: {}}),
    })
    expect(answer.status).toBe(422)
  })

  it.each(['https://xn--e1afmkfd.xn--p1ai/x', 'https://hooks.example.com./pix', 'https://пример.рф/hooks'])('takes the webhook host %s (IDN and a trailing dot, by the URL standard)', async (url) => {
    const result = await cli(['tx', 'create', '--amount', '100', '--webhook-url', url, '--json'])
    expect(result.code, result.stderr).toBe(0)
  })

  it.each(['https://10.0.0.1/pix', 'https://[::1]/pix', 'https://hooks..example.com/pix', `https://${'a'.repeat(64)}.com/pix`])('refuses the webhook host of %s', async (url) => {
    await refused(['tx', 'create', '--amount', '100', '--webhook-url', url], /^Error: --webhook-url must have a host with a top-level domain/m)
  })

  it('refuses a --body nested 2,000 levels deep, or over 1 MiB: exit 2, one line, never a crash', async () => {
    const deep = join(world.config.dir, '..', 'deep.json')
    writeFileSync(deep, `{"amount":100,"metadata":${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}}`)
    const result = await refused(['tx', 'create', '--body', deep], /^Error: --body: .* nests deeper than 64 levels/m)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    const big = join(world.config.dir, '..', 'big.json')
    writeFileSync(big, JSON.stringify({amount: 100, metadata: {note: 'x'.repeat(1_100_000)}}))
    await refused(['tx', 'create', '--body', big], /^Error: --body: .* is over 1 MiB/m)
  })

  it.each([['--timeout', '3000000000'], ['--timeout', '25d'], ['--interval', '30d']])('refuses %s %s: a timer holds at most 2^31-1 ms', async (flag, value) => {
    const args = flag === '--interval' ? ['tx', 'get', '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11', '--watch', flag, value] : ['tx', 'get', '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11', flag, value]
    await refused(args, new RegExp(`^Error: ${flag} must be at most 2147483647 ms`, 'm'))
  })
})
