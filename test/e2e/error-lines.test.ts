import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, runInTerminal, tempConfigDir} from '../helpers/cli.js'

const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /
const ANSI = /\u001B\[[0-9;]*m/g

/** What a failure writes, in a terminal and into a log, as a real process shows it. */
describe('a failure, in a terminal and in a log', () => {
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  beforeAll(() => {
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
  })
  afterAll(() => config.remove())

  it('into a log (stderr not a terminal): each line starts with the time, ISO 8601 in UTC, close to now', async () => {
    const before = Date.now()
    const result = await runCli(['tx', 'create', '--amount', '10.00'], {env})
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(new RegExp(`${STAMP.source}Error: --amount takes integer cents`))
    const at = Date.parse(result.stderr.split(' ')[0])
    expect(at).toBeGreaterThanOrEqual(before - 1000)
    expect(at).toBeLessThanOrEqual(Date.now() + 1000)
  })

  it('in a terminal: the line as it was, without the time', async () => {
    const result = await runInTerminal(['tx', 'create', '--amount', '10.00'], {env})
    expect(result.code).toBe(2)
    const lines = result.output.replace(ANSI, '').replace(/\r/g, '').split('\n').filter(Boolean)
    expect(lines).toContain('Error: --amount takes integer cents, not a decimal: 10.00 is --amount 1000')
    for (const line of lines) expect(line).not.toMatch(STAMP)
  })

  it('under --json: the document on stdout, compact into a pipe and indented in a terminal; the line on stderr too', async () => {
    const piped = await runCli(['auth', 'token', '--json'], {env})
    expect(piped.code).toBe(3)
    expect(piped.stdout.endsWith('\n')).toBe(true)
    expect(piped.stdout.trimEnd()).not.toContain('\n')
    expect(JSON.parse(piped.stdout).error).toMatchObject({exitCode: 3})
    expect(piped.stderr).toMatch(new RegExp(`${STAMP.source}Error: not logged in`))

    const shown = await runInTerminal(['auth', 'token', '--json'], {env})
    expect(shown.code).toBe(3)
    const text = shown.output.replace(ANSI, '').replace(/\r/g, '')
    expect(text).toContain('{\n  "error": {\n')
    expect(text).toMatch(/^Error: not logged in/m)
  })
})
