/** The quiet zone around a QR code, in modules: four, as ISO/IEC 18004 requires and phone cameras expect. */
export const QUIET_ZONE = 4

/** Black ink on white paper, and back to the terminal's own colours. */
export const QR_INK = '\u001B[30;47m'
export const QR_RESET = '\u001B[39;49m'

export interface QrDrawing {
  /** The lines to print, or none when the terminal is too narrow for them. */
  lines: string[]
  /** How many columns the drawing takes. */
  width: number
}

/**
 * The QR code of a text as terminal half-block characters (one column per module, two modules per
 * line), with a four-module quiet zone. With `colors` each line is drawn with explicit black ink on
 * white paper (SGR 30;47), so it reads on a light theme and a dark one alike. Without colours the
 * ink draws the light modules, for the dark background most terminals have (a light terminal shows
 * it inverted: use --qr-png there).
 */
export async function qrDrawing(text: string, options: {colors: boolean}): Promise<QrDrawing> {
  const {default: QRCode} = await import('qrcode')
  // Level L, as qrcode-terminal drew it: the smallest code for a BR Code, read from a screen.
  const code = QRCode.create(text, {errorCorrectionLevel: 'L'})
  const inkIsLight = !options.colors
  // qrcode's UTF-8 renderer draws the margin too; white-on-black colours make its ink the light modules.
  const drawing = await QRCode.toString(text, {
    type: 'utf8',
    errorCorrectionLevel: 'L',
    margin: QUIET_ZONE,
    ...(inkIsLight ? {color: {dark: '#ffffff', light: '#000000'}} : {}),
  })
  const lines = drawing.split('\n')
  const width = code.modules.size + 2 * QUIET_ZONE
  return {lines: options.colors ? lines.map((line) => `${QR_INK}${line}${QR_RESET}`) : lines, width}
}

/** Decodes a `data:image/png;base64,...` URI (or bare base64) to the PNG's bytes. */
export function pngBytes(dataUri: string): Buffer {
  const base64 = dataUri.replace(/^data:image\/png;base64,/, '')
  const bytes = Buffer.from(base64, 'base64')
  if (bytes.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('qrCodeBase64 is not a PNG image')
  return bytes
}
