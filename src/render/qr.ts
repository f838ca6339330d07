/** The QR code of a text as terminal block characters (qrcode-terminal's small form). */
export async function qrText(text: string): Promise<string> {
  const {default: qrcode} = await import('qrcode-terminal')
  // The callback form hands the drawing back instead of printing it through console.log.
  return new Promise((resolve) => qrcode.generate(text, {small: true}, (drawing: string) => resolve(drawing)))
}

/** Decodes a `data:image/png;base64,...` URI (or bare base64) to the PNG's bytes. */
export function pngBytes(dataUri: string): Buffer {
  const base64 = dataUri.replace(/^data:image\/png;base64,/, '')
  const bytes = Buffer.from(base64, 'base64')
  if (bytes.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('qrCodeBase64 is not a PNG image')
  return bytes
}
