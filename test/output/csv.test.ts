import {PassThrough, Writable} from 'node:stream'

import {parse} from 'csv-parse/sync'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {csvDocument, csvRows, CsvWriter, defuseCell, type CsvColumn} from '../../src/output/csv.js'

describe('defuseCell', () => {
  it('puts a quote before text a spreadsheet would run as a formula', () => {
    for (const text of ['=1+1', '=HYPERLINK("http://x","y")', '+5511999999999', '-1+cmd|/C calc', '-5', '@SUM(A1)', '\t=1', '\r=1']) {
      expect(defuseCell(text), JSON.stringify(text)).toBe(`'${text}`)
    }
  })

  it('leaves other text alone', () => {
    for (const text of ['', 'Maria', 'a=b', '1000', "'quoted", 'R$ 10,00', '2026-11-20T10:00:00-03:00', 'a; b', 'x-y', 'Ana; Bia']) expect(defuseCell(text)).toBe(text)
  })

  it('defuses a formula after leading whitespace, after a semicolon, and the full-width equals sign', () => {
    for (const text of [' =1', '\n=1', '\u00a0=1', ' \t+1', '\r\n@SUM(1)', '＝1+1', ' ＝1', 'Ana;+1+1', 'Bia;@SUM(1+1)', 'PAID;=1+1', 'x; -1', 'a;\u00a0=1']) {
      expect(defuseCell(text), JSON.stringify(text)).toBe(`'${text}`)
    }
  })
})

describe('csvRows for a pt-BR spreadsheet', () => {
  it('quotes a value holding a semicolon, as it does a comma, a quote or a line break', () => {
    expect(csvRows([['Ana;+1+1', 'Bia;@SUM(1+1)', 'PAID;=1+1', 'a;b', 'a,b', 'say "x"', 'line\nbreak', 'plain']])).toBe(
      `"'Ana;+1+1","'Bia;@SUM(1+1)","'PAID;=1+1","a;b","a,b","say ""x""","line\nbreak",plain\r\n`,
    )
  })
})

describe('csvRows', () => {
  it('writes RFC 4180: CRLF after each record, quotes around a comma, a quote or any line break', () => {
    expect(csvRows([['a,b', 'say "hi"', 'two\nlines', 'cr\ronly', 'crlf\r\nhere', 'plain', ' spaced ']])).toBe(
      '"a,b","say ""hi""","two\nlines","cr\ronly","crlf\r\nhere",plain, spaced \r\n',
    )
    expect(csvRows([['x'], ['y']])).toBe('x\r\ny\r\n')
    expect(csvRows([])).toBe('')
  })

  it('writes numbers as numbers, never defused, and every other type plainly', () => {
    expect(csvRows([[1000, -5, 0, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 10n, true, false, null, undefined, new Date(0), {order: 42}, ['a']]])).toBe(
      '1000,-5,0,1.5,,,10,true,false,,,1970-01-01T00:00:00.000Z,"{""order"":42}","[""a""]"\r\n',
    )
  })

  it('defuses text, unless told not to', () => {
    expect(csvRows([['-5', '=1+1', 'ok']])).toBe("'-5,'=1+1,ok\r\n")
    expect(csvRows([['-5', '=1+1', 'ok']], {defuse: false})).toBe('-5,=1+1,ok\r\n')
    expect(csvRows([['=a,b']])).toBe('"\'=a,b"\r\n') // defused, then quoted for its comma
  })

  it('property: what is written reads back the same (defused) with csv-parse', () => {
    const cell = fc.oneof(fc.string(), fc.constantFrom('=1+1', '-5', '@x', '\tx', 'a,b', '"', '\r\n', '\n', '\r', 'ção 😀'))
    fc.assert(
      fc.property(fc.array(fc.array(cell, {minLength: 3, maxLength: 3}), {minLength: 1, maxLength: 10}), fc.boolean(), (rows, defuse) => {
        const text = csvRows(rows, {defuse})
        expect(text.endsWith('\r\n')).toBe(true)
        const back = parse(text, {relax_column_count: false, record_delimiter: '\r\n'})
        expect(back).toEqual(rows.map((row) => row.map((value) => (defuse ? defuseCell(value) : value))))
      }),
      {numRuns: 500},
    )
  })
})

interface Payout {
  id: string
  amount: number
  payer?: {name: string}
}

const columns: CsvColumn<Payout>[] = [
  {header: 'id', value: (row) => row.id},
  ['amount', (row) => row.amount],
  ['payerName', (row) => row.payer?.name],
]

describe('csvDocument', () => {
  it('writes the header, then a line per record; a BOM when asked', () => {
    const records: Payout[] = [
      {id: 'a1', amount: 1000, payer: {name: '=HYPERLINK("x")'}},
      {id: 'b2', amount: 250},
    ]
    expect(csvDocument(columns, records)).toBe('id,amount,payerName\r\na1,1000,"\'=HYPERLINK(""x"")"\r\nb2,250,\r\n')
    expect(csvDocument(columns, [], {bom: true})).toBe('\uFEFFid,amount,payerName\r\n')
  })
})

/** A sink that takes at most `highWaterMark` bytes before asking the writer to wait. */
function slowSink(highWaterMark: number): {stream: Writable; text: () => string; waits: () => number} {
  const chunks: Buffer[] = []
  let waits = 0
  const stream = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(Buffer.from(chunk))
      setImmediate(callback)
    },
  })
  const write = stream.write.bind(stream)
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    const ok = (write as (...args: unknown[]) => boolean)(chunk, ...rest)
    if (!ok) waits += 1
    return ok
  }) as typeof stream.write
  return {stream, text: () => Buffer.concat(chunks).toString('utf8'), waits: () => waits}
}

describe('CsvWriter', () => {
  it('streams pages with one header, waiting on a slow reader, and never ends the stream', async () => {
    const sink = slowSink(64)
    const writer = new CsvWriter(sink.stream, columns)
    const expected: Payout[] = []
    for (let page = 0; page < 20; page += 1) {
      const records = Array.from({length: 10}, (_, index) => ({id: `p${page}-${index}`, amount: page * 100 + index, payer: {name: `Ana, ${index}`}}))
      expected.push(...records)
      await writer.writeAll(records)
    }
    await writer.write({id: 'last', amount: 1})
    await writer.end()
    expect(writer.written).toBe(201)
    expect(sink.waits()).toBeGreaterThan(0) // back-pressure was met and honoured
    expect(sink.stream.writableEnded).toBe(false)
    await new Promise<void>((resolve) => sink.stream.end(resolve))
    const back = parse<Record<string, string>>(sink.text(), {columns: true})
    expect(back).toHaveLength(201)
    expect(back[0]).toEqual({id: 'p0-0', amount: '0', payerName: 'Ana, 0'})
    expect(back.at(-1)).toEqual({id: 'last', amount: '1', payerName: ''})
    expect(back.map((row) => row.id)).toEqual([...expected.map((row) => row.id), 'last'])
  })

  it('writes the header alone for an empty export, once however often begun', async () => {
    const out = new PassThrough()
    const writer = new CsvWriter(out, columns, {bom: true})
    await writer.begin()
    await writer.begin()
    await writer.writeAll([])
    await writer.end()
    out.end()
    expect(out.read().toString()).toBe('\uFEFFid,amount,payerName\r\n')
  })

  it('rejects when the stream fails while it waits', async () => {
    const stream = new Writable({
      highWaterMark: 1,
      write(_chunk, _encoding, callback) {
        setImmediate(() => callback(new Error('EPIPE')))
      },
    })
    stream.on('error', () => {})
    const writer = new CsvWriter(stream, columns)
    await expect(writer.writeAll([{id: 'x', amount: 1}])).rejects.toThrow('EPIPE')
  })
})
