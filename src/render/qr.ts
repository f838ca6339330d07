import {marks, unmarked} from '../cli/terminal.js'

/** The quiet zone around a QR code, in modules: four, as ISO/IEC 18004 requires and phone cameras expect. */
export const QUIET_ZONE = 4

export interface QrDrawing {
  /** The lines to print (colour as the painter's marks, which the writer turns into colour or drops). */
  lines: string[]
  /** How many columns the drawing takes. */
  width: number
}

/** Each half block read the other way round: what was a light module is drawn as a dark one. */
const INVERTED: Record<string, string> = {'█': ' ', ' ': '█', '▀': '▄', '▄': '▀'}

/**
 * The QR code of a text as terminal half-block characters (one column per module, two modules per
 * line), drawn by qrcode-terminal and widened to a four-module quiet zone on every side.
 * qrcode-terminal's small drawing inks the light modules and leaves one module of margin, for the
 * dark background most terminals have. With `colors` the blocks are turned round to ink the dark
 * modules, in explicit black ink on white paper, so the code reads on a light theme and a dark one
 * alike. Without colours it stays light ink (a light terminal shows it inverted: use --qr-png there).
 */
export async function qrDrawing(text: string, options: {colors: boolean}): Promise<QrDrawing> {
  const {default: qrcodeTerminal} = await import('qrcode-terminal')
  // Its callback, never console.log: stdout is written by the CLI's own writer only.
  const drawn = await new Promise<string>((resolve) => qrcodeTerminal.generate(text, {small: true}, resolve))
  const rows = drawn.split('\n').filter((row) => row.length > 0)
  const extra = QUIET_ZONE - 1
  const light = '█'
  const width = [...rows[0]].length + 2 * extra
  const full = light.repeat(width)
  // Left and right: three light columns beside its one.
  const body = rows.map((row) => `${light.repeat(extra)}${row}${light.repeat(extra)}`)
  // Top: its first line is half a module of margin (▄); one full line in its place and one above make four.
  body[0] = full
  body.unshift(full)
  // Bottom: its last line is half a module of margin (▀) when the code has an even size, else the
  // code's last row over one light module; either way light lines follow until four modules or more.
  if (rows.at(-1)!.includes('▀')) {
    body[body.length - 1] = full
    body.push(full)
  } else {
    body.push(full, full)
  }
  if (!options.colors) return {lines: body, width}
  return {lines: body.map((line) => marks(['ink', 'paper'], [...line].map((char) => INVERTED[char] ?? char).join(''))), width}
}

/**
 * Whether the drawing fits the terminal whole together with the lines printed after it (each as
 * many screen lines as the width breaks it into), leaving the line the cursor rests on: true, or
 * the size it would need, columns × rows. A stdout that is not a terminal has no height (`rows`
 * undefined): only its width, if any, is checked there.
 */
export function qrFits(qr: QrDrawing, after: readonly string[], term: {columns: number; rows?: number}): true | {columns: number; rows: number} {
  const {columns, rows} = term
  const screenLines = (line: string) => (Number.isFinite(columns) ? Math.max(1, Math.ceil(unmarked(line).length / columns)) : 1)
  const needed = {columns: qr.width, rows: qr.lines.length + after.reduce((sum, line) => sum + screenLines(line), 0) + 1}
  if (qr.width > columns || (rows !== undefined && needed.rows > rows)) return needed
  return true
}

/** Decodes a `data:image/png;base64,...` URI (or bare base64) to the PNG's bytes. */
export function pngBytes(dataUri: string): Buffer {
  const base64 = dataUri.replace(/^data:image\/png;base64,/, '')
  const bytes = Buffer.from(base64, 'base64')
  if (bytes.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('qrCodeBase64 is not a PNG image')
  return bytes
}
