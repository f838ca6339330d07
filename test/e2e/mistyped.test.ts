import {describe, expect, it} from 'vitest'

import {runCli, runInTerminal, unstamped} from '../helpers/cli.js'
import {stats} from '../helpers/sandbox.js'
import {loggedInSandbox} from '../helpers/world.js'

const ANSI = /\u001B\[[0-9;?]*[A-Za-z]/g

/** A mistyped command is never run, nor offered to be run: one line naming the closest command, exit 2, nothing sent. */
describe('a mistyped command', () => {
  const world = loggedInSandbox()

  const cases = [
    {argv: ['tx', 'craete', '--amount', '100'], line: 'tx craete is not a gateway command; did you mean tx create? (gateway --help lists them)'},
    {argv: ['withdrw', '--amount', '100', '--pix-key', 'maria@example.com'], line: 'withdrw is not a gateway command; did you mean withdraw? (gateway --help lists them)'},
  ]

  it.each(cases)('$argv.0 $argv.1 in a pipe: one line, exit 2, nothing sent', async ({argv, line}) => {
    const before = (await stats(world.sandbox.baseUrl)).requests
    const result = await runCli(argv, {env: world.env, input: '\n'})
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(unstamped(result.stderr)).toBe(`Error: ${line}\n`)
    expect((await stats(world.sandbox.baseUrl)).requests).toBe(before)
  })

  it.each(cases)('$argv.0 $argv.1 in a terminal: the same line, nothing asked, and an Enter typed after it runs nothing', async ({argv, line}) => {
    const before = (await stats(world.sandbox.baseUrl)).requests
    const result = await runInTerminal(argv, {env: world.env, steps: [{expect: 'did you mean', send: '\r'}]})
    expect(result.code).toBe(2)
    const screen = result.output.replace(ANSI, '')
    expect(screen).toContain(`Error: ${line}`)
    expect(screen).not.toMatch(/Did you mean|\(Y\/n\)|\[y\/N\]|Withdraw R\$|Creating the charge/)
    expect((await stats(world.sandbox.baseUrl)).requests).toBe(before)
    expect(world.sandbox.domain.withdrawals.all()).toHaveLength(0)
  })
})
