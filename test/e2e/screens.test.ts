import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, cleanEnv, runCli, runInTerminal} from '../helpers/cli.js'
import {control} from '../helpers/sandbox.js'
import {loggedInSandbox} from '../helpers/world.js'

const CLEAR = '\u001B[2J\u001B[H'
/** Every escape sequence a terminal would act on (colour, cursor, clearing, modes). */
// eslint-disable-next-line no-control-regex
const SEQUENCES = /\u001B(\[[0-9;?]*[A-Za-z]|\][^\u0007]*\u0007)/g
/** A row of a deposits table: an id, and an amount whole on the same line. */
const DEPOSIT_ROW = /^│ [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} │/
const WHOLE_AMOUNT = /│ +R\$ \d{1,3}(\.\d{3})*,\d{2} │/

/** Each screen the pager drew, without its escapes, as the lines it holds. */
const screensOf = (output: string) =>
  output
    .split(CLEAR)
    .map((screen) => screen.replace(SEQUENCES, '').replace(/\r/g, ''))
    .filter((screen) => screen.includes('Page '))
    .map((screen) => screen.replace(/\n$/, '').split('\n'))

/** The lines a command wrote to a terminal, escapes and carriage returns removed. */
const linesOf = (output: string) => output.replace(SEQUENCES, '').replace(/\r/g, '').replace(/\n$/, '').split('\n')

/** A line of a QR drawing (half blocks and spaces, as wide as the code). */
const isQrLine = (line: string) => line.length >= 21 && /^[█▀▄ ]+$/.test(line)

/**
 * What a person sees, each screen at its size: the pager, tables and the QR code in a real
 * pseudo-terminal (python3's pty) of 80×24, 60×24, 80×40, and one that reports no size (0×0); and,
 * where tmux is installed, the screen itself as a terminal emulator shows it.
 */
describe('screens that fit the terminal', () => {
  const world = loggedInSandbox({seedDeposits: 95})

  for (const cols of [80, 60]) {
    it(`the pager at ${cols}×24: every line fits the width, a page the height, the table's header in view`, async () => {
      const result = await runInTerminal(['deposits', 'list'], {env: world.env, cols, rows: 24, steps: [{expect: 'Page 1 of', send: 'n'}, {expect: 'Page 2 of', send: 'q'}]})
      expect(result.code).toBe(0)
      const screens = screensOf(result.output)
      expect(screens.length).toBeGreaterThanOrEqual(2)
      for (const lines of screens) {
        // The last line is left for the cursor.
        expect(lines.length, lines.join('\n')).toBeLessThanOrEqual(23)
        for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(cols)
        expect(lines[0]).toMatch(/^┌/)
        expect(lines[1]).toMatch(/^│ ID /)
        const rows = lines.filter((line) => DEPOSIT_ROW.test(line))
        expect(rows.length).toBeGreaterThan(10)
        for (const row of rows) expect(row, row).toMatch(WHOLE_AMOUNT)
        expect(lines.at(-1)).toMatch(/^Page \d+ of \d+ · snapshot /)
      }
    })
  }

  it('a table at 60 columns is at most 60 wide, every amount whole, and its note broken to fit', async () => {
    const result = await runInTerminal(['deposits', 'list', '--per-page', '10', '--no-interactive'], {env: world.env, cols: 60, rows: 24})
    expect(result.code).toBe(0)
    const lines = linesOf(result.output)
    for (const line of lines.filter((text) => /^[┌│├└]/.test(text))) expect(line.length, line).toBeLessThanOrEqual(60)
    const rows = lines.filter((line) => DEPOSIT_ROW.test(line))
    expect(rows).toHaveLength(10)
    for (const row of rows) expect(row, row).toMatch(WHOLE_AMOUNT)
    const note = lines.findIndex((line) => line.startsWith('To fit 60 columns: '))
    expect(note).toBeGreaterThan(0)
    for (const line of lines.slice(note, note + 3)) expect(line.length, line).toBeLessThanOrEqual(60)
  })

  it('the QR code at 80×40 is drawn, and stays whole on screen with what follows it', async () => {
    const result = await runInTerminal(['tx', 'create', '--amount', '1000'], {env: {...world.env, NO_COLOR: '1'}, cols: 80, rows: 40})
    expect(result.code).toBe(0)
    const lines = linesOf(result.output)
    const first = lines.findIndex(isQrLine)
    expect(first).toBeGreaterThan(-1)
    const drawing = lines.slice(first).filter(isQrLine)
    expect(drawing.length).toBeGreaterThan(20)
    // From the code's first line to the cursor's: each line as many screen lines as 80 columns make of it.
    const below = lines.slice(first).reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / 80)), 0)
    expect(below + 1).toBeLessThanOrEqual(40)
    expect(result.output).not.toMatch(/QR code is not drawn/)
  })

  it('the QR code at 80×24 is not drawn: one line says the terminal is too small and how to get the code', async () => {
    const result = await runInTerminal(['tx', 'create', '--amount', '1000'], {env: {...world.env, NO_COLOR: '1'}, cols: 80, rows: 24})
    expect(result.code).toBe(0)
    const lines = linesOf(result.output)
    expect(lines.filter(isQrLine)).toEqual([])
    expect(result.output).toMatch(/The QR code is not drawn: the terminal is too small for it \(it needs \d+ rows with the lines below it and the terminal has 24\)/)
    expect(result.output).toMatch(/Get the image with `gateway tx get [0-9a-f-]{36} --qr-png FILE`/)
    expect(result.output).toMatch(/Pix copia e cola:\s+00020126/)
  })

  it('tx get --qr: the QR code got again, drawn at 80×40, and at 80×24 pointed at the same charge\'s image, never at a new charge', async () => {
    // Spawned without blocking: the sandbox answering it runs in this process.
    const created = await runCli(['tx', 'create', '--amount', '4990', '--json'], {env: world.env})
    expect(created.code, created.stderr).toBe(0)
    const {id, pixResponse} = JSON.parse(created.stdout) as {id: string; pixResponse: {uri: string}}
    const tall = await runInTerminal(['tx', 'get', id, '--qr'], {env: {...world.env, NO_COLOR: '1'}, cols: 80, rows: 40})
    expect(tall.code).toBe(0)
    expect(linesOf(tall.output).filter(isQrLine).length, tall.output).toBeGreaterThan(20)
    const small = await runInTerminal(['tx', 'get', id, '--qr'], {env: {...world.env, NO_COLOR: '1'}, cols: 80, rows: 24})
    expect(small.code).toBe(0)
    expect(linesOf(small.output).filter(isQrLine)).toEqual([])
    expect(small.output).toContain(`Get the image with \`gateway tx get ${id} --qr-png FILE\``)
    expect(small.output.replace(/\s+/g, '')).toContain(pixResponse.uri.replace(/\s+/g, ''))
  })

  describe('a terminal that reports no size (0×0) is no terminal', () => {
    it('tx create: no spinner, no cursor codes, no QR code; it ends', async () => {
      const result = await runInTerminal(['tx', 'create', '--amount', '1000'], {env: world.env, cols: 0, rows: 0, timeoutS: 15})
      expect(result.code).toBe(0)
      expect(result.output).not.toMatch(SEQUENCES)
      expect(linesOf(result.output).filter(isQrLine)).toEqual([])
      expect(result.output).toMatch(/Pix copia e cola:/)
      expect(result.output.length).toBeLessThan(4000)
    })

    it('deposits list: no pager, no colour, one page as a pipe gets it', async () => {
      const result = await runInTerminal(['deposits', 'list'], {env: world.env, cols: 0, rows: 0, timeoutS: 15})
      expect(result.code).toBe(0)
      expect(result.output).not.toContain(CLEAR)
      expect(result.output).not.toMatch(SEQUENCES)
      expect(linesOf(result.output).filter((line) => DEPOSIT_ROW.test(line))).toHaveLength(20)
    })

    it('SIGTERM ends a charge while it is being sent', async () => {
      await control(world.sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', kind: 'slow', delayMs: 20_000})
      try {
        const result = await runInTerminal(['tx', 'create', '--amount', '1000'], {env: world.env, cols: 0, rows: 0, timeoutS: 15, steps: [{expect: 'Idempotency key', signal: 'TERM'}]})
        // Ended by the signal: 143 where the command reports it, else killed by it; never left running.
        expect([143, -15]).toContain(result.code)
        expect(result.output).not.toMatch(SEQUENCES)
        expect(result.output.length).toBeLessThan(4000)
      } finally {
        await fetch(`${world.sandbox.baseUrl}/_sandbox/faults`, {method: 'DELETE'})
      }
    })
  })

  const tmux = spawnSync('tmux', ['-V']).status === 0
  describe.skipIf(!tmux)('as tmux shows the screen (skipped where tmux is not installed: the pty tests above check the same output)', () => {
    let folder: string
    let sessions = 0
    beforeAll(() => {
      folder = mkdtempSync(join(tmpdir(), 'gateway-tmux-'))
      // No status bar: the window is the whole terminal, as a person's is.
      writeFileSync(join(folder, 'tmux.conf'), 'set -g status off\nset -g remain-on-exit off\n')
    })
    afterAll(() => rmSync(folder, {recursive: true, force: true}))

    /**
     * Runs the CLI in a tmux window of cols×rows, types `keys` once `ready` is on screen, and answers
     * the screen once `until` is on it (each line as tmux shows it, trailing blanks removed).
     */
    async function screenOf(args: string[], options: {cols: number; rows: number; env?: Record<string, string>; ready?: RegExp; keys?: string; until: RegExp}): Promise<string[]> {
      const socket = join(folder, `socket-${++sessions}`)
      const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`
      const variables = Object.entries({...world.env, ...options.env}).map(([key, value]) => `${key}=${quote(value)}`)
      // The exit status is printed without a line break, on the line the cursor rests on: the screen does not move.
      const command = `env ${variables.join(' ')} ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}; printf '[exit %s]' $?; sleep 120`
      const tmuxRun = (...words: string[]) => spawnSync('tmux', ['-S', socket, '-f', join(folder, 'tmux.conf'), ...words], {encoding: 'utf8', env: cleanEnv({TERM: 'xterm-256color'})})
      const started = tmuxRun('new-session', '-d', '-x', String(options.cols), '-y', String(options.rows), '-s', 'screen', command)
      expect(started.status, started.stderr).toBe(0)
      const capture = () => tmuxRun('capture-pane', '-p', '-t', 'screen').stdout.split('\n').map((line) => line.trimEnd())
      const waitFor = async (pattern: RegExp) => {
        for (let tries = 0; tries < 300; tries++) {
          const screen = capture()
          if (pattern.test(screen.join('\n'))) return screen
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        throw new Error(`never on screen: ${pattern}\n${capture().join('\n')}`)
      }
      try {
        if (options.ready) {
          await waitFor(options.ready)
          tmuxRun('send-keys', '-t', 'screen', options.keys ?? '')
        }
        return await waitFor(options.until)
      } finally {
        tmuxRun('kill-server')
      }
    }

    it('the pager at 80×24 keeps the header at the top of the screen and the status line at the bottom', async () => {
      const screen = await screenOf(['deposits', 'list'], {cols: 80, rows: 24, ready: /Page 1 of \d+/, keys: 'n', until: /Page 2 of \d+/})
      expect(screen[0], screen.join('\n')).toMatch(/^┌/)
      expect(screen[1]).toMatch(/^│ ID /)
      const last = screen.findLastIndex((line) => line !== '')
      expect(screen[last]).toMatch(/^Page 2 of \d+ · snapshot [0-9a-f-]{36}/)
      for (const row of screen.filter((line) => DEPOSIT_ROW.test(line))) expect(row, row).toMatch(WHOLE_AMOUNT)
    })

    it('a table at 60×24 shows every amount whole on its row', async () => {
      const screen = await screenOf(['deposits', 'list', '--per-page', '8', '--no-interactive'], {cols: 60, rows: 24, until: /\[exit 0\]/})
      const rows = screen.filter((line) => DEPOSIT_ROW.test(line))
      expect(rows, screen.join('\n')).toHaveLength(8)
      for (const row of rows) expect(row, row).toMatch(WHOLE_AMOUNT)
      expect(screen.filter((line) => /^\S*\d,\d{2} │$|^\d{3},\d{2}/.test(line))).toEqual([])
    })

    it('the QR code at 80×40 is on screen whole, its quiet zone included, with the copy-and-paste code under it', async () => {
      const screen = await screenOf(['tx', 'create', '--amount', '1000'], {cols: 80, rows: 40, env: {NO_COLOR: '1'}, until: /\[exit 0\]/})
      const first = screen.findIndex(isQrLine)
      expect(first, screen.join('\n')).toBeGreaterThan(-1)
      const drawing = screen.slice(first, screen.findIndex((line, index) => index > first && !isQrLine(line)))
      // Four modules of light margin on top and at the bottom: two full lines each.
      for (const line of [...drawing.slice(0, 2), ...drawing.slice(-2)]) expect(line).toMatch(/^█{50,}$/)
      expect(drawing.every((line) => line.length === drawing[0].length)).toBe(true)
      expect(screen[first + drawing.length]).toBe('Pix copia e cola:')
    })

    it('the QR code at 80×24 is left out, and the screen says why', async () => {
      const screen = await screenOf(['tx', 'create', '--amount', '1000'], {cols: 80, rows: 24, env: {NO_COLOR: '1'}, until: /\[exit 0\]/})
      expect(screen.filter(isQrLine)).toEqual([])
      // The line as the terminal broke it, put back together (spaces aside).
      expect(screen.join('').replace(/\s+/g, '')).toMatch(/TheQRcodeisnotdrawn:theterminalistoosmallforit\(itneeds\d+rowswiththelinesbelowitandtheterminalhas24\)/)
    })
  })
})

