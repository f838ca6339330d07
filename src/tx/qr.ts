import type {CommandContext} from '../cli/context.js'

/** What `tx create` and `tx get` do with a charge's QR code: draw it on screen, or write its image. */

/**
 * Draws the QR code of a charge's copy-and-paste code when it fits whole on screen with the lines
 * printed after it: a drawing cut by the terminal's edge, or whose top has scrolled away under what
 * follows it, scans as nothing. Otherwise a line says why not, and the command that writes the
 * image of this very charge (its own id), which sends nothing and makes no charge.
 */
export async function drawQr(ctx: CommandContext, uri: string, after: readonly string[], id: string): Promise<void> {
  const {qrDrawing, qrFits} = await import('../render/qr.js')
  const qr = await qrDrawing(uri, {colors: ctx.io.color})
  const fits = qrFits(qr, after, ctx.io)
  if (fits === true) {
    for (const line of qr.lines) ctx.out(line)
    return
  }
  const short = fits.columns > ctx.io.columns ? `it needs ${fits.columns} columns and the terminal has ${ctx.io.columns}` : `it needs ${fits.rows} rows with the lines below it and the terminal has ${ctx.io.rows}`
  ctx.note(`The QR code is not drawn: the terminal is too small for it (${short}). Get the image with \`${ctx.bin} tx get ${id} --qr-png FILE\`, or use the copy-and-paste code below.`)
}

/**
 * Refuses, before anything is sent, a path that cannot be written: a folder, a folder that does not
 * exist or is not writable, another user's file (src/output/file.ts, checkFileTarget).
 */
export async function checkWritable(file: string, flag: string): Promise<void> {
  const {checkFileTarget} = await import('../output/file.js')
  checkFileTarget(file, flag)
}

/** Writes a charge's QR image (the gateway's qrCodeBase64, a PNG of its copy-and-paste code) to `file`. */
export async function writeQrPng(file: string, image: string): Promise<void> {
  const {pngBytes} = await import('../render/qr.js')
  const {writeFileWhole} = await import('../output/file.js')
  await writeFileWhole(file, pngBytes(image), {flag: '--qr-png', mode: 0o644})
}
