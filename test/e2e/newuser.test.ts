import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, runInTerminal, tempConfigDir} from '../helpers/cli.js'
import {startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

/** What a new user met first, as a real process shows it: the pager's Ctrl-C, a mistyped command. */
describe('a new user, in a real process', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 60})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    expect((await runCli(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox'], {env: {...env, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})).code).toBe(0)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  it('Ctrl-C in the pager exits 130, as the exit-code table says (q still exits 0)', async () => {
    const interrupted = await runInTerminal(['deposits', 'list'], {env, steps: [{expect: 'Page 1 of', send: '\u0003'}]})
    expect(interrupted.code).toBe(130)
    const quit = await runInTerminal(['deposits', 'list'], {env, steps: [{expect: 'Page 1 of', send: 'q'}]})
    expect(quit.code).toBe(0)
  })

  it('a mistyped command is one line in one style, exit 2, in a pipe and in a terminal', async () => {
    const piped = await runCli(['tx', 'creat', '--amount', '1000'], {env})
    expect(piped.code).toBe(2)
    expect(piped.stdout).toBe('')
    expect(piped.stderr).toBe('Error: tx creat is not a gateway command; did you mean gateway tx create? (gateway --help lists them)\n')
    const shown = await runInTerminal(['tx', 'creat', '--amount', '1000'], {env, steps: [{expect: 'Did you mean', send: 'n\r'}]})
    expect(shown.code).toBe(2)
    expect(shown.output).not.toMatch(/Warning/)
    expect(shown.output.match(/is not a gateway command/g)).toHaveLength(1)
  })
})
