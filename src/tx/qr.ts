import type {CommandContext} from '../cli/context.js'
import {UsageError} from '../cli/errors.js'

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
 * Refuses, before anything is sent, a path that cannot be written: it is opened for writing (and
 * removed again when it did not exist), so a missing folder, a read-only file and a name the file
 * system refuses are all caught while nothing has been charged.
 */
export async function checkWritable(file: string, flag: string): Promise<void> {
  const {open, rm, stat} = await import('node:fs/promises')
  const {dirname, resolve} = await import('node:path')
  if (!file.trim()) throw new UsageError(`${flag} needs a file name`)
  const path = resolve(file)
  const existing = await stat(path).catch(() => undefined)
  if (existing?.isDirectory()) throw new UsageError(`${flag} ${file} is a folder, not a file`)
  try {
    const handle = await open(path, 'a')
    await handle.close()
    if (!existing) await rm(path, {force: true})
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT' || code === 'ENOTDIR'
        ? `the folder ${dirname(path)} does not exist or is not writable`
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? existing
            ? 'the file is read-only'
            : `the folder ${dirname(path)} does not exist or is not writable`
          : code === 'ENAMETOOLONG'
            ? 'the name is too long'
            : (error as Error).message
    throw new UsageError(`${flag} ${file} cannot be written: ${why}`)
  }
}


/** Writes a charge's QR image (the gateway's qrCodeBase64, a PNG of its copy-and-paste code) to `file`. */
export async function writeQrPng(file: string, image: string): Promise<void> {
  const {pngBytes} = await import('../render/qr.js')
  const {writeFile} = await import('node:fs/promises')
  await writeFile(file, pngBytes(image), {mode: 0o644})
}
