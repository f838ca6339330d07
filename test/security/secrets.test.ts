import {existsSync, utimesSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {spellings} from '../../src/api/redact.js'
import {tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/context.js'
import {startHostileGateway, type HostileGateway} from '../helpers/hostile-gateway.js'
import {startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

/** Secrets in every spelling, and temporary files that never outlive their command. */
describe('secrets', () => {
  let sandbox: Sandbox
  let hostile: HostileGateway
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  const SECRET = 's3cr3t/+= wé"\\x&%'

  beforeAll(async () => {
    sandbox = await startTestSandbox({clients: [{clientId: 'odd', clientSecret: SECRET, scopes: ['transaction', 'deposit', 'withdraw']}]})
    hostile = await startHostileGateway(sandbox.baseUrl)
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
  })
  afterAll(async () => {
    await hostile.close()
    await sandbox.close()
    config.remove()
  })

  it('knows the spellings a secret comes back in: raw, form and percent encoded (both cases of hex), JSON-escaped, base64 and Basic', () => {
    const all = spellings(SECRET)
    expect(all).toContain(SECRET)
    expect(all).toContain(new URLSearchParams({s: SECRET}).toString().slice(2))
    expect(all).toContain(encodeURIComponent(SECRET))
    expect(all).toContain(encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()))
    expect(all).toContain(JSON.stringify(SECRET).slice(1, -1))
    for (const id of ['odd', 'sandbox', 'ab']) {
      const basic = Buffer.from(`${id}:${SECRET}`).toString('base64')
      expect(all.some((spelling) => basic.includes(spelling) && spelling.length >= basic.length - Buffer.from(`${id}:`).toString('base64').length - 4)).toBe(true)
    }
  })

  it('a token endpoint that echoes the form it was sent: no spelling of the secret in the error, in text or --json', async () => {
    hostile.echoToken = true
    try {
      for (const json of [false, true]) {
        const result = await runCommand(['login', '--base-url', hostile.baseUrl, '--client-id', 'odd', ...(json ? ['--json'] : [])], {env: {...env, GATEWAY_CLIENT_SECRET: SECRET}})
        expect(result.code).toBe(3)
        const shown = `${result.stdout}\n${result.stderr}`
        expect(shown).toContain('client_secret=[REDACTED]')
        for (const spelling of spellings(SECRET)) expect(shown).not.toContain(spelling)
      }
    } finally {
      hostile.echoToken = false
    }
  })

  it('a temporary file a killed write left, holding a token, is swept by the next command (once old) and by logout (at once)', async () => {
    expect((await runCommand(['login', '--base-url', sandbox.baseUrl, '--client-id', 'odd'], {env: {...env, GATEWAY_CLIENT_SECRET: SECRET}})).code).toBe(0)
    const stale = join(config.dir, 'tokens.json.tmp-1764000000abcdef')
    const fresh = join(config.dir, 'tokens.json.tmp-1764000001abcdef')
    const leftover = JSON.stringify({default: {accessToken: 'eyJ.leftover.token'}})
    writeFileSync(stale, leftover, {mode: 0o600})
    const old = new Date(Date.now() - 5 * 60_000)
    utimesSync(stale, old, old)
    writeFileSync(fresh, leftover, {mode: 0o600})
    expect((await runCommand(['auth', 'status'], {env})).code).toBe(0)
    // Old: a killed write's. Young: maybe another process's write under way, so it stays outside the lock.
    expect([existsSync(stale), existsSync(fresh)]).toEqual([false, true])
    expect((await runCommand(['logout'], {env})).code).toBe(0)
    expect(existsSync(fresh)).toBe(false)
  })
})
