import {describe, expect, it} from 'vitest'

import type {Deposit} from '../../src/api/types.js'
import {detectTerminal, unmarked} from '../../src/cli/terminal.js'
import {linesThatFit, screen, statusLines} from '../../src/output/pager.js'
import {fitNote, renderTable, wrapText} from '../../src/output/table.js'
import {depositColumns} from '../../src/render/deposits.js'
import {qrDrawing, qrFits} from '../../src/render/qr.js'

/** Deposits as a page holds them: every column filled, amounts of every size up to millions. */
const deposits: Deposit[] = [1, 204556, 2045_56, 99_999_999_99, 1_234_567, 80].map(
  (amount, index) =>
    ({
      id: `3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c${String(10 + index)}`,
      createdAt: `2026-11-2${index}T12:34:56.000Z`,
      updatedAt: `2026-11-2${index}T12:34:56.000Z`,
      status: index % 2 ? 'PROCESSING_INFRACTION' : 'PAID',
      depositOrigin: 'PIX_KEY',
      amount,
      amountPaid: amount,
      payer: {name: 'Maria da Silva Pereira dos Santos'},
      endToEnd: 'E1234567820261121123412345678901',
    }) as unknown as Deposit,
)

const AMOUNT = /R\$ \d{1,3}(\.\d{3})*,\d{2}/g
const amountsOf = (text: string) => text.match(AMOUNT) ?? []

describe('a table fitted to the terminal', () => {
  for (const columns of [160, 100, 80, 72, 60, 52, 45]) {
    it(`at ${columns} columns is at most ${columns} wide, and cuts no id, amount or day`, async () => {
      const table = await renderTable(deposits, depositColumns('UTC'), {columns, color: false})
      const lines = unmarked(table.text).split('\n')
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns)
      const rows = lines.filter((line) => line.startsWith('│ 3f0c'))
      expect(rows).toHaveLength(deposits.length)
      for (const [index, row] of rows.entries()) {
        expect(row).toContain(deposits[index].id)
        expect(row).not.toMatch(/\d…|R\$[^│]*…/)
        // The amount, when shown, is whole.
        if (table.dropped.includes('Amount')) continue
        expect(amountsOf(row)[0]).toBe(amountsOf((await renderTable([deposits[index]], depositColumns('UTC'), {columns: Infinity, color: false})).text)[0])
      }
      const note = fitNote(table, columns)
      if (columns < 160) expect(note).toBeDefined()
      for (const line of (note ?? '').split('\n')) expect(line.length, line).toBeLessThanOrEqual(columns)
    })
  }

  it('at 60 columns keeps the id and the amount, and says what it left out', async () => {
    const table = await renderTable(deposits, depositColumns('UTC'), {columns: 60, color: false})
    expect(table.text.split('\n')[1]).toMatch(/^│ ID +│ +Amount │$/)
    expect(table.dropped).toEqual(['Created', 'Status', 'Origin', 'Paid', 'Payer', 'End-to-end'])
    expect(fitNote(table, 60)).toMatch(/^To fit 60 columns: left out Created, Status,/)
  })

  it('at 80 columns shows the time as its date alone before leaving out the day', async () => {
    const table = await renderTable(deposits, depositColumns('UTC'), {columns: 80, color: false})
    expect(table.compacted).toEqual(['Created'])
    expect(table.text).toMatch(/│ 2026-11-20 +│/)
  })
})

describe('text broken to the width', () => {
  it('breaks at spaces, and a word longer than the width where it must', () => {
    expect(wrapText('aaa bbb ccc', 7)).toBe('aaa bbb\nccc')
    expect(wrapText('aaaaaaaaaa b', 4)).toBe('aaaa\naaaa\naa b')
    expect(wrapText('short', 80)).toBe('short')
    expect(wrapText('one\ntwo three', 5)).toBe('one\ntwo\nthree')
    expect(wrapText('no width', Infinity)).toBe('no width')
  })
})

describe('the pager, at a given size', () => {
  const status = `Page 12 of 40 · snapshot ${'8c1f0c1c-2a4b-4f7e-9d51-6b8f0a6e2c11'}`

  for (const columns of [160, 80, 60, 40, 30]) {
    it(`says its status in lines of at most ${columns} columns`, () => {
      const lines = statusLines(status, '(last page)', columns)
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns)
      expect(lines.join(' ')).toContain('Page 12 of 40')
      expect(lines.join(' ').replace(/\s+/g, ' ')).toContain('8c1f0c1c-2a4b-4f7e-9d51-6b8f0a6e2c11'.slice(0, Math.min(36, columns)))
    })
  }

  it('keeps the keys when they fit, shorter when they do not', () => {
    expect(statusLines(status, '', 160)).toEqual([`${status}  [n] next  [p] previous  [q] quit`])
    expect(statusLines(status, '', 80)).toEqual([`${status}  n/p/q`])
    expect(statusLines(status, '', 62)).toEqual([status])
    // Narrower than the status itself: broken at a space, never wider than the terminal.
    expect(statusLines(status, '', 60)).toEqual(['Page 12 of 40 · snapshot', '8c1f0c1c-2a4b-4f7e-9d51-6b8f0a6e2c11'])
  })

  for (const [columns, rows] of [
    [80, 24],
    [60, 24],
    [60, 12],
    [120, 40],
  ]) {
    it(`draws a screen of at most ${columns}×${rows - 1}, the table's header first`, async () => {
      const table = await renderTable([...deposits, ...deposits, ...deposits, ...deposits], depositColumns('UTC'), {columns, color: false})
      const note = fitNote(table, columns)
      const drawn = screen(`${table.text}\n${note ? `${note}\n` : ''}`, status, '', {columns, rows}).split('\n')
      expect(drawn.length).toBeLessThanOrEqual(rows - 1)
      for (const line of drawn) expect(line.length, line).toBeLessThanOrEqual(columns)
      expect(drawn[0]).toMatch(/^┌/)
      expect(drawn[1]).toMatch(/^│ ID /)
      expect(drawn.slice(-2).join('\n')).toMatch(/^Page 12 of 40|\nPage 12 of 40/)
      expect(drawn.at(-1)).toMatch(/8c1f0c1c-2a4b-4f7e-9d51-6b8f0a6e2c11/)
    })
  }

  it('counts the status lines it needs in the page it asks for', () => {
    expect(linesThatFit(24, 6, 1)).toBe(16)
    expect(linesThatFit(24, 6, 2)).toBe(15)
    expect(linesThatFit(undefined, 6)).toBeUndefined()
  })
})

describe('the QR code, at a given size', () => {
  const uri = '00020126580014br.gov.bcb.pix01367d9f0335-8dcc-4054-9bf9-0c3e6e0a8b1e520400005303986540510.005802BR5920Gateway Sandbox Ltda6009Sao Paulo622905256de0259d548241c2bd592db426304C954'
  const after = ['Pix copia e cola:', uri, '', '  ID:      6de0259d-5482-41c2-bd59-2db424658d9e', '  Status:  PIX_QRCODE_GENERATED', '  Amount:  R$ 10,00', '  Expires: 2026-11-27 11:57:09 UTC (in 30m)']

  it('fits whole with what follows it at 80×40, and not at 80×24 or 50×60', async () => {
    const qr = await qrDrawing(uri, {colors: false})
    expect(qr.width).toBeLessThanOrEqual(60)
    expect(qrFits(qr, after, {columns: 80, rows: 40})).toBe(true)
    expect(qrFits(qr, after, {columns: 80, rows: 24})).toEqual({columns: qr.width, rows: qr.lines.length + 1 + 3 + 1 + 4 + 1})
    expect(qrFits(qr, after, {columns: 50, rows: 60})).not.toBe(true)
    // No terminal (a file, with --qr): no height to fit.
    expect(qrFits(qr, after, {columns: Infinity})).toBe(true)
  })
})

describe('a terminal that reports no size', () => {
  it('is no terminal: no colour, spinner, prompt, pager height or width', () => {
    const none = detectTerminal({stdoutTTY: true, stderrTTY: true, stdinTTY: true, stdoutColumns: 0, stdoutRows: 0, stderrColumns: 0, stderrRows: 0}, {TERM: 'xterm-256color'})
    expect(none).toMatchObject({stdoutTTY: false, stderrTTY: false, color: false, spinner: false, prompt: false, columns: Infinity, rows: undefined})
    const noRows = detectTerminal({stdoutTTY: true, stderrTTY: true, stdinTTY: true, stdoutColumns: 80, stdoutRows: 0, stderrColumns: 80, stderrRows: 0}, {})
    expect(noRows).toMatchObject({stdoutTTY: false, stderrTTY: false, spinner: false})
  })

  it('while a terminal whose size is not known stays one', () => {
    const sized = detectTerminal({stdoutTTY: true, stderrTTY: true, stdinTTY: true, stdoutColumns: 80, stdoutRows: 24, stderrColumns: 80, stderrRows: 24}, {})
    expect(sized).toMatchObject({stdoutTTY: true, stderrTTY: true, spinner: true, prompt: true, columns: 80, rows: 24})
    expect(detectTerminal({stdoutTTY: true, stderrTTY: true, stdinTTY: false}, {})).toMatchObject({stdoutTTY: true, columns: 80})
  })
})
