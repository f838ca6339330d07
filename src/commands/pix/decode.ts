import {Args} from '@oclif/core'

import {BaseCommand, jsonFlag} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'
import {ReportedError, UsageError} from '../../cli/errors.js'
import type {DecodedPix} from '../../pix/decode.js'

export interface PixDecodeOptions {
  /** The code, "-" for stdin, or nothing: stdin when it is not a terminal. */
  code?: string
}

/** Where the code comes from: the argument, or stdin for "-" or when no argument is given and stdin is piped. */
async function readCode(code: string | undefined, ctx: CommandContext): Promise<string> {
  if (code !== undefined && code !== '-') return code
  if (code === undefined && ctx.io.stdinTTY) {
    throw new UsageError('CODE is missing: give the copy-and-paste code as an argument (in quotes), or - to read it from stdin')
  }
  const {readStdin} = await import('../../output/prompt.js')
  const text = await readStdin(ctx.io)
  if (text.trim() === '') throw new UsageError('stdin holds no PIX code: pipe the copy-and-paste code in, or give it as CODE')
  return text
}

/**
 * `pix decode`: what a PIX copy-and-paste code (BR Code) asks for. Nothing is sent anywhere. A code
 * whose only fault is its CRC still shows what it asks for, beside the error (exit 2).
 */
export async function pixDecode(options: PixDecodeOptions, ctx: CommandContext): Promise<DecodedPix> {
  const text = await readCode(options.code, ctx)
  const {decodePix, PixDecodeError} = await import('../../pix/decode.js')
  const {pixLines} = await import('../../render/pix.js')
  let decoded: DecodedPix
  try {
    decoded = decodePix(text)
  } catch (error) {
    // Under --json the error's body carries `decoded` already; a person sees the lines.
    if (error instanceof PixDecodeError && error.decoded) throw new ReportedError(error, {lines: pixLines(error.decoded, ctx.paint), json: {}})
    throw error
  }
  if (!ctx.globals.json) for (const line of pixLines(decoded, ctx.paint)) ctx.out(line)
  return decoded
}

export default class PixDecode extends BaseCommand<typeof PixDecode> {
  static override summary = 'Show what a PIX copy-and-paste code asks for: key, location or recurrence, amount, merchant, txid, CRC.'

  static override description = `Decodes a PIX copy-and-paste code (a BR Code, the text behind a PIX QR code) offline, without a phone and without sending anything: its kind, by what it carries (static: the receiver's PIX key; dynamic: the location URL the payer's app fetches the charge from; recurrence: only a Pix Automático recurrence to authorise, nothing paid now), whether it may be paid once or many times (field 01), the amount in BRL, what the payer will be asked for, the merchant's name and city, the txid, any other templates as written, and whether its CRC16 is valid.

The code comes from the argument (quote it: it holds spaces), or from stdin with - (or with no argument when stdin is not a terminal). Line breaks inside it are ignored, so a code wrapped by a mail client still reads.

An invalid code exits 2 and says which field is broken and by which rule: a wrong CRC gives the CRC found and the one expected (and still shows what the code asks for), a length that does not match its value names that field. --json gives every field, the amount in integer cents; an invalid code's error body names the field and the rule.`

  static override examples = [
    {description: 'A code pasted by a customer', command: `<%= config.bin %> <%= command.id %> '00020126580014br.gov.bcb.pix0136...6304ABCD'`},
    {description: 'From the clipboard (Linux)', command: 'xclip -o | <%= config.bin %> <%= command.id %> -'},
    {description: 'The fields of a charge\'s code, for a script', command: '<%= config.bin %> tx get 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11 --json | jq -r .pixResponse.uri | <%= config.bin %> <%= command.id %> --json'},
  ]

  static override args = {
    code: Args.string({description: 'The copy-and-paste code, or - to read it from stdin.'}),
  }

  static override flags = {
    json: jsonFlag('the decoded fields (kind, reusable, key or url, recurrence, amountCents, merchantName, merchantCity, txid, templates, crc, and every field as written)'),
  }

  async run(): Promise<DecodedPix | undefined> {
    const decoded = await pixDecode({code: this.args.code}, this.ctx)
    return this.ctx.globals.json ? decoded : undefined
  }
}
