import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, runInTerminal, tempConfigDir, unstamped} from '../helpers/cli.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

const ANSI = /\u001B\[[0-9;?]*[A-Za-z]/g

/** A mistyped command is never run, nor offered to be run: one line naming the closest command, exit 2, nothing sent. */
describe('a mistyped command', () => {
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

  const cases = [
    {argv: ['tx', 'craete', '--amount', '100'], line: 'tx craete is not a gateway command; did you mean tx create? (gateway --help lists them)'},
    {argv: ['withdrw', '--amount', '100', '--pix-key', 'maria@example.com'], line: 'withdrw is not a gateway command; did you mean withdraw? (gateway --help lists them)'},
  ]

  it.each(cases)('$argv.0 $argv.1 in a pipe: one line, exit 2, nothing sent', async ({argv, line}) => {
    const before = (await stats(sandbox.baseUrl)).requests
    const result = await runCli(argv, {env, input: '\n'})
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(unstamped(result.stderr)).toBe(`Error: ${line}\n`)
    expect((await stats(sandbox.baseUrl)).requests).toBe(before)
  })

  it.each(cases)('$argv.0 $argv.1 in a terminal: the same line, nothing asked, and an Enter typed after it runs nothing', async ({argv, line}) => {
    const before = (await stats(sandbox.baseUrl)).requests
    const result = await runInTerminal(argv, {env, steps: [{expect: 'did you mean', send: '\r'}]})
    expect(result.code).toBe(2)
    const screen = result.output.replace(ANSI, '')
    expect(screen).toContain(`Error: ${line}`)
    expect(screen).not.toMatch(/Did you mean|\(Y\/n\)|\[y\/N\]|Withdraw R\$|Creating the charge/)
    expect((await stats(sandbox.baseUrl)).requests).toBe(before)
    expect(sandbox.domain.withdrawals.all()).toHaveLength(0)
  })
})
