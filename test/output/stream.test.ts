import {PassThrough} from 'node:stream'

import {describe, expect, it} from 'vitest'

import type {Deposit} from '../../src/api/types.js'
import {DEPOSIT_CSV} from '../../src/render/deposits.js'
import {RecordWriter} from '../../src/output/stream.js'

const deposit = (id: string, name = 'Ana'): Deposit =>
  ({id, amount: 100, status: 'PAID', depositOrigin: 'QRCODE', createdAt: '2026-11-21T00:00:00Z', payer: {name}}) as unknown as Deposit

async function written(format: 'ndjson' | 'csv' | 'json', pages: Deposit[][]): Promise<string> {
  const out = new PassThrough()
  let text = ''
  out.on('data', (chunk) => (text += chunk))
  const writer = new RecordWriter(out, format, DEPOSIT_CSV)
  await writer.begin()
  for (const page of pages) await writer.records(page)
  await writer.end()
  return text
}

describe('export formats', () => {
  /** CSV of one column holding each value, through RecordWriter, without its header. */
  async function cells(values: unknown[]): Promise<string[]> {
    const out = new PassThrough()
    let text = ''
    out.on('data', (chunk) => (text += chunk))
    const writer = new RecordWriter<{value: unknown}>(out, 'csv', [['value', (row) => row.value]])
    await writer.records(values.map((value) => ({value})))
    await writer.end()
    const lines = text.split('\r\n')
    expect(lines[0]).toBe('value')
    expect(lines.at(-1)).toBe('')
    return lines.slice(1, -1)
  }

  it('quotes CSV fields as RFC 4180 says, records ending in CRLF', async () => {
    expect(await cells(['plain', 'a,b', 'say "hi"', 'two\r\nlines', undefined, null])).toEqual(['plain', '"a,b"', '"say ""hi"""', '"two', 'lines"', '', ''])
    // A lone line break is quoted too, so no reader splits the record there.
    const text = (await cells(['one\ntwo', 'cr\ronly'])).join('\r\n')
    expect(text).toBe('"one\ntwo"\r\n"cr\ronly"')
  })

  it('defuses cells a spreadsheet would run as a formula, and leaves numbers alone', async () => {
    expect(await cells(['=SUM(A1:A2)', '+55 11', '-1', '@cmd', '\tx', -1, 1000, 'ok'])).toEqual(["'=SUM(A1:A2)", "'+55 11", "'-1", "'@cmd", "'\tx", '-1', '1000', 'ok'])
  })

  it('writes the header once, however often it is begun, and alone when nothing matches', async () => {
    const out = new PassThrough()
    let text = ''
    out.on('data', (chunk) => (text += chunk))
    const writer = new RecordWriter(out, 'csv', DEPOSIT_CSV)
    await writer.begin()
    await writer.begin()
    await writer.records([])
    await writer.end()
    expect(text).toBe(`${DEPOSIT_CSV.map((column) => ('header' in column ? column.header : column[0])).join(',')}\r\n`)
    expect(writer.written).toBe(0)
  })

  it('writes a fixed CSV header, then one row per record', async () => {
    const text = await written('csv', [[deposit('1', 'Silva, "Ana"')], [deposit('2')]])
    const lines = text.split('\r\n')
    expect(lines[0]).toBe(DEPOSIT_CSV.map((column) => ('header' in column ? column.header : column[0])).join(','))
    expect(lines[1]).toContain('"Silva, ""Ana"""')
    expect(lines).toHaveLength(4)
  })

  it('writes one JSON array across pages, and an empty one when nothing matches', async () => {
    expect(JSON.parse(await written('json', [[deposit('1')], [deposit('2'), deposit('3')]])).map((row: Deposit) => row.id)).toEqual(['1', '2', '3'])
    expect(JSON.parse(await written('json', []))).toEqual([])
  })

  it('writes NDJSON, one record a line', async () => {
    const lines = (await written('ndjson', [[deposit('1'), deposit('2')]])).trim().split('\n')
    expect(lines.map((line) => JSON.parse(line).id)).toEqual(['1', '2'])
  })
})
