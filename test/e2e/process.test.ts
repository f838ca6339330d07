import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, tempConfigDir, unstamped} from '../helpers/cli.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

/**
 * What only a real process shows: its exit code (oclif's own would be 1 under --json), and that a
 * pipe gets no colour. Every other behaviour is tested in-process through the command context.
 */
describe('the built CLI as a process', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    const login = await runCli(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox'], {env: {...env, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
    expect(login.code).toBe(0)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  it('takes global flags before the command, as completion offers them: gateway --profile NAME tx get ID', async () => {
    const id = '00000000-0000-4000-8000-000000000000'
    // The default profile is logged in: the lookup reaches the gateway and finds nothing (4).
    const before = await runCli(['--json', 'tx', 'get', id], {env})
    expect(before.code).toBe(4)
    expect(JSON.parse(before.stdout).error).toMatchObject({code: 'NOT_FOUND'})
    // Another profile, named before the command, is the one used: it has no login (3), and its name is said.
    const other = await runCli(['--profile', 'prod', 'tx', 'get', id], {env})
    expect(other.code).toBe(3)
    expect(unstamped(other.stderr)).toMatch(/^Error: not logged in: no client credentials are stored for profile "prod"/)
    const inline = await runCli(['--profile=prod', '--timeout', '5s', 'deposits', 'list'], {env})
    expect(inline.code).toBe(3)
    expect(inline.stderr).toMatch(/profile "prod"/)
    // A flag that is not global, or no command at all, is a usage error in one line.
    const notGlobal = await runCli(['--amount', '100', 'tx', 'create'], {env})
    expect(notGlobal.code).toBe(2)
    expect(unstamped(notGlobal.stderr)).toBe('Error: --amount is not a flag every command takes: give the command first (gateway COMMAND --amount …; gateway --help lists the commands)\n')
    const none = await runCli(['--profile', 'prod'], {env})
    expect(none.code).toBe(2)
    expect(unstamped(none.stderr)).toBe('Error: no command given (gateway --help lists them)\n')
  })

  it.each([
    [['tx', 'create', '--amount', '10.00'], 2, 'USAGE'],
    [['tx', 'create', '--ammount', '100'], 2, 'USAGE'],
    [['tx', 'get', '00000000-0000-4000-8000-000000000000'], 4, 'NOT_FOUND'],
    [['sandbox', 'refund', '00000000-0000-4000-8000-000000000000'], 4, 'NOT_FOUND'],
  ])('%j exits %i, as text and under --json', async (args, code, name) => {
    const text = await runCli(args, {env})
    expect(text.code).toBe(code)
    expect(text.stdout).toBe('')
    // stderr is a pipe: the line starts with the time, for a log.
    expect(text.stderr).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z Error: /)
    const json = await runCli([...args, '--json'], {env})
    expect(json.code).toBe(code)
    // Under --json the document is on stdout, on one line (a pipe), and the error's line on stderr as well.
    expect(json.stdout.trimEnd().split('\n')).toHaveLength(1)
    expect(JSON.parse(json.stdout).error).toMatchObject({code: name, exitCode: code})
    expect(json.stderr.replace(/^\S+ /, '')).toBe(text.stderr.replace(/^\S+ /, ''))
  })

  it('exits 3 without a login and 7 when the gateway cannot be reached', async () => {
    const other = tempConfigDir()
    try {
      const none = await runCli(['auth', 'token', '--json'], {env: {GATEWAY_CONFIG_DIR: other.dir}})
      expect(none.code).toBe(3)
      const down = await runCli(['tx', 'get', '00000000-0000-4000-8000-000000000000', '--base-url', 'http://127.0.0.1:9', '--json'], {
        env: {GATEWAY_CONFIG_DIR: other.dir, GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'},
      })
      expect(down.code).toBe(7)
      expect(JSON.parse(down.stdout).error.code).toBe('UNAVAILABLE')
    } finally {
      other.remove()
    }
  })

  it('writes no colour and no spinner into a pipe, and sends nothing for refused input', async () => {
    const before = (await stats(sandbox.baseUrl)).requests
    const refused = await runCli(['tx', 'create', '--amount', '-5'], {env})
    expect(refused.code).toBe(2)
    expect((await stats(sandbox.baseUrl)).requests).toBe(before)
    const created = await runCli(['tx', 'create', '--amount', '100'], {env})
    expect(created.code).toBe(0)
    expect(created.stdout + created.stderr).not.toMatch(/\u001B\[/)
  })
})
