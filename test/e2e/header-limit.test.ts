// A gateway's header block is bounded at 16 KiB (src/api/client.ts), Node's own default, whatever
// NODE_OPTIONS says: a larger one is a failed answer (exit 7), even where --max-http-header-size
// would let Node's own client take it.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, unstamped} from '../helpers/cli.js'
import {startHostileGateway, type HostileGateway} from '../helpers/hostile-gateway.js'
import {loggedInSandbox} from '../helpers/world.js'

describe('the header block of an answer', () => {
  const world = loggedInSandbox()
  let hostile: HostileGateway
  let id: string
  let padding = 0

  beforeAll(async () => {
    const created = await runCli(['tx', 'create', '--amount', '1000', '--json'], {env: {...world.env, GATEWAY_BASE_URL: world.sandbox.baseUrl}})
    id = JSON.parse(created.stdout).id
    const record = await runCli(['tx', 'get', id, '--json'], {env: {...world.env, GATEWAY_BASE_URL: world.sandbox.baseUrl}})
    hostile = await startHostileGateway(world.sandbox.baseUrl)
    hostile.poisonAll = false
    hostile.answer = (request) => (request.method === 'GET' && request.url.startsWith('/core/transaction/') ? {headers: {'x-padding': 'x'.repeat(padding)}, body: record.stdout} : undefined)
  })
  afterAll(() => hostile?.close())

  const lookup = () =>
    runCli(['tx', 'get', id, '--json', '--retries', '0'], {
      env: {GATEWAY_CONFIG_DIR: world.config.dir, GATEWAY_BASE_URL: hostile.baseUrl, GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret', NODE_OPTIONS: '--max-http-header-size=65536'},
    })

  it('takes an answer whose headers fit in 16 KiB, and refuses one of 20 KiB with exit 7 even under --max-http-header-size=65536', async () => {
    padding = 8 * 1024
    const fits = await lookup()
    expect(fits.code, fits.stderr).toBe(0)
    expect(JSON.parse(fits.stdout).id).toBe(id)
    padding = 20 * 1024
    const over = await lookup()
    expect(over.code).toBe(7)
    expect(JSON.parse(over.stdout).error).toMatchObject({exitCode: 7, message: expect.stringMatching(/the answer's headers were too large/)})
    expect(unstamped(over.stderr)).toMatch(/^Error: .*the answer's headers were too large/m)
  })
})
