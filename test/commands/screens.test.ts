import {chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand, type RunOptions} from '../helpers/context.js'
import {control, startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

const CLEAR = '\u001B[2J\u001B[H'
// eslint-disable-next-line no-control-regex
const SEQUENCES = /\u001B\[[0-9;?]*[A-Za-z]/g
const DEPOSIT_ROW = /^│ [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} │/
const WHOLE_AMOUNT = /│ +R\$ \d{1,3}(\.\d{3})*,\d{2} │/
const isQrLine = (line: string) => line.length >= 21 && /^[█▀▄ ]+$/.test(line)

/**
 * The commands at a given terminal size, in this process, through the command context: what CI
 * checks on every machine, with or without a pseudo-terminal or tmux. And --quiet and
 * --output-file, as a cron line uses them.
 */
describe('screens at a given size, --quiet and --output-file', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  let folder: string

  const cli = (args: string[], options: RunOptions = {}) => runCommand(args, {env, ...options})
  const terminal = (columns: number, rows: number, keys: string[] = []): RunOptions => ({tty: {stdout: true, stderr: true, stdin: true}, columns, rows, keys, env: {...env, NO_COLOR: '1'}})

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 95})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
    folder = mkdtempSync(join(tmpdir(), 'gateway-screens-'))
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
    rmSync(folder, {recursive: true, force: true})
  })

  for (const [columns, rows] of [
    [80, 24],
    [60, 24],
    [100, 30],
  ]) {
    it(`deposits list pages at ${columns}×${rows}: each screen fits, the header in view, amounts whole`, async () => {
      const result = await cli(['deposits', 'list'], terminal(columns, rows, ['n', 'q']))
      expect(result.code, result.stderr).toBe(0)
      const screens = result.stdout
        .split(CLEAR)
        .filter((screen) => screen.includes('Page '))
        .map((screen) => screen.replace(/\n$/, '').split('\n'))
      expect(screens).toHaveLength(2)
      for (const lines of screens) {
        expect(lines.length, lines.join('\n')).toBeLessThanOrEqual(rows - 1)
        for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns)
        expect(lines[1]).toMatch(/^│ ID /)
        const shown = lines.filter((line) => DEPOSIT_ROW.test(line))
        // As many deposits as fit, and none cut off the page.
        expect(shown.length).toBeGreaterThanOrEqual(Math.min(20, rows - 10))
        expect(lines.join('\n')).not.toMatch(/more lines: a taller terminal/)
        for (const row of shown) expect(row, row).toMatch(WHOLE_AMOUNT)
      }
    })
  }

  it('tx create draws the QR code at 80×40, whole with what follows it, and leaves it out at 80×24 saying why', async () => {
    const tall = await cli(['tx', 'create', '--amount', '1000'], terminal(80, 40))
    expect(tall.code, tall.stderr).toBe(0)
    const lines = tall.stdout.replace(/\n$/, '').split('\n')
    expect(lines.filter(isQrLine).length).toBeGreaterThan(20)
    const screenLines = lines.reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / 80)), 0)
    expect(screenLines + 1).toBeLessThanOrEqual(40)

    const short = await cli(['tx', 'create', '--amount', '1000'], terminal(80, 24))
    expect(short.code).toBe(0)
    expect(short.stdout.split('\n').filter(isQrLine)).toEqual([])
    expect(short.stderr).toMatch(/^The QR code is not drawn: the terminal is too small for it \(it needs \d+ rows with the lines below it and the terminal has 24\)\. .*--qr-png FILE.*$/m)
    expect(short.stderr).toMatch(/Get the image with `gateway tx get [0-9a-f-]{36} --qr-png FILE`/)
    expect(short.stdout).toMatch(/Pix copia e cola:\n00020126/)
  })

  it('a terminal of 0×0 gets no pager, QR code, colour or cursor codes', async () => {
    const options = {...terminal(0, 0, ['q']), env}
    const list = await cli(['deposits', 'list'], options)
    expect(list.code).toBe(0)
    expect(list.stdout).not.toContain(CLEAR)
    expect(list.stdout.split('\n').filter((line) => DEPOSIT_ROW.test(line))).toHaveLength(20)
    const charge = await cli(['tx', 'create', '--amount', '1000'], options)
    expect(charge.code).toBe(0)
    expect(charge.stdout.split('\n').filter(isQrLine)).toEqual([])
    expect(`${charge.stdout}${charge.stderr}`).not.toMatch(SEQUENCES)
    expect(charge.ctx.io).toMatchObject({stdoutTTY: false, stderrTTY: false, spinner: false, prompt: false, color: false})
  })

  describe('--quiet', () => {
    it('says nothing on stderr when a charge, a page or a summary succeeds, in a terminal too', async () => {
      for (const args of [
        ['tx', 'create', '--amount', '1000', '--quiet'],
        ['deposits', 'list', '--quiet', '--no-interactive'],
        ['deposits', 'summary', '--quiet', '--output', 'csv'],
        ['deposits', 'list', '--all', '--output', 'csv', '--quiet'],
      ]) {
        const result = await cli(args, {tty: {stderr: true}})
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
        expect(result.stderr, args.join(' ')).toBe('')
        expect(result.stdout).not.toBe('')
      }
      // Without it, the same charge says its idempotency key: --quiet is what took it away.
      expect((await cli(['tx', 'create', '--amount', '1000'])).stderr).toMatch(/^Idempotency key: /)
    })

    it('a batch that succeeds says nothing on stderr', async () => {
      const batch = join(folder, 'charges.csv')
      writeFileSync(batch, 'amount\n1000\n2000\n')
      const loud = await cli(['tx', 'create', '--batch', batch, '--yes'])
      expect(loud.code, loud.stderr).toBe(0)
      expect(loud.stderr).not.toBe('')
      const quiet = await cli(['tx', 'create', '--batch', batch, '--yes', '--quiet'])
      expect(quiet.code, quiet.stderr).toBe(0)
      expect(quiet.stderr).toBe('')
    })

    it('a failure still shows its error, after what was held back', async () => {
      const none = await cli(['tx', 'create', '--amount', '1000', '--quiet'], {env: {GATEWAY_CONFIG_DIR: join(folder, 'nobody')}})
      expect(none.code).toBe(3)
      expect(none.stderr).toMatch(/^Error: not logged in/m)

      await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', status: 503, count: 4})
      const failed = await cli(['tx', 'create', '--amount', '1000', '--quiet'], {sleep: async () => {}})
      expect(failed.code).toBe(7)
      const lines = failed.stderr.split('\n')
      const error = lines.findIndex((line) => line.startsWith('Error: '))
      expect(lines.findIndex((line) => line.startsWith('Idempotency key: '))).toBeGreaterThan(-1)
      expect(lines.findIndex((line) => line.startsWith('Idempotency key: '))).toBeLessThan(error)
    })
  })

  describe('--output-file', () => {
    it('writes the export whole to the file, 0600, and nothing to stdout', async () => {
      const file = join(folder, 'paid.csv')
      const result = await cli(['deposits', 'list', '--all', '--output', 'csv', '--output-file', file, '--quiet'])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toBe('')
      expect(result.stderr).toBe('')
      const csv = readFileSync(file, 'utf8')
      expect(csv.split('\r\n')[0]).toMatch(/^id,/)
      expect(csv.split('\r\n').filter(Boolean).length).toBeGreaterThan(95)
      expect(statSync(file).mode & 0o777).toBe(0o600)
    })

    it('leaves the previous file whole when the run fails, and no file of its own behind', async () => {
      const file = join(folder, 'kept.csv')
      writeFileSync(file, 'the previous good export\r\n')
      chmodSync(file, 0o640)
      await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'GET /core/deposit', status: 503, count: 4})
      const failed = await cli(['deposits', 'list', '--all', '--output', 'csv', '--output-file', file], {sleep: async () => {}})
      expect(failed.code).toBe(7)
      expect(failed.stderr).toMatch(/^Error: .*503/m)
      expect(readFileSync(file, 'utf8')).toBe('the previous good export\r\n')
      expect(readdirSync(folder).filter((name) => name.includes('kept.csv'))).toEqual(['kept.csv'])

      // A good run replaces it, keeping the mode it had.
      const good = await cli(['deposits', 'list', '--all', '--output', 'csv', '--output-file', file])
      expect(good.code, good.stderr).toBe(0)
      expect(readFileSync(file, 'utf8')).toMatch(/^id,/)
      expect(statSync(file).mode & 0o777).toBe(0o640)
      expect(readdirSync(folder).filter((name) => name.includes('kept.csv'))).toEqual(['kept.csv'])
    })

    it('puts the --json document in the file, and the error document on stdout', async () => {
      const file = join(folder, 'page.json')
      const page = await cli(['deposits', 'list', '--json', '--output-file', file])
      expect(page.code, page.stderr).toBe(0)
      expect(page.stdout).toBe('')
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({currentPage: 1})

      const summary = join(folder, 'summary.csv')
      const totals = await cli(['deposits', 'summary', '--output', 'csv', '--output-file', summary])
      expect(totals.code, totals.stderr).toBe(0)
      expect(readFileSync(summary, 'utf8')).toMatch(/^kind,day,status/)
      expect(statSync(summary).mode & 0o777).toBe(0o644)

      await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'GET /core/deposit', status: 503, count: 4})
      const failed = await cli(['deposits', 'list', '--json', '--output-file', file], {sleep: async () => {}})
      expect(failed.code).toBe(7)
      expect(JSON.parse(failed.stdout).error).toMatchObject({exitCode: 7})
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({currentPage: 1})
    })

    it('refuses a folder that does not exist before anything is fetched (exit 2)', async () => {
      const before = await stats(sandbox.baseUrl)
      const result = await cli(['deposits', 'list', '--all', '--output', 'csv', '--output-file', join(folder, 'missing', 'x.csv')])
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(/--output-file .*x\.csv cannot be written: the folder .*missing does not exist/)
      const after = await stats(sandbox.baseUrl)
      expect(after.byRoute['GET /core/deposit'] ?? 0).toBe(before.byRoute['GET /core/deposit'] ?? 0)
      expect(existsSync(join(folder, 'missing'))).toBe(false)
    })
  })
})
