import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, runInTerminal, tempConfigDir} from '../helpers/cli.js'
import {startTestSandbox, stats, tokenFor, type Sandbox} from '../helpers/sandbox.js'

const CLEAR = '\u001B[2J\u001B[H'
const ANSI = /\u001B\[[0-9;]*m/g

/** The ids of deposits in the rows of a drawn table (the footer's snapshot id is not one). */
const idsIn = (screen: string) =>
  screen
    .split('\n')
    .filter((line) => line.startsWith('│'))
    .flatMap((line) => /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(line) ?? [])

describe('in a terminal', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 95})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  it('prompts for the secret without echoing it', async () => {
    const result = await runInTerminal(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox'], {
      env,
      steps: [{expect: 'Client secret: ', send: 'sandbox-secret\r'}],
    })
    expect(result.code).toBe(0)
    expect(result.output).toContain('Logged in to')
    expect(result.output).not.toContain('sandbox-secret')
  })

  it('leaves the secret prompt on Ctrl-C with exit 130, nothing echoed', async () => {
    const result = await runInTerminal(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox'], {
      env,
      steps: [{expect: 'Client secret: ', send: 'half-typed\u0003'}],
    })
    expect(result.code).toBe(130)
    expect(result.output).not.toContain('half-typed')
  })

  it('pages through deposits with n, p and q, each page from the same snapshot', async () => {
    const before = await stats(sandbox.baseUrl)
    const result = await runInTerminal(['deposits', 'list', '--per-page', '20'], {
      env,
      steps: [
        {expect: 'Page 1 of 5', send: 'n'},
        {expect: 'Page 2 of 5', send: 'n'},
        {expect: 'Page 3 of 5', send: 'p'},
        {expect: 'Page 2 of 5', send: 'p'},
        {expect: 'Page 1 of 5', send: 'p'},
        {expect: 'first page', send: 'q'},
      ],
    })
    expect(result.code).toBe(0)
    const screens = result.output.split(CLEAR).map((screen) => screen.replace(ANSI, '')).filter((screen) => screen.includes('Page '))
    expect(screens.map((screen) => /Page (\d) of 5/.exec(screen)?.[1])).toEqual(['1', '2', '3', '2', '1', '1'])
    const snapshot = /snapshot (\S+)/.exec(screens[0])![1]
    for (const screen of screens) expect(screen).toContain(`snapshot ${snapshot}`)

    // Five screens from five requests: one for each key that moved, none for the refused move.
    const after = await stats(sandbox.baseUrl)
    expect(after.byRoute['GET /core/deposit'] - (before.byRoute['GET /core/deposit'] ?? 0)).toBe(5)
    // Each screen shows exactly the snapshot's page, as the gateway serves it.
    const token = await tokenFor(sandbox.baseUrl)
    for (const [index, page] of [1, 2, 3].entries()) {
      const response = await fetch(`${sandbox.baseUrl}/core/deposit?perPage=20&page=${page}&snapshot=${snapshot}`, {
        headers: {authorization: `Bearer ${token}`},
      })
      const body = (await response.json()) as {data: Array<{id: string}>}
      expect(idsIn(screens[index])).toEqual(body.data.map((row) => row.id))
    }
  })

  it('does not page with --no-interactive, and prints the next page command', async () => {
    const result = await runInTerminal(['deposits', 'list', '--per-page', '50', '--no-interactive'], {env})
    expect(result.code).toBe(0)
    expect(result.output).not.toContain(CLEAR)
    expect(result.output).toMatch(/Next page: gateway deposits list --per-page 50 --snapshot \S+ --page 2/)
  })

  it('draws the QR code and colours a terminal, and drops colour under NO_COLOR', async () => {
    const coloured = await runInTerminal(['tx', 'create', '--amount', '1000'], {env})
    expect(coloured.code).toBe(0)
    expect(coloured.output).toMatch(/[▄█▀]{10}/)
    expect(coloured.output).toMatch(ANSI)
    const plain = await runInTerminal(['tx', 'create', '--amount', '1000'], {env: {...env, NO_COLOR: '1'}})
    expect(plain.code).toBe(0)
    expect(plain.output).toMatch(/[▄█▀]{10}/)
    expect(plain.output).not.toMatch(ANSI)
  })

  it('keeps a pipe free of colour and of the pager', async () => {
    const result = await runCli(['deposits', 'list', '--per-page', '20'], {env})
    expect(result.code).toBe(0)
    expect(result.stdout).not.toMatch(ANSI)
    expect(result.stdout).not.toContain(CLEAR)
    expect(idsIn(result.stdout)).toHaveLength(20)
  })
})
