import {Readable} from 'node:stream'

import {stringify} from 'csv-stringify/sync'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {UsageError} from '../../src/cli/errors.js'
import {
  BatchTooLargeError,
  deriveIdempotencyKey,
  detectDelimiter,
  kebabName,
  readBatch,
  readBatchEntries,
  readBatchPieces,
  rowIdempotencyKeys,
  type BatchEntry,
} from '../../src/batch/read.js'

/** Bytes cut into chunks at the given offsets, as a stream hands them over. */
function chunked(text: string | Buffer, cuts: number[]): Readable {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  const parts: Buffer[] = []
  let from = 0
  for (const point of [...points, bytes.length]) {
    parts.push(bytes.subarray(from, point))
    from = point
  }
  return Readable.from(parts.filter((part) => part.length > 0))
}

describe('kebabName and detectDelimiter', () => {
  it("turns the names people write into the flags' names", () => {
    expect(['pixKey', 'PIX_KEY', 'Pix Key', ' pix-key ', 'idempotencyKey', 'external code', 'amount'].map(kebabName)).toEqual([
      'pix-key',
      'pix-key',
      'pix-key',
      'pix-key',
      'idempotency-key',
      'external-code',
      'amount',
    ])
  })

  it('takes the delimiter the header line uses most, outside quotes', () => {
    expect(detectDelimiter('amount,pix-key')).toBe(',')
    expect(detectDelimiter('amount;pix-key;"a,b"')).toBe(';')
    expect(detectDelimiter('amount\tpix-key')).toBe('\t')
    expect(detectDelimiter('amount')).toBe(',')
  })
})

describe('readBatch: CSV', () => {
  it('reads rows by the header, with the line each starts on, blank lines and ",,," rows skipped', async () => {
    const file = await readBatch('amount,pixKey,external-code\n1000,maria@example.com,order-0001\n\n2500,+5511999999999,\n,,\n  \n300 , "a, b" ,x\n')
    expect(file.format).toBe('csv')
    expect(file.problems).toEqual([])
    expect(file.rows).toEqual([
      {line: 2, row: 1, fields: {amount: '1000', 'pix-key': 'maria@example.com', 'external-code': 'order-0001'}},
      {line: 4, row: 2, fields: {amount: '2500', 'pix-key': '+5511999999999'}}, // an empty cell is left out
      {line: 7, row: 3, fields: {amount: '300', 'pix-key': 'a, b', 'external-code': 'x'}},
    ])
    expect(file.count).toBe(3)
    expect(file.sha256).toMatch(/^[0-9a-f]{64}$/)
  })

  it('gives true line numbers with CRLF, CR, a BOM, leading blank lines and values over several lines', async () => {
    const file = await readBatch('\uFEFF\r\n\r\namount,description\r\n1,"two\r\nlines"\r\n2,"three\nmixed\rlines"\r\n\r\n3,x')
    expect(file.rows.map((row) => [row.line, row.fields.amount])).toEqual([
      [4, '1'],
      [6, '2'],
      [10, '3'],
    ])
    expect(file.rows[0].fields.description).toBe('two\r\nlines')
    const oldMac = await readBatch('amount\r1\r\r2\r')
    expect(oldMac.rows.map((row) => row.line)).toEqual([2, 4])
  })

  it('reads semicolon and tab files, as spreadsheets in Brazil write them', async () => {
    expect((await readBatch('amount;description\n1000;"Pedido; 42"\n')).rows[0].fields).toEqual({amount: '1000', description: 'Pedido; 42'})
    expect((await readBatch('amount\tdescription\n1000\tx,y\n')).rows[0].fields).toEqual({amount: '1000', description: 'x,y'})
    // A delimiter given wins over the header's: here the semicolons are part of the values.
    const forced = await readBatch('amount;description\n1000;x\n', {delimiter: ','})
    expect(forced.rows[0].fields).toEqual({'amount;description': '1000;x'})
  })

  it('lists every row with the wrong number of fields, and goes on reading', async () => {
    const file = await readBatch('amount,pix-key\n1,a\n2,b,extra\n3\n4,d\n')
    expect(file.problems).toEqual([
      {line: 3, message: 'has 3 fields; the header has 2'},
      {line: 4, message: 'has 1 fields; the header has 2'},
    ])
    expect(file.rows.map((row) => row.line)).toEqual([2, 5])
  })

  it('stops at a broken quote, reporting the line of the row it is in', async () => {
    const closing = await readBatch('amount,name\n1,a\n2,"b"x\n3,c\n')
    expect(closing.rows.map((row) => row.line)).toEqual([2])
    expect(closing.problems).toEqual([{line: 3, message: 'has characters after a closing quote; a quote inside a quoted value is written twice ("")'}])
    const open = await readBatch('amount,name\n1,a\n\n2,"b\n3,c\n')
    expect(open.problems).toEqual([{line: 4, message: 'has a quote that is never closed'}])
    const opening = await readBatch('amount,name\n1,a"b\n')
    expect(opening.problems).toEqual([{line: 2, message: expect.stringMatching(/^has a quote inside a value/)}])
  })

  it('refuses a header with a nameless or repeated column, before any row', async () => {
    const file = await readBatch('amount,pixKey,,pix-key\n1,a,b,c\n')
    expect(file.rows).toEqual([])
    expect(file.problems).toEqual([
      {line: 1, message: "the header's column 3 has no name"},
      {line: 1, field: 'pix-key', message: 'the header names pix-key twice (columns 2 and 4)'},
    ])
  })

  it('keeps names as written with normalizeNames: false, and takes the format when told', async () => {
    expect((await readBatch('pixKey\na\n', {normalizeNames: false})).rows[0].fields).toEqual({pixKey: 'a'})
    expect((await readBatch('{"a":1}\n', {format: 'csv'})).format).toBe('csv')
  })

  it('treats a column named __proto__ as a field', async () => {
    const file = await readBatch('amount,__proto__\n1,x\n', {normalizeNames: false})
    expect(Object.keys(file.rows[0].fields)).toEqual(['amount', '__proto__'])
    expect(Object.getPrototypeOf(file.rows[0].fields)).toBe(Object.prototype)
  })

  it('property: whatever the values, line endings, blank lines and chunking, rows and lines come back', async () => {
    const value = fc.oneof(
      fc.string({maxLength: 12}),
      fc.constantFrom('a,b', 'say "hi"', 'two\nlines', 'x\r\ny', 'ção', '😀', ' padded ', '=1+1', ';', '\t'),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(value, value), {minLength: 1, maxLength: 20}),
        fc.constantFrom('\n', '\r\n'),
        fc.array(fc.nat({max: 2}), {minLength: 21, maxLength: 21}),
        fc.array(fc.nat(), {maxLength: 6}),
        fc.boolean(),
        async (records, eol, blanks, cuts, bom) => {
          // Blank lines before each record; the true line of each record counted as it is written.
          let text = bom ? '\uFEFF' : ''
          let line = 1
          const expected: Array<{line: number; fields: Record<string, string>}> = []
          const all = [['amount', 'note'], ...records]
          all.forEach((record, index) => {
            text += eol.repeat(blanks[index])
            line += blanks[index]
            const written = stringify([record], {record_delimiter: eol === '\n' ? 'unix' : 'windows', quoted: true})
            if (index > 0) {
              // csv-parse trims around delimiters only: a quoted value keeps its spaces.
              const fields = Object.fromEntries(
                (['amount', 'note'] as const).flatMap((name, at) => (record[at] === '' ? [] : [[name, record[at]]])),
              )
              if (Object.keys(fields).length > 0) expected.push({line, fields})
            }
            text += written
            line += written.split(/\r\n|\n|\r/).length - 1
          })
          const file = await readBatch(chunked(text, cuts))
          expect(file.problems).toEqual([])
          expect(file.rows.map(({line: at, fields}) => ({line: at, fields}))).toEqual(expected)
        },
      ),
      {numRuns: 300},
    )
  })
})

describe('readBatch: NDJSON', () => {
  it('reads one object per line, told by the first character', async () => {
    const file = await readBatch('\n  {"amount": 1000, "pixKey": "maria@example.com", "metadata": {"order": 42}}\r\n\n{"amount":2500,"pix-key-type":"EMAIL"}')
    expect(file.format).toBe('ndjson')
    expect(file.problems).toEqual([])
    expect(file.rows).toEqual([
      {line: 2, row: 1, fields: {amount: 1000, 'pix-key': 'maria@example.com', metadata: {order: 42}}},
      {line: 4, row: 2, fields: {amount: 2500, 'pix-key-type': 'EMAIL'}},
    ])
  })

  it('lists every broken line and goes on', async () => {
    const file = await readBatch('{"amount":1}\n{"amount":\n[1,2]\n"text"\n{"pixKey":"a","pix_key":"b"}\n{"amount":2}\n')
    expect(file.rows.map((row) => row.line)).toEqual([1, 6])
    expect(file.problems).toEqual([
      {line: 2, message: expect.stringMatching(/^is not valid JSON: /)},
      {line: 3, message: 'must be a JSON object, one per line'},
      {line: 4, message: 'must be a JSON object, one per line'},
      {line: 5, field: 'pix-key', message: 'names pix-key twice ("pixKey" and "pix_key")'},
    ])
  })

  it('refuses a JSON array, with the line it starts on', async () => {
    expect((await readBatch('\n\n[{"amount":1}]')).problems).toEqual([{line: 3, message: 'a JSON array is not NDJSON: write one JSON object per line'}])
  })
})

describe('readBatch: any file', () => {
  it('says when the file is empty', async () => {
    expect((await readBatch('')).problems).toEqual([{line: 1, message: 'the file is empty: it needs CSV with a header line, or NDJSON'}])
    expect((await readBatch(' \n\t\n')).problems).toHaveLength(1)
    expect((await readBatch('amount,pix-key\n')).rows).toEqual([]) // a header alone: no rows, no problem
  })

  it('reads Windows-1252 (what Excel saves as CSV in Portuguese), and says so', async () => {
    const notes: string[] = []
    const latin1 = Buffer.from('amount,name\n1,Ana\n2,Jo\xE3o\n', 'latin1')
    const file = await readBatch(latin1, {note: (text) => notes.push(text)})
    expect(file.problems).toEqual([])
    expect(file.rows.map((row) => row.fields.name)).toEqual(['Ana', 'João'])
    expect(notes).toEqual([expect.stringContaining('not UTF-8: read as Windows-1252')])
    expect((await readBatch(Buffer.from('{"name":"Jo\xE3o"}\n', 'latin1'))).rows[0].fields.name).toBe('João')
  })

  it('refuses a UTF-8 file with bytes that are not UTF-8 further on, naming the line', async () => {
    const mixed = Buffer.concat([Buffer.from('amount,name\n1,Zoë\n'), Buffer.from('2,Jo\xE3o\n', 'latin1')])
    const file = await readBatch(mixed)
    expect(file.problems).toEqual([{line: 3, message: 'the file is not UTF-8 text: save the file as UTF-8 (in a spreadsheet, "CSV UTF-8")'}])
  })

  it('reads a stream cut anywhere, even inside a character', async () => {
    const text = 'amount,name\n1,João\n2,Zoë 😀\n'
    const bytes = Buffer.from(text)
    for (let cut = 1; cut < bytes.length; cut += 1) {
      const file = await readBatch(chunked(bytes, [cut]))
      expect(file.rows.map((row) => row.fields.name), `cut at ${cut}`).toEqual(['João', 'Zoë 😀'])
    }
  })

  it('refuses more rows than allowed without reading the rest', async () => {
    let pulled = 0
    async function* source() {
      yield 'amount\n'
      for (let index = 0; index < 1000; index += 1) {
        pulled += 1
        yield `${index}\n`
      }
    }
    const error = await readBatch(source(), {maxRows: 5}).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(BatchTooLargeError)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as BatchTooLargeError).message).toBe('the batch file has more than 5 rows')
    expect(pulled).toBeLessThan(20)
    expect((await readBatch('amount\n1\n2\n', {maxRows: 2})).count).toBe(2)
  })

  it('yields entries one by one, and returns the summary', async () => {
    const entries = readBatchEntries('amount\n1\nx,y\n')
    const seen: BatchEntry[] = []
    let next = await entries.next()
    while (!next.done) {
      seen.push(next.value)
      next = await entries.next()
    }
    expect(seen.map((entry) => [entry.kind, entry.line])).toEqual([
      ['row', 2],
      ['problem', 3],
    ])
    expect(next.value).toMatchObject({format: 'csv', count: 1})
  })
})

describe('the batch hash and idempotency keys', () => {
  const base = 'amount,pix-key\n1000,maria@example.com\n2500,"joao@example.com"\n'

  it('is the same for the same data however the file is laid out', async () => {
    const {sha256} = await readBatch(base)
    const layouts = [
      '\uFEFFamount,pix-key\r\n1000,maria@example.com\r\n\r\n2500,joao@example.com',
      '"amount","pixKey"\n"1000","maria@example.com"\n 2500 , joao@example.com \n',
      'pix-key;amount\nmaria@example.com;1000\njoao@example.com;2500\n',
    ]
    for (const layout of layouts) expect((await readBatch(layout)).sha256, layout).toBe(sha256)
  })

  it('is the hash of the same rows as NDJSON: names sorted, escaped, __proto__ a name like any other', async () => {
    // A CSV row's hash is made from its header once; NDJSON's from each object's keys.
    const csv = 'zeta,"quo""te",__proto__,Alpha,ção\n1,"a ""b""",p,,ü\n,x,,y,\n'
    const ndjson = '{"zeta":"1","quo\\"te":"a \\"b\\"","__proto__":"p","ção":"ü"}\n{"quo\\"te":"x","Alpha":"y"}\n'
    const fromCsv = await readBatch(csv, {normalizeNames: false})
    const fromNdjson = await readBatch(ndjson, {normalizeNames: false})
    expect(fromCsv.problems).toEqual([])
    expect(fromNdjson.problems).toEqual([])
    expect(fromCsv.rows.map((row) => row.fields)).toEqual(fromNdjson.rows.map((row) => row.fields))
    expect(Object.keys(fromCsv.rows[0].fields)).toContain('__proto__')
    expect(Object.getPrototypeOf(fromCsv.rows[0].fields)).toBe(Object.prototype)
    expect(fromCsv.sha256).toBe(fromNdjson.sha256)
  })

  it('property: a CSV file hashes as its rows written as NDJSON', async () => {
    const name = fc.constantFrom('amount', 'pix-key', 'b', 'a-b', 'z', '__proto__', 'ção', 'x"y')
    const value = fc.oneof(fc.constantFrom('', '1', ' a ', 'say "hi"', 'a,b', 'ção', '😀', '=1'), fc.string({maxLength: 6}).filter((text) => !/[\r\n]/.test(text)))
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(name, {minLength: 1, maxLength: 5}), fc.array(fc.array(value, {minLength: 5, maxLength: 5}), {minLength: 1, maxLength: 6}), async (names, rows) => {
        const csv = stringify([names, ...rows.map((row) => row.slice(0, names.length))], {quoted: true})
        const file = await readBatch(csv)
        fc.pre(file.problems.length === 0)
        const ndjson = file.rows.map((row) => JSON.stringify(row.fields)).join('\n')
        expect((await readBatch(ndjson, {format: 'ndjson'})).sha256).toBe(file.sha256)
      }),
      {numRuns: 100},
    )
  })

  it('is left out when not asked for: the rows are the same, the hash empty', async () => {
    const withHash = await readBatch(base)
    const without = await readBatch(base, {hash: false})
    expect(without.rows).toEqual(withHash.rows)
    expect(without.sha256).toBe('')
  })

  it('changes with any value, and with the order of the rows', async () => {
    const {sha256} = await readBatch(base)
    expect((await readBatch(base.replace('2500', '2501'))).sha256).not.toBe(sha256)
    expect((await readBatch('amount,pix-key\n2500,joao@example.com\n1000,maria@example.com\n')).sha256).not.toBe(sha256)
    expect((await readBatch(`${base}1,x\n`)).sha256).not.toBe(sha256)
  })

  it('derives a key from the hash and the row: 8 to 255 characters, the same on every run', async () => {
    const file = await readBatch(base)
    const key = deriveIdempotencyKey(file.sha256, 2)
    expect(key).toBe(`batch-${file.sha256.slice(0, 32)}-2`)
    expect(deriveIdempotencyKey(file.sha256, 2, 'withdraw')).toBe(`withdraw-${file.sha256.slice(0, 32)}-2`)
    expect(rowIdempotencyKeys(await readBatch(base))).toEqual(rowIdempotencyKeys(file))
    expect(() => deriveIdempotencyKey('abc', 1)).toThrow(TypeError)
    expect(() => deriveIdempotencyKey(file.sha256, 0)).toThrow(TypeError)
    expect(() => deriveIdempotencyKey(file.sha256, 1, 'no spaces')).toThrow(TypeError)
  })

  it("takes a row's own key, and refuses one too short, too long, or shared", async () => {
    const file = await readBatch(
      `amount,idempotency-key\n1,\n2,short\n3,payout-2026-11-0001\n4,payout-2026-11-0001\n5,${'k'.repeat(256)}\n6,  payout-2026-11-0002  \n`,
    )
    const {keys, problems} = rowIdempotencyKeys(file)
    expect(keys).toEqual([
      {line: 2, row: 1, key: deriveIdempotencyKey(file.sha256, 1), derived: true},
      {line: 4, row: 3, key: 'payout-2026-11-0001', derived: false},
      {line: 7, row: 6, key: 'payout-2026-11-0002', derived: false},
    ])
    expect(problems).toEqual([
      {line: 3, field: 'idempotency-key', message: 'must be 8 to 255 characters; it has 5'},
      {line: 5, field: 'idempotency-key', message: 'is the key of line 4 too: each row needs its own'},
      {line: 6, field: 'idempotency-key', message: 'must be 8 to 255 characters; it has 256'},
    ])
    const ndjson = await readBatch('{"amount":1,"idempotencyKey":12345678}\n{"amount":2,"idempotencyKey":true}\n')
    expect(rowIdempotencyKeys(ndjson).keys.map((each) => each.key)).toEqual(['12345678'])
    expect(rowIdempotencyKeys(ndjson).problems).toEqual([{line: 2, field: 'idempotency-key', message: 'must be a text of 8 to 255 characters'}])
  })

  it('property: derived keys are distinct, within 8 to 255 characters, for any rows', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{64}$/), fc.integer({min: 1, max: 10_000}), fc.stringMatching(/^[A-Za-z0-9._-]{1,64}$/), (sha256, count, prefix) => {
        const rows = Array.from({length: Math.min(count, 200)}, (_, index) => ({line: index + 2, row: index + 1, fields: {}}))
        const {keys, problems} = rowIdempotencyKeys({rows, sha256}, {prefix})
        expect(problems).toEqual([])
        expect(new Set(keys.map((each) => each.key)).size).toBe(rows.length)
        for (const {key} of keys) expect(key.length >= 8 && key.length <= 255).toBe(true)
        expect(deriveIdempotencyKey(sha256, count, prefix).length).toBeLessThanOrEqual(255)
      }),
    )
  })
})

describe('reading a list of entries at a time', () => {
  it('gives the entries of readBatchEntries, in order, whatever the chunks', async () => {
    const lines = ['amount,pix-key']
    for (let index = 0; index < 3000; index += 1) lines.push(index % 500 === 7 ? `${index},a,b` : `${index},key-${index}@example.com`)
    const text = `${lines.join('\n')}\n`
    const cuts = [5, 17, 4096, 9000, 20_000, 40_000]
    const pieces: BatchEntry[][] = []
    for await (const piece of readBatchPieces(chunked(text, cuts))) pieces.push(piece)
    const entries: BatchEntry[] = []
    for await (const entry of readBatchEntries(chunked(text, cuts))) entries.push(entry)
    expect(pieces.length).toBeGreaterThan(1)
    expect(pieces.every((piece) => piece.length > 0)).toBe(true)
    expect(pieces.flat()).toEqual(entries)
    expect(entries.filter((entry) => entry.kind === 'row')).toHaveLength(2994)
    expect(entries.filter((entry) => entry.kind === 'problem').map((entry) => entry.line)).toEqual([9, 509, 1009, 1509, 2009, 2509])
  })

  it('an entry reader stopped early closes what it reads', async () => {
    let closed = false
    async function* source(): AsyncGenerator<string> {
      try {
        yield 'amount,pix-key\n'
        for (let index = 0; ; index += 1) yield `${index},k\n`
      } finally {
        closed = true
      }
    }
    const entries = readBatchEntries(source())
    expect((await entries.next()).value).toMatchObject({kind: 'row', line: 2})
    await entries.return(undefined as never)
    expect(closed).toBe(true)
  })
})
