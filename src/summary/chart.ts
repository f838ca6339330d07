import {PNG} from 'pngjs'

import {brl} from '../render/money.js'
import {mark} from '../cli/terminal.js'

/**
 * The daily paid amount as a horizontal bar chart: lines of text with Unicode block characters
 * for a terminal, or a PNG image. Both are pure: data in, lines or bytes out.
 */

/** One day's paid amount in cents; a summary's DayRow fits as it is. */
export interface ChartDay {
  /** YYYY-MM-DD. */
  day: string
  amountPaid: number
}

const DAY = /^\d{4}-\d{2}-\d{2}$/
const DAY_MS = 86_400_000

/**
 * The days sorted, with every missing day between the first and the last as a zero bar, so the
 * chart's rows are a calendar. Days given twice are added up.
 */
export function calendarDays(days: readonly ChartDay[]): ChartDay[] {
  const byDay = new Map<string, number>()
  for (const {day, amountPaid} of days) {
    if (!DAY.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) throw new RangeError(`day must be YYYY-MM-DD; got ${JSON.stringify(day)}`)
    byDay.set(day, (byDay.get(day) ?? 0) + amountPaid)
  }
  const sorted = [...byDay.keys()].sort()
  if (sorted.length === 0) return []
  const out: ChartDay[] = []
  const last = Date.parse(`${sorted.at(-1)}T00:00:00Z`)
  for (let ms = Date.parse(`${sorted[0]}T00:00:00Z`); ms <= last; ms += DAY_MS) {
    const day = new Date(ms).toISOString().slice(0, 10)
    out.push({day, amountPaid: byDay.get(day) ?? 0})
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Terminal
// ---------------------------------------------------------------------------------------------

/** Partial blocks from one eighth to seven eighths of a cell; a full cell is █. */
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉']
const FULL = '█'

export interface TerminalChartOptions {
  /** Columns the lines must fit in (e.g. the terminal's width). */
  width: number
  /** Colour the bars (ANSI green). Off by default: the caller decides from the terminal and NO_COLOR. */
  color?: boolean
  /** Zero bars for the days missing between the first and the last. Default true. */
  fillGaps?: boolean
}

/** A bar of `eighths` eighths of a cell, padded with spaces to `cells` cells. */
export function blockBar(eighths: number, cells: number): string {
  const full = Math.floor(eighths / 8)
  const bar = FULL.repeat(full) + EIGHTHS[eighths % 8]
  return bar + ' '.repeat(Math.max(0, cells - [...bar].length))
}

/**
 * Lines of a bar chart, one per day: the day, a bar scaled so the largest amount fills the bar
 * area, and the amount in BRL right-aligned. Each line fits `width` columns: on a narrow
 * terminal the days lose their year (when all share one), then the amounts go, then the bars
 * shrink to one cell. A non-zero amount always shows at least an eighth of a cell. No days, no
 * lines.
 */
export function terminalBarChart(days: readonly ChartDay[], options: TerminalChartOptions): string[] {
  const rows = options.fillGaps === false ? [...days].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0)) : calendarDays(days)
  if (rows.length === 0) return []
  const width = Math.max(1, Math.floor(options.width))
  const max = Math.max(0, ...rows.map((row) => row.amountPaid))
  const amounts = rows.map((row) => brl(row.amountPaid))
  const amountWidth = Math.max(...amounts.map((text) => text.length))
  const oneYear = rows.every((row) => row.day.slice(0, 4) === rows[0].day.slice(0, 4))
  const MIN_BAR = 8

  let labels = rows.map((row) => row.day)
  let showAmounts = true
  const barCells = () => width - labels[0].length - 1 - (showAmounts ? amountWidth + 1 : 0)
  if (barCells() < MIN_BAR && oneYear) labels = rows.map((row) => row.day.slice(5))
  if (barCells() < MIN_BAR) showAmounts = false
  const cells = Math.max(1, barCells())
  // Below one cell the lines are cut to the width, which colour codes would not survive.
  const colour = options.color === true && barCells() >= 1

  return rows.map((row, index) => {
    const value = Math.max(0, row.amountPaid)
    let eighths = max === 0 ? 0 : Math.round((value / max) * cells * 8)
    if (value > 0 && eighths === 0) eighths = 1
    let bar = blockBar(eighths, cells)
    if (colour && eighths > 0) {
      const drawn = bar.trimEnd()
      bar = `${mark('green', drawn)}${bar.slice(drawn.length)}`
    }
    const line = showAmounts ? `${labels[index]} ${bar} ${amounts[index].padStart(amountWidth)}` : `${labels[index]} ${bar}`.trimEnd()
    return colour ? line : line.slice(0, width)
  })
}

// ---------------------------------------------------------------------------------------------
// PNG
// ---------------------------------------------------------------------------------------------

/** A 5×7 bitmap font for the labels: digits and what dates and BRL amounts hold. */
const FONT: Record<string, string[]> = {
  '0': ['.###.', '#...#', '#..##', '#.#.#', '##..#', '#...#', '.###.'],
  '1': ['..#..', '.##..', '..#..', '..#..', '..#..', '..#..', '.###.'],
  '2': ['.###.', '#...#', '....#', '...#.', '..#..', '.#...', '#####'],
  '3': ['#####', '...#.', '..#..', '...#.', '....#', '#...#', '.###.'],
  '4': ['...#.', '..##.', '.#.#.', '#..#.', '#####', '...#.', '...#.'],
  '5': ['#####', '#....', '####.', '....#', '....#', '#...#', '.###.'],
  '6': ['..##.', '.#...', '#....', '####.', '#...#', '#...#', '.###.'],
  '7': ['#####', '....#', '...#.', '..#..', '.#...', '.#...', '.#...'],
  '8': ['.###.', '#...#', '#...#', '.###.', '#...#', '#...#', '.###.'],
  '9': ['.###.', '#...#', '#...#', '.####', '....#', '...#.', '.##..'],
  '-': ['.....', '.....', '.....', '.###.', '.....', '.....', '.....'],
  R: ['####.', '#...#', '#...#', '####.', '#.#..', '#..#.', '#...#'],
  $: ['..#..', '.####', '#.#..', '.###.', '..#.#', '####.', '..#..'],
  '.': ['.....', '.....', '.....', '.....', '.....', '.##..', '.##..'],
  ',': ['.....', '.....', '.....', '.....', '.##..', '..#..', '.#...'],
}

const GLYPH_WIDTH = 5
const GLYPH_HEIGHT = 7

type Rgb = readonly [number, number, number]

export interface PngChartOptions {
  /** Image width in pixels (default 800); widened when the labels would not leave room for bars. */
  width?: number
  /** Pixels per font dot (default 2). */
  scale?: number
  /** Zero bars for the days missing between the first and the last. Default true. */
  fillGaps?: boolean
  background?: Rgb
  bar?: Rgb
  text?: Rgb
}

/** The layout of the PNG chart, in pixels; exported for tests and for callers that size things. */
export interface PngLayout {
  width: number
  height: number
  margin: number
  rowHeight: number
  labelWidth: number
  amountWidth: number
  barX: number
  barWidth: number
}

function layout(rows: ChartDay[], amounts: string[], options: PngChartOptions): PngLayout {
  const scale = Math.max(1, Math.floor(options.scale ?? 2))
  const advance = (GLYPH_WIDTH + 1) * scale
  const margin = 4 * scale
  const gap = 4 * scale
  const labelWidth = 10 * advance
  const amountWidth = Math.max(...amounts.map((text) => text.length)) * advance
  const minimum = margin * 2 + labelWidth + gap * 2 + amountWidth + 40 * scale
  const width = Math.max(Math.floor(options.width ?? 800), minimum)
  const barWidth = width - margin * 2 - labelWidth - amountWidth - gap * 2
  const rowHeight = (GLYPH_HEIGHT + 4) * scale
  return {width, height: margin * 2 + rows.length * rowHeight, margin, rowHeight, labelWidth, amountWidth, barX: margin + labelWidth + gap, barWidth}
}

/**
 * A PNG (RGB, 8 bits) of the same chart: one row per day with its date on the left, the bar,
 * and the BRL amount right-aligned on the right, the largest amount filling the bar area. No
 * days: a small blank image.
 */
export function pngBarChart(days: readonly ChartDay[], options: PngChartOptions = {}): Buffer {
  const rows = options.fillGaps === false ? [...days].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0)) : calendarDays(days)
  const amounts = rows.map((row) => brl(row.amountPaid).replace(/\s/g, ' '))
  const scale = Math.max(1, Math.floor(options.scale ?? 2))
  const box = rows.length === 0 ? {...layout([], ['R$ 0,00'], options), height: 8 * scale} : layout(rows, amounts, options)
  const background = options.background ?? [255, 255, 255]
  const barColour = options.bar ?? [46, 125, 50]
  const textColour = options.text ?? [51, 51, 51]

  // pngjs holds RGBA pixels; the file is written as RGB.
  const png = new PNG({width: box.width, height: box.height})
  const paint = (x: number, y: number, w: number, h: number, [r, g, b]: Rgb) => {
    for (let row = Math.max(0, y); row < Math.min(box.height, y + h); row += 1) {
      for (let column = Math.max(0, x); column < Math.min(box.width, x + w); column += 1) {
        const at = (row * box.width + column) * 4
        png.data[at] = r
        png.data[at + 1] = g
        png.data[at + 2] = b
        png.data[at + 3] = 255
      }
    }
  }
  const write = (text: string, x: number, y: number) => {
    ;[...text].forEach((char, index) => {
      const glyph = FONT[char]
      if (!glyph) return
      glyph.forEach((line, dotY) => {
        for (let dotX = 0; dotX < GLYPH_WIDTH; dotX += 1) {
          if (line[dotX] === '#') paint(x + (index * (GLYPH_WIDTH + 1) + dotX) * scale, y + dotY * scale, scale, scale, textColour)
        }
      })
    })
  }

  paint(0, 0, box.width, box.height, background)
  const max = Math.max(0, ...rows.map((row) => row.amountPaid))
  rows.forEach((row, index) => {
    const top = box.margin + index * box.rowHeight + 2 * scale
    write(row.day, box.margin, top)
    const value = Math.max(0, row.amountPaid)
    let length = max === 0 ? 0 : Math.round((value / max) * box.barWidth)
    if (value > 0 && length === 0) length = 1
    paint(box.barX, top, length, GLYPH_HEIGHT * scale, barColour)
    const text = amounts[index]
    write(text, box.width - box.margin - text.length * (GLYPH_WIDTH + 1) * scale + scale, top)
  })
  return PNG.sync.write(png, {colorType: 2})
}

/** The layout `pngBarChart` uses for these days and options. */
export function pngChartLayout(days: readonly ChartDay[], options: PngChartOptions = {}): PngLayout {
  const rows = options.fillGaps === false ? [...days] : calendarDays(days)
  return layout(rows, rows.map((row) => brl(row.amountPaid)), options)
}
