import {execFileSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Readable} from 'node:stream'

import {afterAll, describe, expect, it} from 'vitest'

import {readBatch} from '../../src/batch/read.js'
import {rowFlags} from '../../src/batch/rows.js'
import {parseReais} from '../../src/input/money.js'
import {readExpected} from '../../src/reconcile/expected.js'

/** Debian's Python, which python3-openpyxl is installed for (.ci/run). */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'
const dir = mkdtempSync(join(tmpdir(), 'gateway-excel-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

/**
 * A workbook as a spreadsheet saves one, made by openpyxl (shared strings, typed cells, a date
 * cell, two sheets): `sheets` maps a sheet's name to its rows, each cell a JSON value, or
 * {"date": "2026-11-24"} for a date cell.
 */
function workbook(name: string, sheets: Record<string, unknown[][]>): Buffer {
  const path = join(dir, name)
  const script = `
import datetime, json, sys
import openpyxl
book = openpyxl.Workbook()
book.remove(book.active)
for name, rows in json.loads(sys.argv[2]).items():
    sheet = book.create_sheet(name)
    for row in rows:
        sheet.append([datetime.datetime.fromisoformat(cell["date"]) if isinstance(cell, dict) else cell for cell in row])
book.save(sys.argv[1])
`
  execFileSync(PYTHON, ['-c', script, path, JSON.stringify(sheets)])
  return readFileSync(path)
}

const expectedRows = async (input: Buffer | string | Readable, options: {sheet?: string} = {}) => {
  const notes: string[] = []
  const file = await readExpected(input, {maxRows: 1000, zone: 'America/Sao_Paulo', note: (text) => notes.push(text), flag: '--expected f', ...options})
  return {...file, notes}
}

describe('expected files as Excel saves them', () => {
  it('Windows-1252, separated by ";", CRLF, amounts in reais: read, with a note that the bytes are not UTF-8', async () => {
    const text = 'external-code;amount-brl;due-date;document\r\nPEDIDO-0001;781,62;24/11/2026;\r\nPEDIDO-0002;1.050,00;;\r\nPEDIDO-0003;R$ 1.050,00;;\r\nPEDIDO-0004;1050;;\r\nPEDIDO-0005;19,99;;\r\nPEDIDO-0006;0,29;;\r\n'
    // Windows-1252 and Latin-1 agree on every letter of Portuguese.
    const bytes = Buffer.from(`${text.replace('external-code', 'external-code').trimEnd()}\r\nPEDIDO-Ação7;4,35;;\r\n`, 'latin1')
    const file = await expectedRows(bytes)
    expect(file.problems).toEqual([])
    expect(file.rows.map((row) => [row.externalCode, row.amount])).toEqual([
      ['PEDIDO-0001', 78162],
      ['PEDIDO-0002', 105000],
      ['PEDIDO-0003', 105000],
      ['PEDIDO-0004', 105000],
      ['PEDIDO-0005', 1999],
      ['PEDIDO-0006', 29],
      ['PEDIDO-Ação7', 435],
    ])
    expect(file.notes).toEqual([expect.stringContaining('not UTF-8: read as Windows-1252')])
  })

  it('UTF-8 with a BOM, separated by tabs, cut anywhere in the stream: no note', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('external-code\tamount-brl\r\nPEDIDO-Ação1\t1,15\r\n')])
    for (let cut = 1; cut < bytes.length; cut++) {
      const file = await expectedRows(Readable.from([bytes.subarray(0, cut), bytes.subarray(cut)]))
      expect(file.problems).toEqual([])
      expect(file.rows.map((row) => [row.externalCode, row.amount])).toEqual([['PEDIDO-Ação1', 115]])
      expect(file.notes).toEqual([])
    }
  })

  it('a text 781.62 or 1.050 has two readings: refused naming both, with its line and column', async () => {
    const file = await expectedRows('external-code,amount-brl\r\nPEDIDO-0001,781.62\r\nPEDIDO-0002,1.050\r\nPEDIDO-0003,"781,62"\r\n')
    expect(file.problems).toEqual([
      {line: 2, field: 'amount-brl', message: expect.stringContaining('781.62 has two readings, R$ 781,62 (the point before the cents) or R$ 78.162,00 (the point between thousands)')},
      {line: 3, field: 'amount-brl', message: expect.stringContaining('1.050 has two readings, R$ 1.050,00 (the point between thousands) or R$ 1,05 (the point before the cents)')},
    ])
    expect(file.rows.map((row) => row.amount)).toEqual([78162])
  })

  it('a workbook (.xlsx): the first sheet, or --sheet; a number cell 781.62 is reais, a text "781.62" is refused, a code with leading zeros stays text, a date cell is a due date', async () => {
    const bytes = workbook('expected.xlsx', {
      Resumo: [['nothing', 'here']],
      Cobranças: [
        ['external-code', 'amount-brl', 'due-date', 'document'],
        ['00012345', 781.62, {date: '2026-11-24T00:00:00'}, '04252011000110'],
        ['00012346', '1.050,00', null, null],
        ['00012347', '781.62', null, null],
        ['00012348', 1050, null, null],
      ],
    })
    const first = await expectedRows(bytes)
    expect(first.rows).toEqual([])
    const file = await expectedRows(Readable.from([bytes.subarray(0, 100), bytes.subarray(100)]), {sheet: 'Cobranças'})
    expect(file.problems).toEqual([{line: 4, field: 'amount-brl', message: expect.stringContaining('781.62 has two readings')}])
    expect(file.rows).toMatchObject([
      {line: 2, externalCode: '00012345', amount: 78162, dueDate: '2026-11-24', document: '04252011000110'},
      {line: 3, externalCode: '00012346', amount: 105000},
      {line: 5, externalCode: '00012348', amount: 105000},
    ])
    await expect(expectedRows(bytes, {sheet: 'Outra'})).rejects.toThrow('--sheet Outra: --expected f has no such sheet; its sheets are "Resumo", "Cobranças"')
  })
})

describe('batches as Excel saves them', () => {
  it('a charge batch from Windows-1252 with ";": names keep their accents, amounts in reais become cents', async () => {
    const notes: string[] = []
    const bytes = Buffer.from('external-code;amount-brl;customer-name\r\nPEDIDO-0001;19,99;Natália Conceição\r\n', 'latin1')
    const file = await readBatch(bytes, {note: (text) => notes.push(text)})
    expect(file.problems).toEqual([])
    expect(file.rows[0].fields).toEqual({'external-code': 'PEDIDO-0001', 'amount-brl': '19,99', 'customer-name': 'Natália Conceição'})
    expect(notes).toHaveLength(1)
    const read = rowFlags([{flag: 'external-code', path: 'externalCode', description: ''}, {flag: 'amount', path: 'amount', description: ''}, {flag: 'customer-name', path: 'customer.name', description: ''}], file.rows[0], 'tx create --batch')
    expect(read.problems).toEqual([])
    expect(read.flags.amount).toBe('1999')
  })

  it('a workbook batch: a number cell in amount (cents) is an integer; amount and amount-brl both is refused', async () => {
    const bytes = workbook('batch.xlsx', {Lote: [['external-code', 'amount', 'amount-brl'], ['PEDIDO-0001', 4990, null], ['PEDIDO-0002', 100, '1,00']]})
    const file = await readBatch(bytes)
    expect(file.problems).toEqual([])
    expect(file.rows.map((row) => row.fields)).toEqual([{'external-code': 'PEDIDO-0001', amount: '4990'}, {'external-code': 'PEDIDO-0002', amount: '100', 'amount-brl': '1,00'}])
    const table = [{flag: 'external-code', path: 'externalCode', description: ''}, {flag: 'amount', path: 'amount', description: ''}]
    expect(rowFlags(table, file.rows[1], 'tx create --batch').problems).toEqual([{line: 3, field: 'amount-brl', message: expect.stringContaining('amount-brl and amount are both given')}])
  })
})

describe('reais as a spreadsheet holds them', () => {
  it.each([
    ['781,62', 78162],
    ['1.050,00', 105000],
    ['R$ 1.050,00', 105000],
    ['R$ 1.050', 105000],
    ['1050', 105000],
    ['19,99', 1999],
    ['1,15', 115],
    ['4,35', 435],
    ['0,29', 29],
    ['1.234.567', 123456700],
  ])('%s is %i cents', (text, cents) => {
    expect(parseReais(text, 'amount-brl')).toEqual({ok: true, cents})
  })
  it.each([
    [781.62, 78162],
    [19.99, 1999],
    [1.15, 115],
    [4.35, 435],
    [0.29, 29],
    [1050, 105000],
  ])('the number %d is %i cents', (number, cents) => {
    expect(parseReais(number, 'amount-brl')).toEqual({ok: true, cents})
  })
  it('refuses fractions of a cent and what is no amount', () => {
    expect(parseReais(781.625, 'amount-brl')).toEqual({ok: false, message: 'amount-brl holds fractions of a cent: 781.625'})
    expect(parseReais('dez reais', 'amount-brl')).toMatchObject({ok: false, message: expect.stringContaining('must be an amount in reais')})
  })
})

describe('a money batch from a spreadsheet shows each row in cents and R$ before it asks', () => {
  it('tx create --batch --dry-run: each row as cents and reais, as the file said them in reais', async () => {
    const {runCommand} = await import('../helpers/context.js')
    const {startTestSandbox} = await import('../helpers/sandbox.js')
    const {tempConfigDir} = await import('../helpers/cli.js')
    const {logIn} = await import('../helpers/context.js')
    const sandbox = await startTestSandbox()
    const config = tempConfigDir()
    try {
      const env = {GATEWAY_CONFIG_DIR: config.dir}
      await logIn(sandbox.baseUrl, env)
      const file = join(dir, 'lote.csv')
      const {writeFileSync} = await import('node:fs')
      writeFileSync(file, Buffer.from('external-code;amount-brl;customer-name;customer-document\r\nPEDIDO-0001;19,99;Natália Conceição;529.982.247-25\r\nPEDIDO-0002;1.050,00;;\r\n', 'latin1'))
      const result = await runCommand(['tx', 'create', '--batch', file, '--dry-run'], {env})
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toContain('not UTF-8: read as Windows-1252')
      expect(result.stderr).toContain('line 2: 1999 cents (R$ 19,99)')
      expect(result.stderr).toContain('line 3: 105000 cents (R$ 1.050,00)')
      expect(result.stderr).toMatch(/Total: +R\$ 1\.069,99/)
    } finally {
      await sandbox.close()
      config.remove()
    }
  })
})
