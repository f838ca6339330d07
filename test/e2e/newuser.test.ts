import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, runInTerminal, tempConfigDir, unstamped} from '../helpers/cli.js'
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

  it.each([
    [80, ['deposits', 'list', '--no-interactive']],
    [80, ['deposits', 'summary', '--chart', 'none']],
    [60, ['deposits', 'summary', '--chart', 'none']],
  ])('at %i columns no row of %j is wider than the terminal, and no amount or day is cut', async (cols, command) => {
    for (const args of [command]) {
      const result = await runInTerminal(args, {env, cols})
      expect(result.code).toBe(0)
      const lines = result.output.replace(/\u001B\[[0-9;]*[A-Za-z]/g, '').split(/\r?\n/)
      const rows = lines.filter((line) => line.startsWith('│'))
      expect(rows.length).toBeGreaterThan(2)
      for (const line of lines.filter((text) => /^[┌│├└]/.test(text))) expect(line.length, line).toBeLessThanOrEqual(cols)
      // Money whole, with its cents; days whole; nothing of them cut with an ellipsis.
      for (const row of rows.slice(1)) {
        expect(row).toMatch(/R\$ [\d.]+,\d{2}/)
        expect(row).toMatch(/\b\d{4}-\d{2}-\d{2}\b|│ Total /)
        expect(row).not.toMatch(/R\$ [\d.,]*…|\d{4}-\d{2}-\d?…/)
      }
      expect(result.output).toMatch(/To fit \d+ columns: /)
    }
  })

  it('a mistyped command is one line in one style, exit 2, in a pipe and in a terminal', async () => {
    const piped = await runCli(['tx', 'creat', '--amount', '1000'], {env})
    expect(piped.code).toBe(2)
    expect(piped.stdout).toBe('')
    expect(piped.stderr).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z Error: /)
    expect(unstamped(piped.stderr)).toBe('Error: tx creat is not a gateway command; did you mean tx create? (gateway --help lists them)\n')
    // Nothing is asked in a terminal either: an Enter typed after the line runs nothing.
    const shown = await runInTerminal(['tx', 'creat', '--amount', '1000'], {env, steps: [{expect: 'did you mean', send: '\r'}]})
    expect(shown.code).toBe(2)
    expect(shown.output).not.toMatch(/Warning|Did you mean|\(Y\/n\)/)
    expect(shown.output.match(/is not a gateway command/g)).toHaveLength(1)
  })
})

describe('an export cut short by a signal', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 3000, latencyMs: 40})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    expect((await runCli(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox'], {env: {...env, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})).code).toBe(0)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  it('Ctrl-C in a terminal during deposits list --all: exit 130, and it says what was written and that it is partial', async () => {
    const result = await runInTerminal(['deposits', 'list', '--all', '--per-page', '20', '--concurrency', '1', '--output', 'csv'], {
      env,
      steps: [{expect: 'id,createdAt,updatedAt', send: '\u0003'}],
    })
    expect(result.code).toBe(130)
    expect(result.output).toMatch(/Interrupted \(SIGINT\): the export stopped after page \d+ of 150, with \d+ deposits written\. The output is incomplete: run the export again\./)
  })

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s during deposits list --all: exit %i, and stderr says what was written and that it is partial', async (signal, code) => {
    const {spawn} = await import('node:child_process')
    const {BIN, cleanEnv} = await import('../helpers/cli.js')
    const child = spawn(process.execPath, [BIN, 'deposits', 'list', '--all', '--per-page', '20', '--concurrency', '1', '--output', 'csv'], {env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const started = new Promise<void>((resolve) =>
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk
        if (stdout.split('\n').length > 30) resolve()
      }),
    )
    await started
    child.kill(signal)
    const exit = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(exit).toBe(code)
    const written = Number(/with (\d+) deposits written/.exec(stderr)?.[1])
    expect(stderr).toMatch(new RegExp(`^Interrupted \\(${signal}\\): the export stopped after page \\d+ of 150, with \\d+ deposits written\\. The output is incomplete: run the export again\\.$`, 'm'))
    // What it says was written is what stdout holds: the header and one line per deposit.
    expect(stdout.trimEnd().split('\n')).toHaveLength(written + 1)
  })
})
