import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

const NOW = Date.parse('2026-11-20T15:00:00.000Z')

describe('webhooks resend', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  const cli = (args: string[], extra: {env?: Record<string, string>; now?: () => number} = {}) =>
    runCommand(['webhooks', 'resend', ...args], {env: {...env, ...extra.env}, now: extra.now})

  const expectNothingSent = async (args: string[], message: RegExp, code = 2) => {
    const before = await stats(sandbox.baseUrl)
    const result = await cli(args, {now: () => NOW})
    expect(result.code).toBe(code)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(message)
    expect((await stats(sandbox.baseUrl)).byRoute['POST /dispatcher/request/resend'] ?? 0).toBe(before.byRoute['POST /dispatcher/request/resend'] ?? 0)
    return result
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir, TZ: 'America/Sao_Paulo'}
    await logIn(sandbox.baseUrl, env)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  describe('offline checks', () => {
    it.each([
      [[], /^Error: say which notifications to resend: --reference-id ID, or a date range with --from/m],
      [['--status', 'FAILED'], /^Error: say which notifications to resend/m],
      [['--reference-id', 'abc', '--from', '1h'], /^Error: choose one selection: --reference-id, or a date range with --from\/--to, not both$/m],
      [['--reference-id', 'abc', '--to', '1h'], /^Error: choose one selection/m],
      [['--to', '1h'], /^Error: --from is required with --to: the range needs its start$/m],
      [['--from', '2026-11-20T16:00:00Z'], /^Error: --from must not be in the future: 2026-11-20T16:00:00Z is after now \(2026-11-20T15:00:00.000Z\)$/m],
      [['--from', '1h', '--to', '2026-11-21T00:00:00Z'], /^Error: --to must not be in the future/m],
      [['--from', '1h', '--to', '2h'], /^Error: --from must not be after --to: 2026-11-20T14:00:00.000Z is after 2026-11-20T13:00:00.000Z$/m],
      [['--from', 'anteontem'], /^Error: --from must be a date: DD\/MM\/AAAA .*; got "anteontem"$/m],
      [['--reference-id', 'abc', '--status', 'DELIVERED'], /^Error: --status must be one of RECEIVED, SENT, FAILED, ERROR, got "DELIVERED"$/m],
      [['--reference-id', 'abc', ...Array.from({length: 11}, (_, index) => ['--tag', `t${index}`]).flat()], /^Error: --tag must hold at most 10 tags$/m],
      [['--reference-id', 'abc', '--override-url', 'http://hooks.example.com'], /^Error: --override-url must use https unless its host is loopback/m],
    ])('refuses %j with exit 2 before sending', async (args, message) => {
      await expectNothingSent(args, message)
    })

    it('exits 3 before sending when the token lacks resend_dispatcher, naming the scope and what to do', async () => {
      const limited = tempConfigDir()
      try {
        const limitedEnv = {GATEWAY_CONFIG_DIR: limited.dir}
        const login = await runCommand(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox-limited'], {
          env: {...limitedEnv, GATEWAY_CLIENT_SECRET: 'sandbox-secret'},
        })
        expect(login.code).toBe(0)
        const before = await stats(sandbox.baseUrl)
        const result = await runCommand(['webhooks', 'resend', '--reference-id', 'abc', '--json'], {env: limitedEnv})
        expect(result.code).toBe(3)
        const {error} = JSON.parse(result.stdout)
        expect(error).toMatchObject({code: 'FORBIDDEN', exitCode: 3})
        expect(error.message).toContain('lacks the resend_dispatcher scope that the resend needs; nothing was sent')
        expect(error.hint).toContain('Log in with a client that has the resend_dispatcher scope')
        expect((await stats(sandbox.baseUrl)).requests).toBe(before.requests)
      } finally {
        limited.remove()
      }
    })

    it('turns relative and bare dates into ISO date-times in the operator\'s zone', async () => {
      const {prepareResend} = await import('../../src/input/resend.js')
      const prepared = await prepareResend({from: '2026-11-19', to: '2026-11-19', status: ['failed', 'Error'], tag: ['withdrawal']}, {now: NOW, zone: 'America/Sao_Paulo'})
      expect(prepared.issues).toEqual([])
      expect(prepared.value).toEqual({
        startDate: '2026-11-19T03:00:00.000Z',
        endDate: '2026-11-20T02:59:59.999Z',
        status: ['FAILED', 'ERROR'],
        tags: ['withdrawal'],
      })
      const relative = await prepareResend({from: '10m'}, {now: NOW})
      expect(relative.value).toEqual({startDate: '2026-11-20T14:50:00.000Z', endDate: '2026-11-20T15:00:00.000Z'})
      expect(relative.notes).toEqual(['--to defaults to now: 2026-11-20T15:00:00.000Z'])
    })

    it('reads the dates an operator in Brazil types; --to today (or today\'s date) ends now, not in the future', async () => {
      const {prepareResend} = await import('../../src/input/resend.js')
      const sp = {now: NOW, zone: 'America/Sao_Paulo'}
      const brazilian = await prepareResend({from: '19/11/2026 08:30', to: '19/11/2026'}, sp)
      expect(brazilian.value).toEqual({startDate: '2026-11-19T11:30:00.000Z', endDate: '2026-11-20T02:59:59.999Z'})
      for (const to of ['today', '20/11/2026', '2026-11-20']) {
        const today = await prepareResend({from: 'yesterday', to}, sp)
        expect(today.issues, to).toEqual([])
        expect(today.value, to).toEqual({startDate: '2026-11-19T03:00:00.000Z', endDate: '2026-11-20T15:00:00.000Z'})
        expect(today.notes, to).toEqual([`--to ${to} ends now: 2026-11-20T15:00:00.000Z`])
      }
      // A time of day in the future is still refused: it was meant as written.
      expect((await prepareResend({from: 'yesterday', to: '20/11/2026 23:00'}, sp)).issues).toEqual([{path: 'endDate', message: expect.stringMatching(/^must not be in the future/)}])
    })
  })
})
