import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import jsqr from 'jsqr'
import {PNG} from 'pngjs'
import {describe, expect, it} from 'vitest'

import {terminalText} from '../../src/cli/terminal.js'
import {QUIET_ZONE, qrDrawing} from '../../src/render/qr.js'
import {runCommand} from '../helpers/context.js'
import {loggedInSandbox} from '../helpers/world.js'

/** jsqr is CommonJS: under NodeNext its typed decoder is the module's `default`, which it also sets. */
const jsQR = jsqr.default

type Rgb = [number, number, number]
/** A terminal's theme: the default ink and background, and what SGR 30 (black) and 47 (white) show. */
interface Theme {
  name: string
  ink: Rgb
  background: Rgb
  black: Rgb
  white: Rgb
}
const DARK: Theme = {name: 'dark', ink: [204, 204, 204], background: [30, 30, 30], black: [0, 0, 0], white: [229, 229, 229]}
const LIGHT: Theme = {name: 'light', ink: [40, 40, 40], background: [250, 250, 250], black: [0, 0, 0], white: [229, 229, 229]}

/** Pixels per module: a character cell is one module wide and two high. */
const SCALE = 4
/** The terminal's own background around the drawing, in modules. */
const AROUND = 6

/**
 * The image a terminal of that theme shows for these printed lines: each half block (▀ ▄ █ or a
 * space) as two modules in the ink or background colour in force, SGR 30/47/39/49 followed.
 */
function screenImage(text: string, theme: Theme): PNG {
  const rows = text.replace(/\n$/, '').split('\n')
  const cells = rows.map((row) => {
    let ink = theme.ink
    let background = theme.background
    const out: Array<[Rgb, Rgb]> = []
    for (const token of row.match(/\u001B\[[0-9;]*m|./gu) ?? []) {
      if (token.startsWith('\u001B[')) {
        for (const code of token.slice(2, -1).split(';').map(Number)) {
          if (code === 30) ink = theme.black
          else if (code === 39 || code === 0) ink = theme.ink
          if (code === 47) background = theme.white
          else if (code === 49 || code === 0) background = theme.background
        }
        continue
      }
      const halves: Record<string, [boolean, boolean]> = {' ': [false, false], '█': [true, true], '▀': [true, false], '▄': [false, true]}
      const [top, bottom] = halves[token] ?? (() => {
        throw new Error(`not a QR character: ${JSON.stringify(token)}`)
      })()
      out.push([top ? ink : background, bottom ? ink : background])
    }
    return out
  })
  const columns = Math.max(...cells.map((row) => row.length))
  const width = (columns + 2 * AROUND) * SCALE
  const height = (rows.length * 2 + 2 * AROUND) * SCALE
  const png = new PNG({width, height})
  const paint = (mx: number, my: number, rgb: Rgb) => {
    for (let y = my * SCALE; y < (my + 1) * SCALE; y++) {
      for (let x = mx * SCALE; x < (mx + 1) * SCALE; x++) {
        const at = (y * width + x) * 4
        png.data[at] = rgb[0]
        png.data[at + 1] = rgb[1]
        png.data[at + 2] = rgb[2]
        png.data[at + 3] = 255
      }
    }
  }
  for (let my = 0; my < height / SCALE; my++) for (let mx = 0; mx < width / SCALE; mx++) paint(mx, my, theme.background)
  cells.forEach((row, r) =>
    row.forEach(([top, bottom], c) => {
      paint(AROUND + c, AROUND + 2 * r, top)
      paint(AROUND + c, AROUND + 2 * r + 1, bottom)
    }),
  )
  return png
}

const luminance = (png: PNG, x: number, y: number) => {
  const at = (Math.round(y) * png.width + Math.round(x)) * 4
  return 0.2126 * png.data[at] + 0.7152 * png.data[at + 1] + 0.0722 * png.data[at + 2]
}

/**
 * What a strict reader (no inversion tried: dark modules on light paper, as a phone camera expects)
 * decodes from the image, and how many light modules surround the code on its narrowest side.
 */
function scan(png: PNG, label: string): {text?: string; quietZone?: number} {
  const found = jsQR(new Uint8ClampedArray(png.data), png.width, png.height, {inversionAttempts: 'dontInvert'})
  if (!found) {
    // Kept for a person to look at when a case fails.
    const file = join(mkdtempSync(join(tmpdir(), 'gateway-qr-')), `${label}.png`)
    writeFileSync(file, PNG.sync.write(png))
    return {}
  }
  const {topLeftCorner: tl, bottomRightCorner: br} = found.location
  const x0 = Math.round(tl.x / SCALE)
  const y0 = Math.round(tl.y / SCALE)
  const x1 = Math.round(br.x / SCALE)
  const y1 = Math.round(br.y / SCALE)
  const light = (mx: number, my: number) => luminance(png, mx * SCALE + SCALE / 2, my * SCALE + SCALE / 2) > 128
  // Module by module outward from each edge, the count of whole light rings.
  let quietZone = 0
  for (let ring = 1; ring <= 8; ring++) {
    const left = x0 - ring
    const right = x1 + ring - 1
    const top = y0 - ring
    const bottom = y1 + ring - 1
    let all = true
    for (let mx = left; mx <= right && all; mx++) all = light(mx, top) && light(mx, bottom)
    for (let my = top; my <= bottom && all; my++) all = light(left, my) && light(right, my)
    if (!all) break
    quietZone = ring
  }
  return {text: found.data, quietZone}
}

const CODE =
  '00020101021226820014br.gov.bcb.pix2560pix.example.com/qr/v2/cobv/9d36b84f-c70b-478f-b95c-12729b90ca2552040000530398654041.005802BR5913Loja Exemplo 6009SAO PAULO62070503***6304ABCD'

describe('the terminal QR code', () => {
  it('is as wide as the code plus a four-module quiet zone on each side', async () => {
    const {lines, width} = await qrDrawing(CODE, {colors: false})
    expect(lines.every((line) => [...line].length === width)).toBe(true)
    // A QR code of version v is 17 + 4v modules wide.
    const size = width - 2 * QUIET_ZONE
    expect((size - 17) % 4).toBe(0)
    expect(size).toBeGreaterThanOrEqual(21)
    expect(scan(screenImage(lines.join('\n'), DARK), 'plain-size').text).toBe(CODE)
  })

  for (const theme of [DARK, LIGHT]) {
    it(`with colour, scans on a ${theme.name} terminal with a four-module quiet zone`, async () => {
      const {lines} = await qrDrawing(CODE, {colors: true})
      // As the writer sends them to a terminal with colour: the painter's marks become SGR sequences.
      const read = scan(screenImage(lines.map((line) => terminalText(line, {color: true})).join('\n'), theme), `colour-${theme.name}`)
      expect(read.text).toBe(CODE)
      expect(read.quietZone).toBeGreaterThanOrEqual(QUIET_ZONE)
    })
  }

  it('without colour, scans on a dark terminal with a four-module quiet zone, and shows inverted on a light one', async () => {
    const {lines} = await qrDrawing(CODE, {colors: false})
    const text = lines.join('\n')
    expect(text).not.toMatch(/\u001B/)
    const dark = scan(screenImage(text, DARK), 'plain-dark')
    expect(dark.text).toBe(CODE)
    expect(dark.quietZone).toBeGreaterThanOrEqual(QUIET_ZONE)
    // A light terminal shows light modules dark: a strict reader finds nothing (the README sends it to --qr-png).
    expect(scan(screenImage(text, LIGHT), 'plain-light').text).toBeUndefined()
  })
})

describe('tx create draws the charge’s QR code for a terminal', () => {
  const world = loggedInSandbox()
  const create = (options: {columns: number; env?: Record<string, string>; args?: string[]}) =>
    runCommand(['tx', 'create', '--amount', '1000', ...(options.args ?? [])], {
      env: {...world.env, ...options.env},
      tty: {stdout: true, stderr: true},
      columns: options.columns,
    })
  const codeOf = (stdout: string) => /Pix copia e cola:(?:\u001B\[22m)?\n(.+)\n/.exec(stdout)?.[1]
  const drawingOf = (stdout: string) => stdout.slice(0, stdout.indexOf('\u001B[1mPix copia e cola') >= 0 ? stdout.indexOf('\u001B[1mPix copia e cola') : stdout.indexOf('Pix copia e cola'))
  const lookup = async (stdout: string) => {
    const id = /ID:\S* +(?:\u001B\[\d+m)?([0-9a-f-]{36})/.exec(stdout)![1]
    const result = await runCommand(['tx', 'get', id, '--json'], {env: world.env})
    return (JSON.parse(result.stdout) as {pixResponse: {uri: string}}).pixResponse.uri
  }

  for (const theme of [DARK, LIGHT]) {
    it(`with colour: the printed characters scan as the charge’s code on a ${theme.name} terminal`, async () => {
      const result = await create({columns: 80})
      expect(result.code).toBe(0)
      const code = codeOf(result.stdout)
      expect(code).toBe(await lookup(result.stdout))
      const read = scan(screenImage(drawingOf(result.stdout), theme), `tx-colour-${theme.name}`)
      expect(read.text).toBe(code)
      expect(read.quietZone).toBeGreaterThanOrEqual(QUIET_ZONE)
    })
  }

  it('under NO_COLOR: light ink, which scans as the charge’s code on a dark terminal', async () => {
    const result = await create({columns: 80, env: {NO_COLOR: '1'}})
    expect(result.code).toBe(0)
    expect(result.stdout).not.toMatch(/\u001B/)
    const code = codeOf(result.stdout)
    expect(code).toBe(await lookup(result.stdout))
    const read = scan(screenImage(drawingOf(result.stdout), DARK), 'tx-plain-dark')
    expect(read.text).toBe(code)
    expect(read.quietZone).toBeGreaterThanOrEqual(QUIET_ZONE)
  })

  for (const columns of [40, 50]) {
    it(`in a ${columns}-column terminal: no drawing, one line on stderr saying why; the code and --qr-png remain`, async () => {
      const png = join(world.config.dir, `qr-${columns}.png`)
      const result = await create({columns, args: ['--qr-png', png]})
      expect(result.code).toBe(0)
      expect(result.stdout).not.toMatch(/[▀▄█]/)
      expect(result.stderr).toMatch(new RegExp(`^The QR code is not drawn: the terminal is too small for it \\(it needs \\d+ columns and the terminal has ${columns}\\)\\. .*--qr-png FILE.*copy-and-paste code.*$`, 'm'))
      expect(result.stderr.split('\n').filter((line) => line.includes('QR code is not drawn'))).toHaveLength(1)
      expect(codeOf(result.stdout)).toBe(await lookup(result.stdout))
      expect(PNG.sync.read(await import('node:fs').then((fs) => fs.readFileSync(png))).width).toBeGreaterThan(0)
    })
  }

  it('draws when the terminal is exactly as wide as the code', async () => {
    // One charge, shown three times (its key answers the same record): the code's size depends on its text.
    const args = ['--idempotency-key', `qr-width-${Date.now()}`]
    const probe = await create({columns: 200, env: {NO_COLOR: '1'}, args})
    const drawn = drawingOf(probe.stdout).split('\n').filter(Boolean)
    const exact = [...drawn[0]].length
    const result = await create({columns: exact, env: {NO_COLOR: '1'}, args})
    expect(result.stderr).not.toMatch(/not drawn/)
    expect(drawingOf(result.stdout).split('\n').filter(Boolean).every((line) => [...line].length === exact)).toBe(true)
    const narrower = await create({columns: exact - 1, env: {NO_COLOR: '1'}, args})
    expect(narrower.stdout).not.toMatch(/[▀▄█]/)
    expect(narrower.stderr).toMatch(/not drawn/)
  })
})
