import {Readable} from 'node:stream'

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {readExpected} from '../../src/reconcile/expected.js'

/** A file of rows of every kind, each with what reading it must give. */
type Kind = 'good' | 'good-due' | 'good-document' | 'short-code' | 'decimal' | 'no-amount' | 'bad-day' | 'bad-document' | 'extra' | 'repeat' | 'repeat-bad'

const DOCUMENT = '529.982.247-25'

/** The kinds that break one column: the column, the value written there (none: the column is left out), and the field the problem names. */
const BROKEN: Partial<Record<Kind, {column: string; value?: string; field: string}>> = {
  'short-code': {column: 'external-code', value: 'short', field: 'external-code'},
  decimal: {column: 'amount', value: '10.50', field: 'amount'},
  'no-amount': {column: 'amount', field: 'amount'},
  'bad-day': {column: 'due-date', value: '2026-02-30', field: 'due-date'},
  'bad-document': {column: 'document', value: '111.111.111-11', field: 'document'},
}

describe('reading the expected file', () => {
  it('property: rows of every kind, in any order and cut anywhere, read to the rows and problems each kind has', async () => {
    const kinds: Kind[] = ['good', 'good-due', 'good-document', 'short-code', 'decimal', 'no-amount', 'bad-day', 'bad-document', 'extra', 'repeat', 'repeat-bad']
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...kinds), {minLength: 1, maxLength: 30}), fc.array(fc.nat(4000), {maxLength: 5}), fc.boolean(), async (drawn, cuts, asNdjson) => {
        const lines: string[] = []
        const objects: Array<Record<string, string>> = []
        const wanted: {rows: Array<{line: number; externalCode: string; amount: number; dueDate?: string; document?: string}>; problems: Array<{line: number; field?: string}>} = {rows: [], problems: []}
        /** The line each code was first written on. */
        const first = new Map<string, number>()
        let extraSaid = false
        drawn.forEach((kind, index) => {
          const line = index + 2
          let code = `CODE-${String(index).padStart(5, '0')}`
          const fields: Record<string, string> = {'external-code': ` ${code} `, amount: '1000'}
          const problems: Array<{line: number; field?: string}> = []
          if (kind === 'good-due') fields['due-date'] = '2026-11-20'
          if (kind === 'good-document') fields['customer-document'] = DOCUMENT
          // A kind that puts one bad value in one column, and the field the problem names.
          const broken = BROKEN[kind]
          if (broken) {
            if (broken.value === undefined) delete fields[broken.column]
            else fields[broken.column] = broken.value
            problems.push({line, field: broken.field})
          }
          if (kind === 'extra') {
            fields.colour = 'red'
            // An unknown column is said once, on the first row that has it.
            if (!extraSaid) problems.push({line, field: 'colour'})
            extraSaid = true
          }
          if ((kind === 'repeat' || kind === 'repeat-bad') && index > 0) {
            // The code of the first row, written again (a bad row's code counts too).
            code = `CODE-${String(0).padStart(5, '0')}`
            fields['external-code'] = code
            if (first.has(code)) problems.push({line, field: 'external-code'})
            if (kind === 'repeat-bad') {
              fields.amount = '0'
              problems.push({line, field: 'amount'})
            }
          }
          if (kind === 'short-code') code = 'short'
          else if (!first.has(code)) first.set(code, line)
          objects.push(fields)
          if (problems.length > 0) wanted.problems.push(...problems)
          else
            wanted.rows.push({
              line,
              externalCode: code,
              amount: 1000,
              ...(fields['due-date'] ? {dueDate: fields['due-date']} : {}),
              ...(fields['customer-document'] ? {document: DOCUMENT} : {}),
            })
        })
        let text: string
        if (asNdjson) {
          text = objects.map((object) => JSON.stringify(object)).join('\n')
          // NDJSON has no header line: each row is one line earlier.
          for (const row of wanted.rows) row.line -= 1
          for (const problem of wanted.problems) problem.line -= 1
        } else {
          const header = ['external-code', 'amount', 'due-date', 'customer-document', 'document', 'colour']
          lines.push(header.join(','))
          for (const object of objects) lines.push(header.map((name) => object[name] ?? '').join(','))
          text = `${lines.join('\n')}\n`
          // An empty cell is no field: a colour column with one value is there on every row, said once.
          const hasColour = objects.some((object) => object.colour)
          if (hasColour) {
            const said = wanted.problems.filter((problem) => problem.field === 'colour')
            if (said.length === 0) wanted.problems.push({line: 2, field: 'colour'})
          }
        }
        const bytes = Buffer.from(text)
        const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
        const parts: Buffer[] = []
        let from = 0
        for (const point of [...points, bytes.length]) {
          if (point > from) parts.push(bytes.subarray(from, point))
          from = point
        }
        const file = await readExpected(Readable.from(parts), {maxRows: 1000})
        const got = {
          rows: file.rows.map((row) => ({line: row.line, externalCode: row.externalCode, amount: row.amount, ...(row.dueDate ? {dueDate: row.dueDate} : {}), ...(row.document ? {document: row.document} : {})})),
          problems: file.problems.map(({line, field}) => ({line, field})),
        }
        const sortProblems = (list: Array<{line: number; field?: string}>) => [...list].sort((a, b) => a.line - b.line || String(a.field).localeCompare(String(b.field)))
        expect(got.rows).toEqual(wanted.rows)
        expect(sortProblems(got.problems)).toEqual(sortProblems(wanted.problems))
        expect([...file.byCode.keys()]).toEqual(wanted.rows.map((row) => row.externalCode))
        for (const row of file.rows) expect(file.byCode.get(row.externalCode)).toBe(row)
      }),
      {numRuns: 200},
    )
  })

  it('a code first written on a bad row: a later good row with it is refused, naming the first line', async () => {
    const file = await readExpected('external-code,amount\nCODE-0001,0\nCODE-0001,100\nCODE-0002,100\nCODE-0002,200\n', {maxRows: 10})
    expect(file.problems).toEqual([
      {line: 2, field: 'amount', message: expect.stringMatching(/^amount must be from 1/)},
      {line: 3, field: 'external-code', message: 'external-code CODE-0001 is on line 2 too: each expected charge has its own code'},
      {line: 5, field: 'external-code', message: 'external-code CODE-0002 is on line 4 too: each expected charge has its own code'},
    ])
    expect(file.rows.map((row) => row.line)).toEqual([4])
  })

  it('a row of a due date, trimmed, is due at the end of that day; the same day read once for every row', async () => {
    const file = await readExpected('external-code,amount,due-date\nCODE-0001,100, 2026-11-20 \nCODE-0002,100,2026-11-20\n', {zone: 'UTC', maxRows: 10})
    expect(file.rows.map((row) => [row.dueDate, row.dueMs])).toEqual([
      ['2026-11-20', Date.parse('2026-11-20T23:59:59.999Z')],
      ['2026-11-20', Date.parse('2026-11-20T23:59:59.999Z')],
    ])
  })
})
