import fc from 'fast-check'
import {PNG} from 'pngjs'
import {describe, expect, it} from 'vitest'

import {terminalText} from '../../src/cli/terminal.js'
import {brl} from '../../src/render/money.js'
import {blockBar, calendarDays, pngBarChart, pngChartLayout, terminalBarChart, type ChartDay} from '../../src/summary/chart.js'

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉']
/** Without colour: the SGR sequences a writer made, or the painter's marks (C1 characters) they are made from. */
const stripAnsi = (text: string) => text.replace(/\u001B\[\d+m|[\u0080-\u009f]/g, '')

/** Eighths drawn in a line's bar: eight per █, plus the partial block. */
function eighthsIn(line: string): number {
  let count = 0
  for (const char of stripAnsi(line)) {
    if (char === '█') count += 8
    else if (EIGHTHS.includes(char) && char !== '') count += EIGHTHS.indexOf(char)
  }
  return count
}

const days: ChartDay[] = [
  {day: '2026-11-18', amountPaid: 123_456},
  {day: '2026-11-19', amountPaid: 5},
  {day: '2026-11-21', amountPaid: 98_765},
  {day: '2026-11-22', amountPaid: 250_000},
]

describe('calendarDays', () => {
  it('sorts the days, adds a zero day for each gap, and adds up a day given twice', () => {
    expect(calendarDays([{day: '2026-03-01', amountPaid: 2}, {day: '2026-02-27', amountPaid: 1}, {day: '2026-03-01', amountPaid: 3}])).toEqual([
      {day: '2026-02-27', amountPaid: 1},
      {day: '2026-02-28', amountPaid: 0},
      {day: '2026-03-01', amountPaid: 5},
    ])
    expect(calendarDays([])).toEqual([])
  })

  it('refuses what is no day', () => {
    expect(() => calendarDays([{day: '20/11/2026', amountPaid: 1}])).toThrow(RangeError)
  })
})

describe('blockBar', () => {
  it('draws whole cells with █ and the rest with an eighth block, padded to the cells', () => {
    expect(blockBar(0, 3)).toBe('   ')
    expect(blockBar(1, 3)).toBe('▏  ')
    expect(blockBar(8, 3)).toBe('█  ')
    expect(blockBar(13, 3)).toBe('█▋ ')
    expect(blockBar(24, 3)).toBe('███')
  })
})

describe('terminalBarChart', () => {
  it('draws a line per calendar day: the day, a bar, the BRL amount right-aligned', () => {
    const lines = terminalBarChart(days, {width: 60})
    expect(lines.map((line) => line.slice(0, 10))).toEqual(['2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22'])
    for (const line of lines) expect(line).toHaveLength(60)
    expect(lines[4].endsWith(` ${brl(250_000)}`)).toBe(true)
    expect(lines[1].endsWith(brl(5))).toBe(true)
    const cells = 60 - 11 - brl(250_000).length - 1
    expect(eighthsIn(lines[4])).toBe(cells * 8) // the largest fills the bar area
    expect(eighthsIn(lines[1])).toBe(1) // 5 cents is still seen
    expect(eighthsIn(lines[2])).toBe(0) // the gap day
    expect(lines.join('')).not.toContain('\u001B')
  })

  it('colours the bars only when asked, and otherwise draws the same', () => {
    const plain = terminalBarChart(days, {width: 60})
    // The chart paints with the painter's marks; the writer turns them into colour.
    const coloured = terminalBarChart(days, {width: 60, color: true}).map((line) => terminalText(line, {color: true}))
    expect(coloured[0]).toContain('\u001B[32m')
    expect(coloured.map(stripAnsi)).toEqual(plain)
  })

  it('keeps the given order and no gap days with fillGaps: false', () => {
    expect(terminalBarChart(days, {width: 60, fillGaps: false}).map((line) => line.slice(0, 10))).toEqual(days.map((day) => day.day))
  })

  it('gives up the year, then the amounts, on a narrow terminal', () => {
    const narrow = terminalBarChart(days, {width: 30})
    expect(narrow[0].startsWith('11-18 ')).toBe(true)
    expect(narrow[0]).toContain(brl(123_456))
    const narrower = terminalBarChart(days, {width: 16})
    expect(narrower[0]).not.toContain('R$')
    expect(eighthsIn(narrower[4])).toBe((16 - 6) * 8)
    const twoYears = terminalBarChart([{day: '2025-12-31', amountPaid: 1}, {day: '2026-01-01', amountPaid: 2}], {width: 20})
    expect(twoYears[0].startsWith('2025-12-31 ')).toBe(true)
  })

  it('draws nothing for no days, and flat for days that paid nothing', () => {
    expect(terminalBarChart([], {width: 80})).toEqual([])
    expect(terminalBarChart([{day: '2026-11-20', amountPaid: 0}], {width: 40}).map(eighthsIn)).toEqual([0])
  })

  it('property: every line fits the width, bars grow with the amount, and each is the amount to within an eighth of a cell', () => {
    const chartDays = fc.uniqueArray(
      fc.record({day: fc.integer({min: 0, max: 60}).map((offset) => new Date(Date.UTC(2026, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10)), amountPaid: fc.integer({min: 0, max: 100_000_000})}),
      {selector: (each) => each.day, minLength: 1, maxLength: 40},
    )
    fc.assert(
      fc.property(chartDays, fc.integer({min: 1, max: 200}), fc.boolean(), (input, width, color) => {
        const lines = terminalBarChart(input, {width, color})
        const rows = calendarDays(input)
        expect(lines).toHaveLength(rows.length)
        for (const line of lines) expect([...stripAnsi(line)].length).toBeLessThanOrEqual(Math.max(width, 1))
        if (width < 12) return // too narrow for a meaningful bar: only the fit is promised
        const max = Math.max(...rows.map((row) => row.amountPaid))
        const drawn = lines.map(eighthsIn)
        const full = Math.max(...drawn)
        rows.forEach((row, index) => {
          if (row.amountPaid === 0) expect(drawn[index]).toBe(0)
          else expect(drawn[index]).toBeGreaterThanOrEqual(1)
          if (max > 0 && row.amountPaid > 0) expect(Math.abs(drawn[index] - (row.amountPaid / max) * full)).toBeLessThanOrEqual(1)
          rows.forEach((other, otherIndex) => {
            if (row.amountPaid > other.amountPaid) expect(drawn[index]).toBeGreaterThanOrEqual(drawn[otherIndex])
          })
        })
      }),
      {numRuns: 300},
    )
  })
})

describe('pngBarChart', () => {
  const BAR = [46, 125, 50]

  function read(buffer: Buffer) {
    const png = PNG.sync.read(buffer)
    const pixel = (x: number, y: number) => [...png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 3)]
    return {png, pixel}
  }

  it('writes a PNG as wide as asked, a row per calendar day, each bar in proportion', () => {
    const buffer = pngBarChart(days, {width: 640})
    expect(buffer.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    const {png, pixel} = read(buffer)
    const box = pngChartLayout(days, {width: 640})
    expect(png.width).toBe(640)
    expect(png.height).toBe(box.height)
    expect(box.height).toBe(box.margin * 2 + 5 * box.rowHeight)
    expect(pixel(0, 0)).toEqual([255, 255, 255])
    const rows = calendarDays(days)
    rows.forEach((row, index) => {
      const middle = box.margin + index * box.rowHeight + box.rowHeight / 2
      let length = 0
      for (let x = 0; x < png.width; x += 1) if (pixel(x, middle).join() === BAR.join()) length += 1
      const expected = row.amountPaid === 0 ? 0 : Math.max(1, Math.round((row.amountPaid / 250_000) * box.barWidth))
      expect(length, row.day).toBe(expected)
      if (length > 0) expect(pixel(box.barX, middle)).toEqual(BAR)
      // The date and the amount are drawn in the text colour on either side.
      const textIn = (from: number, to: number) => {
        let count = 0
        for (let y = middle - box.rowHeight / 2; y < middle + box.rowHeight / 2; y += 1) for (let x = from; x < to; x += 1) if (pixel(x, y).join() === '51,51,51') count += 1
        return count
      }
      expect(textIn(box.margin, box.margin + box.labelWidth)).toBeGreaterThan(50)
      expect(textIn(png.width - box.margin - box.amountWidth, png.width)).toBeGreaterThan(30)
    })
  })

  it('widens an image too narrow for its labels, and draws a blank one for no days', () => {
    expect(read(pngBarChart(days, {width: 50})).png.width).toBe(pngChartLayout(days, {width: 50}).width)
    expect(pngChartLayout(days, {width: 50}).barWidth).toBeGreaterThan(0)
    const blank = read(pngBarChart([]))
    expect(blank.png.width).toBeGreaterThan(0)
    expect(blank.pixel(0, 0)).toEqual([255, 255, 255])
  })

  it('is the same bytes for the same data', () => {
    expect(pngBarChart(days).equals(pngBarChart(days))).toBe(true)
  })
})
