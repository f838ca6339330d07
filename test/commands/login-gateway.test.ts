import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {createServer, type Server} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCommand} from '../helpers/context.js'
import {startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

/**
 * There is no default gateway: `login` sends a secret only where --base-url, GATEWAY_BASE_URL or the
 * profile says; nor does any command send GATEWAY_CLIENT_SECRET to a gateway nobody named. A
 * listener on the sandbox's usual address (127.0.0.1:4010) counts the connections it is offered:
 * whatever listens there on a shared machine, it gets nothing.
 */
describe('where a login goes', () => {
  let listener: Server | undefined
  let connections = 0
  let sandbox: Sandbox
  let base: string

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    base = mkdtempSync(join(tmpdir(), 'gateway-login-'))
    listener = await new Promise<Server | undefined>((resolve) => {
      const server = createServer((socket) => {
        connections++
        socket.destroy()
      })
      server.once('error', () => resolve(undefined))
      server.listen(4010, '127.0.0.1', () => resolve(server))
    })
    if (!listener) console.log('[note] 127.0.0.1:4010 is taken on this machine: the connection count is left out')
  })
  afterAll(async () => {
    await sandbox.close()
    await new Promise((resolve) => (listener ? listener.close(resolve) : resolve(undefined)))
    rmSync(base, {recursive: true, force: true})
  })

  it('login without --base-url, GATEWAY_BASE_URL or a profile that has one: exit 2 naming them, nothing sent', async () => {
    const env = {GATEWAY_CONFIG_DIR: join(base, 'fresh')}
    const result = await runCommand(['login', '--client-id', 'my-client', '--client-secret-stdin'], {env, input: 'the-operators-secret'})
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toMatch(/--base-url/)
    expect(result.stderr).toMatch(/GATEWAY_BASE_URL/)
    expect(result.stderr).toMatch(/sandbox start/)
    const json = await runCommand(['login', '--client-id', 'my-client', '--json'], {env: {...env, GATEWAY_CLIENT_SECRET: 'the-operators-secret'}})
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stdout).error.message).toMatch(/there is no default/)
    if (listener) expect(connections).toBe(0)
  })

  it('a command with GATEWAY_CLIENT_SECRET and no gateway named: exit 2, nothing sent', async () => {
    const env = {GATEWAY_CONFIG_DIR: join(base, 'fresh-env'), GATEWAY_CLIENT_ID: 'my-client', GATEWAY_CLIENT_SECRET: 'the-operators-secret'}
    for (const args of [['tx', 'get', '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11'], ['deposits', 'list'], ['auth', 'status']]) {
      const result = await runCommand(args, {env})
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2)
      expect(result.stderr).toMatch(/no gateway is named/)
    }
    if (listener) expect(connections).toBe(0)
  })

  it('a profile that has a base URL is logged in to again without naming it', async () => {
    const env = {GATEWAY_CONFIG_DIR: join(base, 'again')}
    expect((await runCommand(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox', '--client-secret-stdin'], {env, input: 'sandbox-secret'})).code).toBe(0)
    const again = await runCommand(['login', '--client-id', 'sandbox', '--client-secret-stdin'], {env, input: 'sandbox-secret'})
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(readFileSync(join(base, 'again', 'config.json'), 'utf8')).default.baseUrl).toBe(sandbox.baseUrl)
  })

  it('wrong credentials: the error names the URL it asked', async () => {
    const env = {GATEWAY_CONFIG_DIR: join(base, 'wrong')}
    const result = await runCommand(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox', '--client-secret-stdin'], {env, input: 'not-the-secret'})
    expect(result.code).toBe(3)
    expect(result.stderr).toContain(`the gateway at ${sandbox.baseUrl} refused the client credentials (401)`)
    expect(result.stderr).toContain(`gateway login --base-url ${sandbox.baseUrl}`)
  })

  it('every login example of the help names its gateway', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../oclif.manifest.json', import.meta.url), 'utf8')) as {commands: Record<string, {examples?: Array<string | {command: string}>}>}
    const logins: string[] = []
    for (const [id, command] of Object.entries(manifest.commands)) {
      for (const example of command.examples ?? []) {
        const line = (typeof example === 'string' ? example : example.command).replaceAll('<%= config.bin %>', 'gateway').replaceAll('<%= command.id %>', id.replaceAll(':', ' '))
        if (/\bgateway login\b/.test(line)) logins.push(line)
      }
    }
    expect(logins.length).toBeGreaterThan(3)
    for (const line of logins) expect(line, line).toMatch(/--base-url \S+/)
  })
})
