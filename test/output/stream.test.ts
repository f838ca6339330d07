import {PassThrough} from 'node:stream'

import {describe, expect, it} from 'vitest'

import type {Deposit} from '../../src/api/types.js'
import {DEPOSIT_CSV} from '../../src/render/deposits.js'
import {csvField, RecordWriter} from '../../src/output/stream.js'

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
  it('escapes CSV fields as RFC 4180 says', () => {
    expect(csvField('plain')).toBe('plain')
    expect(csvField('a,b')).toBe('"a,b"')
    expect(csvField('say "hi"')).toBe('"say ""hi"""')
    expect(csvField('two\nlines')).toBe('"two\nlines"')
    expect(csvField(undefined)).toBe('')
  })

  it('defuses cells a spreadsheet would run as a formula', () => {
    expect(csvField('=SUM(A1:A2)')).toBe("'=SUM(A1:A2)")
    expect(csvField('+55 11')).toBe("'+55 11")
    expect(csvField('-1')).toBe("'-1")
    expect(csvField('@cmd')).toBe("'@cmd")
    expect(csvField(-1)).toBe('-1')
  })

  it('writes a fixed CSV header, then one row per record', async () => {
    const text = await written('csv', [[deposit('1', 'Silva, "Ana"')], [deposit('2')]])
    const lines = text.split('\r\n')
    expect(lines[0]).toBe(DEPOSIT_CSV.map(([name]) => name).join(','))
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
