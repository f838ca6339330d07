import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, runInTerminal, tempConfigDir} from '../helpers/cli.js'
import {startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

const ANSI = /\u001B\[[0-9;]*m/g

/** What needs a real process for `withdraw`: no terminal at all, and a prompt in a real one. */
describe('withdraw as a process', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  const withdrawals = async () => ((await (await fetch(`${sandbox.baseUrl}/_sandbox/withdrawals`)).json()) as {total: number}).total

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

  it('refuses without a terminal and without --yes: exit 2, and the sandbox holds no withdrawal', async () => {
    const result = await runCli(['withdraw', '--amount', '1000', '--pix-key', '529.982.247-25'], {env})
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('Error: a withdrawal sends money: confirm it with --yes when there is no terminal to ask in (nothing was sent)')
    expect(await withdrawals()).toBe(0)
  })

  it('asks in a terminal, showing amount, key and type; "no" (and Enter alone) send nothing', async () => {
    for (const answer of ['n\r', '\r']) {
      const result = await runInTerminal(['withdraw', '--amount', '123456', '--pix-key', '529.982.247-25'], {
        env,
        steps: [{expect: '\\[y/N\\] ', send: answer}],
      })
      expect(result.code).toBe(2)
      const screen = result.output.replace(ANSI, '')
      expect(screen).toContain('Withdraw R$ 1.234,56 to the CPF key 52998224725? [y/N]')
      expect(screen).toContain('Error: not confirmed: nothing was sent')
    }
    expect(await withdrawals()).toBe(0)
  })

  it('Ctrl-C at the prompt ends the run, nothing sent', async () => {
    const result = await runInTerminal(['withdraw', '--amount', '100', '--pix-key', '529.982.247-25'], {
      env,
      steps: [{expect: '\\[y/N\\] ', send: '\u0003'}],
    })
    // Ended by the SIGINT itself, as Ctrl-C ends any program (a shell reports 130).
    expect(result.code).toBe(-2)
    expect(result.output.replace(ANSI, '')).not.toContain('Withdrawal created')
    expect(await withdrawals()).toBe(0)
  })

  it('sends exactly once on "yes"', async () => {
    const result = await runInTerminal(['withdraw', '--amount', '5000', '--pix-key', 'maria@example.com'], {
      env,
      steps: [{expect: '\\[y/N\\] ', send: 'yes\r'}],
    })
    expect(result.code).toBe(0)
    const screen = result.output.replace(ANSI, '')
    expect(screen).toContain('Withdraw R$ 50,00 to the EMAIL key maria@example.com? [y/N]')
    expect(screen).toContain('✓ Withdrawal created')
    expect(await withdrawals()).toBe(1)
    expect(sandbox.domain.withdrawals.all()[0]).toMatchObject({amount: 5000, pixKey: 'maria@example.com', pixKeyType: 'EMAIL', status: 'PENDING'})
  })
})
