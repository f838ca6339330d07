import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, tempConfigDir} from '../helpers/cli.js'
import {logIn} from '../helpers/context.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

/** A profile's stored secret and cached token go to the gateway it was logged in to, and nowhere else. */
describe('credentials bound to their gateway', () => {
  let a: Sandbox
  let b: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  const id = '00000000-0000-4000-8000-000000000000'

  beforeAll(async () => {
    ;[a, b] = await Promise.all([startTestSandbox(), startTestSandbox()])
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(a.baseUrl, env)
  })
  afterAll(async () => {
    await Promise.all([a.close(), b.close()])
    config.remove()
  })

  const tokens = () => readFileSync(join(config.dir, 'tokens.json'), 'utf8')

  it.each([
    ['--base-url', (url: string) => ({args: ['--base-url', url], env: {}})],
    ['GATEWAY_BASE_URL', (url: string) => ({args: [], env: {GATEWAY_BASE_URL: url}})],
  ])('a run pointed at another gateway by %s sends it neither the stored secret nor the token: exit 3 naming both', async (_how, pointed) => {
    const before = tokens()
    const {args, env: extra} = pointed(b.baseUrl)
    const result = await runCli(['tx', 'get', id, ...args], {env: {...env, ...extra}})
    expect(result.code).toBe(3)
    expect(result.stderr).toContain(a.baseUrl)
    expect(result.stderr).toContain(b.baseUrl)
    expect(result.stderr).toMatch(/login --profile NAME --base-url/)
    expect((await stats(b.baseUrl)).requests).toBe(0)
    expect(tokens()).toBe(before)
  })

  it('with GATEWAY_CLIENT_ID and GATEWAY_CLIENT_SECRET for it, the run uses those, and the profile keeps its own token', async () => {
    const before = tokens()
    const result = await runCli(['tx', 'get', id, '--base-url', b.baseUrl], {env: {...env, GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
    // The sandbox has no such charge: it was asked, with a token of its own.
    expect(result.code).toBe(4)
    expect((await stats(b.baseUrl)).tokenRequests).toBe(1)
    expect(tokens()).toBe(before)
    expect(tokens()).not.toContain(b.baseUrl)
  })

  it('the profile\'s own gateway, named by --base-url, still uses its login', async () => {
    const result = await runCli(['tx', 'get', id, '--base-url', a.baseUrl], {env})
    expect(result.code).toBe(4)
  })
})
