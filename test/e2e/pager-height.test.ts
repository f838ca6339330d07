import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, runInTerminal, tempConfigDir} from '../helpers/cli.js'
import {startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

const CLEAR = '\u001B[2J\u001B[H'
const ANSI = /\u001B\[[0-9;]*m/g

/** Each screen the pager drew, colours removed, as the lines it holds. */
const screensOf = (output: string) =>
  output
    .split(CLEAR)
    .map((screen) => screen.replace(ANSI, '').replace(/\r/g, ''))
    .filter((screen) => screen.includes('Page '))
    .map((screen) => screen.replace(/\n$/, '').split('\n'))

/** The pager in an 80×24 terminal: a page fits the screen, so the table's header never scrolls away. */
describe('the pager in an 80x24 terminal', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 95})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    const login = await runCli(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox'], {env: {...env, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
    expect(login.code).toBe(0)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  it('asks for as many deposits a page as fit, header and status line included', async () => {
    const result = await runInTerminal(['deposits', 'list'], {env, cols: 80, rows: 24, steps: [{expect: 'Page 1 of', send: 'n'}, {expect: 'Page 2 of', send: 'q'}]})
    expect(result.code).toBe(0)
    const screens = screensOf(result.output)
    expect(screens.length).toBeGreaterThanOrEqual(2)
    for (const lines of screens) {
      // The last line is left for the cursor: 23 lines drawn at most.
      expect(lines.length, lines.join('\n')).toBeLessThanOrEqual(23)
      expect(lines[0]).toMatch(/^┌/)
      expect(lines[1]).toMatch(/^│ ID /)
      expect(lines.filter((line) => /^│ [0-9a-f]{8}-/.test(line)).length).toBeGreaterThan(10)
    }
    // 95 deposits at 16 a page (the table's header and note, the status line and the cursor's line take 8 of 24).
    expect(screens[0].at(-1)).toMatch(/Page 1 of 6/)
  })

  it('with a --per-page taller than the terminal, keeps the header and says how many lines it left out', async () => {
    const result = await runInTerminal(['deposits', 'list', '--per-page', '40'], {env, cols: 80, rows: 24, steps: [{expect: 'Page 1 of', send: 'q'}]})
    expect(result.code).toBe(0)
    const [lines] = screensOf(result.output)
    expect(lines.length, lines.join('\n')).toBeLessThanOrEqual(23)
    expect(lines[1]).toMatch(/^│ ID /)
    expect(lines.join('\n')).toMatch(/… \d+ more lines: a taller terminal shows them/)
    expect(lines.at(-1)).toMatch(/Page 1 of 3/)
  })
})
