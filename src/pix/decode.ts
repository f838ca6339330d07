// Subpath import: the package's main entry loads every module it has.
import {getPixPayloadInfo} from '@brazilian-utils/brazilian-utils/get-pix-payload-info'

import {UsageError} from '../cli/errors.js'

/**
 * Decodes a PIX copy-and-paste code (BR Code: EMV® QR Code Merchant-Presented Mode with the
 * Central Bank's PIX template). `getPixPayloadInfo` of brazilian-utils is the authority on what a
 * valid code means; it answers only "valid or not", so this module walks the code itself as well,
 * to say which field is broken and by which rule, to give the CRC found and the one expected, and
 * to read the amount as integer cents from its text, never through a float.
 */

/** A field of the code, top level or inside a template; `id` is "54", or "26-01" inside 26. */
export interface PixFieldRef {
  id: string
  name: string
}

export interface PixField extends PixFieldRef {
  /** Where the field's id starts, counted in characters from the start of the code (0-based). */
  position: number
  value: string
  /** The fields inside a template (26 to 51, 62, 80 to 99), when its value parses as one. */
  fields?: PixField[]
}

export interface PixCrc {
  valid: boolean
  /** The CRC16-CCITT-FALSE of the code up to and including "6304", four upper-case hex digits. */
  expected: string
  /** The four characters the code carries in field 63, as written. */
  found: string
}

/**
 * A template the code carries besides the PIX one and the recurrence: another merchant account
 * template (26 to 51) or an unreserved template (80 to 99) of another GUI, shown as written.
 */
export interface PixTemplate {
  id: string
  name: string
  /** Sub-field 00, when the template has one. */
  gui?: string
  fields: PixField[]
}

/**
 * What the code carries decides its kind, as the BCB manual has it: `static` carries the
 * receiver's key (26-01), `dynamic` a location (26-25) the payer's app fetches the charge from, and
 * `recurrence` neither, only a Pix Automático recurrence (a template of 80 to 99 whose GUI is
 * br.gov.bcb.pix): nothing is paid now, the payer is asked to authorise the recurrence.
 */
export type PixKind = 'static' | 'dynamic' | 'recurrence'

export interface DecodedPix {
  kind: PixKind
  /**
   * Field 01: false when it is "12" (the code may be paid once), true when it is "11" or absent
   * (the code may be paid many times). Independent of the kind: a static code may be single use.
   */
  reusable: boolean
  /** The receiver's PIX key (26-01), in a static code. */
  key?: string
  /** The PSP location (26-25) of a dynamic code, without a scheme, as written in the code. */
  url?: string
  /** The amount (54) in integer cents; absent when the payer types it, or in a dynamic code (its location rules). */
  amountCents?: number
  merchantName: string
  merchantCity: string
  /** The txid (62-05); absent when the code carries "***", or in a dynamic code. */
  txid?: string
  /** Free text for the payer (26-02). */
  description?: string
  /** ISPB of the withdrawal facilitator (26-03): a Pix Saque code. */
  withdrawalFacilitator?: string
  merchantCategoryCode: string
  /** Field 61, when present. */
  postalCode?: string
  /** Pix Automático: the location of the recurrence's authorisation (e.g. 80-25), without a scheme. */
  recurrence?: string
  /** Which field carries the recurrence ("80" as a rule). */
  recurrenceField?: string
  /** Other templates (26 to 51 beside the PIX one, 80 to 99 of other GUIs), as written. */
  templates?: PixTemplate[]
  crc: PixCrc
  /** Every field as written, templates opened, for support staff and `--json`. */
  fields: PixField[]
}

/** An invalid code: which field is broken (when one can be named) and by which rule. Exit code 2. */
export class PixDecodeError extends UsageError {
  readonly field?: PixFieldRef
  readonly rule: string
  /** Position in the code (0-based characters) where the problem was found, when it has one. */
  readonly position?: number
  /** The CRC as far as it could be computed. */
  readonly crc?: PixCrc
  /**
   * What the code would say if only its CRC were right: a mistyped or altered code still shows
   * what it asks for. Set only when the CRC is the one broken thing.
   */
  readonly decoded?: DecodedPix

  constructor(
    rule: string,
    details: {field?: PixFieldRef; position?: number; crc?: PixCrc; decoded?: DecodedPix} = {},
  ) {
    const what = details.field ? `PIX code field ${details.field.id} (${details.field.name})` : 'PIX code'
    super(`${what} ${rule}`, {
      hint: 'Paste the whole copy-and-paste code: it starts with 000201 and ends with 6304 and four hex digits.',
      // Under --json, the error's body says which field broke which rule.
      body: {
        ...(details.field === undefined ? {} : {field: details.field}),
        rule,
        ...(details.position === undefined ? {} : {position: details.position}),
        ...(details.crc === undefined ? {} : {crc: details.crc}),
        ...(details.decoded === undefined ? {} : {decoded: details.decoded}),
      },
    })
    this.field = details.field
    this.rule = rule
    this.position = details.position
    this.crc = details.crc
    this.decoded = details.decoded
  }
}

const TOP_NAMES: Record<string, string> = {
  '00': 'Payload Format Indicator',
  '01': 'Point of Initiation Method',
  '52': 'Merchant Category Code',
  '53': 'Transaction Currency',
  '54': 'Transaction Amount',
  '55': 'Tip or Convenience Indicator',
  '56': 'Value of Convenience Fee Fixed',
  '57': 'Value of Convenience Fee Percentage',
  '58': 'Country Code',
  '59': 'Merchant Name',
  '60': 'Merchant City',
  '61': 'Postal Code',
  '62': 'Additional Data Field Template',
  '63': 'CRC',
  '64': 'Merchant Information Language Template',
}

const PIX_ACCOUNT_NAMES: Record<string, string> = {
  '00': 'GUI',
  '01': 'PIX key',
  '02': 'Additional Information',
  '03': 'Withdrawal Facilitator (fss)',
  '25': 'Location URL',
}

const ADDITIONAL_DATA_NAMES: Record<string, string> = {
  '01': 'Bill Number',
  '02': 'Mobile Number',
  '03': 'Store Label',
  '04': 'Loyalty Number',
  '05': 'Reference Label (txid)',
  '06': 'Customer Label',
  '07': 'Terminal Label',
  '08': 'Purpose of Transaction',
  '09': 'Additional Consumer Data Request',
  '50': 'Payment System specific',
}

function topName(id: string): string {
  const number = Number(id)
  if (TOP_NAMES[id]) return TOP_NAMES[id]
  if (number >= 2 && number <= 25) return 'Merchant Account Information (card schemes)'
  if (number >= 26 && number <= 51) return 'Merchant Account Information'
  if (number >= 65 && number <= 79) return 'RFU for EMVCo'
  if (number >= 80 && number <= 99) return 'Unreserved Template'
  return 'unknown field'
}

/** The GUI of the PIX template and of the Pix Automático recurrence; read in any case, as apps do. */
const PIX_GUI = 'br.gov.bcb.pix'
const isPixGui = (gui: string | undefined) => gui?.toLowerCase() === PIX_GUI

const isUnreserved = (id: string) => Number(id) >= 80 && Number(id) <= 99

/** The name of a top-level field, knowing its value: a template of 80 to 99 is the recurrence by its GUI. */
function fieldName(id: string, value: string): string {
  if (isUnreserved(id) && isPixGui(guiOf(value))) return 'Recurrence (Pix Automático)'
  return topName(id)
}

/** Sub-field 00 of a template's value, when it starts with one. */
function guiOf(value: string): string | undefined {
  const inner = walk(value, 0)
  return inner.fields.find((field) => field.id === '00')?.value
}

/**
 * The name of sub-field `id` of template `parent`. The PIX names hold only in a template whose
 * GUI is br.gov.bcb.pix (`pix`); another GUI's sub-fields are named by their id alone.
 */
function childName(parent: string, id: string, pix = true): string {
  const number = Number(parent)
  if (id === '00' && parent !== '62') return 'GUI'
  if (number >= 26 && number <= 51) return pix ? (PIX_ACCOUNT_NAMES[id] ?? 'template field') : 'template field'
  if (parent === '62') return ADDITIONAL_DATA_NAMES[id] ?? 'template field'
  if (isUnreserved(parent) && pix && id === '25') return 'Recurrence location'
  return 'template field'
}

const isTemplate = (id: string) => {
  const number = Number(id)
  return (number >= 26 && number <= 51) || id === '62' || id === '64' || (number >= 80 && number <= 99)
}

/**
 * CRC16-CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR) of the
 * text's UTF-8 bytes, as the BR Code manual prescribes for field 63: four upper-case hex digits.
 * brazilian-utils computes it internally but does not export it.
 */
export function crc16(text: string): string {
  let crc = 0xffff
  for (const byte of new TextEncoder().encode(text)) {
    crc ^= byte << 8
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc.toString(16).toUpperCase().padStart(4, '0')
}

/** The BR Code's amount rule: digits, optionally a point and one or two decimals, at most 13 characters. */
const AMOUNT = /^(\d+)(?:\.(\d{1,2}))?$/

/**
 * An amount as the BR Code writes it ("10.50", "10.5", "10") in integer cents, read from its
 * digits so no float rounding can creep in. Undefined when the text breaks the rule.
 */
export function amountToCents(text: string): number | undefined {
  const match = AMOUNT.exec(text)
  if (!match || text.length > 13) return undefined
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'))
}

// ---------------------------------------------------------------------------------------------
// TLV walking
// ---------------------------------------------------------------------------------------------

interface Tlv {
  id: string
  length: number
  value: string
  /** Position of the id in the whole code. */
  position: number
}

type WalkFailure =
  | {kind: 'id'; position: number; found: string}
  | {kind: 'length'; position: number; id: string; found: string}
  | {kind: 'overrun'; position: number; id: string; length: number; left: number}

interface Walk {
  fields: Tlv[]
  failure?: WalkFailure
}

const TWO_DIGITS = /^\d{2}$/

/**
 * Splits text (at `offset` in the whole code) into id, two-digit length, value; stops at the first
 * break. Lengths and positions count Unicode code points, as the BR Code manual does (not bytes,
 * not UTF-16 units): a merchant name of 10 letters with an emoji among them has length 10.
 */
function walk(text: string, offset: number): Walk {
  const fields: Tlv[] = []
  const chars = Array.from(text)
  const slice = (from: number, to: number) => chars.slice(from, to).join('')
  let index = 0
  while (index < chars.length) {
    const id = slice(index, index + 2)
    if (!TWO_DIGITS.test(id)) return {fields, failure: {kind: 'id', position: offset + index, found: id}}
    const lengthText = slice(index + 2, index + 4)
    if (!TWO_DIGITS.test(lengthText)) return {fields, failure: {kind: 'length', position: offset + index, id, found: lengthText}}
    const length = Number(lengthText)
    const start = index + 4
    if (start + length > chars.length) {
      return {fields, failure: {kind: 'overrun', position: offset + index, id, length, left: chars.length - start}}
    }
    fields.push({id, length, value: slice(start, start + length), position: offset + index})
    index = start + length
  }
  return {fields}
}

/** The fields of text from `from` on, when it parses as TLV to its very end (with `lastId` last). */
function restFrom(text: string, from: number, lastId?: string): Tlv[] | undefined {
  const result = walk(text.slice(from), 0)
  if (result.failure) return undefined
  if (lastId !== undefined && result.fields.at(-1)?.id !== lastId) return undefined
  return result.fields
}

/** Where a walk happens: the text, its offset in the whole code, how its ids are named. */
interface WalkSite {
  text: string
  offset: number
  name: (id: string) => string
  /** "26-" inside template 26, "" at the top level. */
  idPrefix: string
  /** The id that must come last ("63" at the top level). */
  lastId?: string
  /** The template walked, when not the top level. */
  parent?: PixFieldRef
  /** The whole code, to test a repaired length against the CRC the code carries. */
  code: string
}

const ascending = (fields: Array<{id: string}>) => fields.every((field, index) => index === 0 || field.id > fields[index - 1].id)

const oneDigitApart = (a: number, b: number) => (pad(a)[0] === pad(b)[0]) !== (pad(a)[1] === pad(b)[1])

/** Lexicographic comparison of two scores: the first differing place decides. */
function outranks(score: number[], other: number[]): boolean {
  const at = score.findIndex((value, index) => value !== other[index])
  return at >= 0 && score[at] > other[at]
}

/** Whether the code, with the length digits at `position` replaced, matches the CRC it carries. */
function crcConfirms(code: string, position: number, length: number): boolean {
  if (code.length < 8 || code.slice(-8, -4) !== '6304') return false
  const chars = Array.from(code)
  const repaired = chars.slice(0, position + 2).join('') + pad(length) + chars.slice(position + 4).join('')
  return crc16(repaired.slice(0, -4)) === repaired.slice(-4).toUpperCase()
}

interface Repair {
  field: {id: string; length: number; position: number}
  length: number
}

/**
 * Looks for the one field whose length, changed, makes the text parse to its end (and pass
 * `accept`, the checks of the whole code at the top level). Among such repairs the best is one
 * the code's own CRC confirms; then one that leaves the ids in ascending order, as generators
 * write them; then the smallest change; then the field nearest the end.
 */
function bestRepair(
  site: WalkSite,
  parsed: Tlv[],
  tried: Array<{id: string; length: number; position: number}>,
  accept?: (fields: Tlv[], field: Repair['field'], length: number) => boolean,
): Repair | undefined {
  const {text, offset, lastId, code} = site
  let best: (Repair & {score: number[]}) | undefined
  tried.forEach((field, index) => {
    const start = field.position - offset + 4
    const before = parsed.slice(0, index)
    for (let length = 0; length <= 99 && start + length <= text.length; length += 1) {
      if (length === field.length) continue
      const rest = restFrom(text, start + length, lastId)
      if (!rest) continue
      const repaired: Tlv[] = [
        ...before,
        {id: field.id, length, value: text.slice(start, start + length), position: field.position},
        ...rest.map((tlv) => ({...tlv, position: tlv.position + offset + start + length})),
      ]
      if (accept && !accept(repaired, field, length)) continue
      const score = [crcConfirms(code, field.position, length) ? 1 : 0, ascending(repaired) ? 1 : 0, -Math.abs(length - field.length), index]
      if (!best || outranks(score, best.score)) best = {field, length, score}
    }
  })
  return best
}

function lengthError(site: WalkSite, {field, length}: Repair): PixDecodeError {
  const start = field.position - site.offset + 4
  const rule =
    start + field.length > site.text.length
      ? `has length ${pad(field.length)}, which runs past the end of the code (${site.text.length - start} characters are left); its value fits ${pad(length)}`
      : `has length ${pad(field.length)}, which does not match its value: the fields after it line up with ${pad(length)}`
  return new PixDecodeError(rule, {field: {id: site.idPrefix + field.id, name: site.name(field.id)}, position: field.position})
}

/**
 * Names the field whose length broke the walk. A length too long or too short shows only where
 * the walk trips later (a non-digit id or length, or a value running past the end), so each field
 * before the trip is tried with every other length (see `bestRepair`). Without a repair, the
 * field where the walk tripped is named.
 */
function diagnoseWalk(site: WalkSite, result: Walk, accept?: (fields: Tlv[]) => boolean): PixDecodeError {
  const {name, idPrefix, lastId, parent} = site
  const failure = result.failure!
  const fieldRef = (id: string): PixFieldRef => ({id: idPrefix + id, name: name(id)})
  const tried: Array<{position: number; id: string; length: number}> = [...result.fields]
  if (failure.kind === 'overrun') tried.push({position: failure.position, id: failure.id, length: failure.length})
  const repair = bestRepair(site, result.fields, tried, accept)
  if (repair) return lengthError(site, repair)
  if (failure.kind === 'overrun' && failure.id === lastId) {
    return new PixDecodeError(`runs past the end of the code: ${failure.left} of its ${failure.length} characters are there; the code was cut short`, {
      field: fieldRef(failure.id),
      position: failure.position,
    })
  }
  switch (failure.kind) {
    case 'overrun':
      return new PixDecodeError(
        `has length ${pad(failure.length)}, which runs past the end of the code: only ${failure.left} characters are left`,
        {field: fieldRef(failure.id), position: failure.position},
      )
    case 'length':
      return new PixDecodeError(`must have a two-digit length after its id; found "${failure.found}" at position ${failure.position + 2}`, {
        field: fieldRef(failure.id),
        position: failure.position,
      })
    case 'id': {
      const previous = result.fields.at(-1)
      const after = previous ? ` after field ${idPrefix}${previous.id} (${name(previous.id)})` : ''
      return new PixDecodeError(`${parent ? 'holds' : 'is broken:'} "${failure.found}" at position ${failure.position}${after}, which is not a two-digit field id`, {
        field: parent,
        position: failure.position,
      })
    }
  }
}

const pad = (length: number) => String(length).padStart(2, '0')

// ---------------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------------

/** The EMV® QR Code payload holds at most 512 characters. */
const MAX_LENGTH = 512

/** Line breaks are dropped (a code wrapped by a mail client), and whitespace around it. */
/** The code as pasted, the line breaks between its parts removed (a wrapped code still reads). */
function clean(code: string): string {
  return code.replace(/[\r\n]+/g, '').trim()
}

/** C0 and C1 controls, DEL, and the bidi overrides and isolates: never part of a value. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/u

function openTemplate(code: string, field: Tlv): {fields: Tlv[]} {
  const offset = field.position + 4
  const inner = walk(field.value, offset)
  if (inner.failure) {
    const pix = isPixGui(guiOf(field.value))
    const name = (id: string) => childName(field.id, id, pix)
    throw diagnoseWalk({text: field.value, offset, name, idPrefix: `${field.id}-`, parent: ref(field.id), code}, inner)
  }
  return inner
}

function describeFields(fields: Tlv[], parent?: {id: string; pix: boolean}): PixField[] {
  return fields.map((field) => {
    const described: PixField = {
      id: parent ? `${parent.id}-${field.id}` : field.id,
      name: parent ? childName(parent.id, field.id, parent.pix) : fieldName(field.id, field.value),
      position: field.position,
      value: field.value,
    }
    if (!parent && isTemplate(field.id)) {
      const inner = walk(field.value, field.position + 4)
      if (!inner.failure) described.fields = describeFields(inner.fields, {id: field.id, pix: isPixGui(guiOf(field.value))})
    }
    return described
  })
}

const ref = (id: string): PixFieldRef => ({id, name: id.includes('-') ? childName(id.slice(0, 2), id.slice(3)) : topName(id)})

/**
 * A location (26-25, and a recurrence's 80-25): a URL without its scheme, as the BCB manual writes
 * it. Any host (a name, `localhost` included, an IPv4 or a bracketed IPv6 address), an optional
 * `:port` (1 to 65535), and a path of URL characters.
 */
const LABEL = '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?'
const HOST = `(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9a-f:.]+\\])`
const PATH = "(?:/(?:%[0-9a-f]{2}|[a-z0-9._~!$&'()*+,;=:@-])*)*"
const LOCATION_PARTS = new RegExp(`^(${HOST})(?::(\\d{1,5}))?(${PATH})$`, 'i')
/** The narrower rule brazilian-utils applies to 26-25 (a dotted host name, no port): a code it refuses for that alone is read here. */
const LIBRARY_LOCATION = new RegExp(`^${LABEL}(?:\\.${LABEL})+${PATH}$`, 'i')

const isLocation = (value: string): boolean => {
  const parts = LOCATION_PARTS.exec(value)
  return parts !== null && (parts[2] === undefined || (Number(parts[2]) >= 1 && Number(parts[2]) <= 65535))
}

/** Why a location is refused, said about what it holds: a scheme only when it carries one. */
function locationProblem(value: string, example: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)
  if (scheme) return `must be written without its scheme (${scheme[1]}://): a host, an optional :port and a path, e.g. ${example}; found "${value}"`
  const port = /^[^/]*:(\d+)(?:\/|$)/.exec(value)
  if (port && !isLocation(value.replace(`:${port[1]}`, ''))) {
    return `must be a host, an optional :port and a path, e.g. ${example}; found "${value}"`
  }
  if (port) return `has the port ${port[1]}, which is not from 1 to 65535; found "${value}"`
  return `must be a host, an optional :port and a path, e.g. ${example}; found "${value}"`
}

/**
 * Decodes a PIX copy-and-paste code. Throws `PixDecodeError` (exit code 2) naming the broken
 * field and its rule; for a code whose only fault is its CRC, the error carries `decoded` too.
 */
export function decodePix(input: string): DecodedPix {
  if (typeof input !== 'string') throw new PixDecodeError('must be a text')
  const code = clean(input)
  if (code === '') throw new PixDecodeError('is empty')
  const control = CONTROL.exec(code)
  if (control) {
    const shown = `\\u${control[0].codePointAt(0)!.toString(16).padStart(4, '0')}`
    throw new PixDecodeError(`holds a control character (${shown}) at position ${Array.from(code.slice(0, control.index)).length}: a BR Code is printable text`, {position: Array.from(code.slice(0, control.index)).length})
  }
  const length = Array.from(code).length
  if (length > MAX_LENGTH) throw new PixDecodeError(`is ${length} characters long; a BR Code has at most ${MAX_LENGTH}`)

  // 1. Structure: id, two-digit length, value, to the very end.
  if (!code.startsWith('00')) {
    throw new PixDecodeError(`must open the code as "000201"; it starts with "${code.slice(0, 6)}"`, {field: ref('00'), position: 0})
  }
  const site: WalkSite = {text: code, offset: 0, name: topName, idPrefix: '', lastId: '63', code}
  const passes = (fields: Tlv[]) => {
    try {
      analyse(code, fields)
      return true
    } catch {
      return false
    }
  }
  const top = walk(code, 0)
  if (top.failure) {
    const broken = diagnoseWalk(site, top, passes)
    // A code without its CRC field (no "6304" anywhere) whose walk ran past the end lacks what
    // every code ends with: that is the first thing to say, then what the walk tripped on.
    if (top.failure.kind === 'overrun' && !code.includes('6304') && broken.field?.id !== '63') {
      const other = broken.field ? `field ${broken.field.id} (${broken.field.name}) ${broken.rule}` : broken.rule
      throw new PixDecodeError(`${CRC_MISSING}; besides, ${other}`, {field: ref('63')})
    }
    throw broken
  }
  const fields = top.fields

  // 2. Every field by its rule, so the most precise fault is named before a mere CRC mismatch.
  // A length off by some characters can still let the code parse, into wrong values: when a
  // rule fails, a length that makes every rule pass is the better diagnosis.
  let analysis: Analysis
  try {
    analysis = analyse(code, fields)
  } catch (error) {
    if (!(error instanceof PixDecodeError)) throw error
    // Only a repair the CRC confirms, or one digit of a length mistyped that hides no field: a
    // duplicate or an extra field is otherwise just as likely, and then the broken rule is the
    // better message.
    const likely = (repaired: Tlv[], field: Repair['field'], length: number) =>
      (crcConfirms(code, field.position, length) || (oneDigitApart(field.length, length) && repaired.length >= fields.length)) && passes(repaired)
    const repair = bestRepair(site, fields, fields, likely)
    throw repair ? lengthError(site, repair) : error
  }
  const {seen, crc} = analysis
  const crcField = seen.get('63')!
  const signed = code.slice(0, -4)

  // 4. The CRC, then brazilian-utils' reading, which must agree that the code is valid.
  const signedCode = signed + crc.expected
  // brazilian-utils reads neither recurrences (Pix Automático), nor unreserved templates (80 to
  // 99), nor lengths in code points beyond UTF-16's single units (an emoji), nor a location with
  // a port or a host without a dot (localhost:5001/...): such codes, valid by every rule above,
  // are read here alone.
  const location = analysis.account.fields.get('25')?.value
  const ownReading =
    analysis.recurrence !== undefined ||
    fields.some((field) => isUnreserved(field.id)) ||
    Array.from(code).length !== code.length ||
    (location !== undefined && !LIBRARY_LOCATION.test(location))
  if (!ownReading && !getPixPayloadInfo(signedCode)) throw new PixDecodeError('is not a valid PIX BR Code', {crc})
  const decoded = toDecoded(code, analysis, seen, crc, fields)
  if (!crc.valid) {
    // A mistyped length can still parse, into other values: if the CRC confirms another length
    // of one field, that length is the fault.
    const confirmed = bestRepair(site, fields, fields, (repaired, field, length) => crcConfirms(code, field.position, length) && passes(repaired))
    if (confirmed) throw lengthError(site, confirmed)
    throw new PixDecodeError(`does not match: the code carries ${crc.found}, its content gives ${crc.expected}; the code was altered or mistyped`, {
      field: ref('63'),
      position: crcField.position,
      crc,
      decoded,
    })
  }
  return decoded
}

/** What the rules of each field found: the PIX template, the amount's text, the recurrence. */
interface Checked {
  account: {id: string; fields: Map<string, Tlv>}
  amountText?: string
  recurrence?: {id: string; location: string}
}

const CRC_MISSING = 'is missing: the code must end with field 63, the CRC (6304 and four hex digits)'

interface Analysis extends Checked {
  seen: Map<string, Tlv>
  crc: PixCrc
}

/** The envelope (00 first, 63 last with four hex digits, no field twice), then each field's rule. */
function analyse(code: string, fields: Tlv[]): Analysis {
  const first = fields[0]
  if (first.id !== '00') throw new PixDecodeError('must be the first field', {field: ref('00'), position: first.position})
  if (first.value !== '01') throw new PixDecodeError(`must be "01"; found "${first.value}"`, {field: ref('00'), position: 0})
  const seen = new Map<string, Tlv>()
  for (const field of fields) {
    const earlier = seen.get(field.id)
    if (earlier) {
      throw new PixDecodeError(`appears twice, at positions ${earlier.position} and ${field.position}`, {field: ref(field.id), position: field.position})
    }
    seen.set(field.id, field)
  }
  const crcField = seen.get('63')
  if (!crcField) throw new PixDecodeError(CRC_MISSING, {field: ref('63')})
  if (crcField !== fields.at(-1)) throw new PixDecodeError('must be the last field', {field: ref('63'), position: crcField.position})
  if (crcField.length !== 4) {
    throw new PixDecodeError(`must have length 04; found ${pad(crcField.length)}`, {field: ref('63'), position: crcField.position})
  }
  const expected = crc16(code.slice(0, -4))
  const crc: PixCrc = {valid: expected === crcField.value.toUpperCase(), expected, found: crcField.value}
  if (!/^[0-9A-Fa-f]{4}$/.test(crcField.value)) {
    throw new PixDecodeError(`must be four hex digits; found "${crcField.value}" (expected ${crc.expected})`, {
      field: ref('63'),
      position: crcField.position,
      crc,
    })
  }
  return {seen, crc, ...checkFields(code, fields, seen, crc)}
}

/** Checks every field's own rule; answers the amount's text and the recurrence's location, when there are. */
function checkFields(code: string, fields: Tlv[], seen: Map<string, Tlv>, crc: PixCrc): Checked {
  const fail = (id: string, rule: string): never => {
    const field = seen.get(id.slice(0, 2))
    throw new PixDecodeError(rule, {field: ref(id), position: field?.position, crc})
  }
  const initiation = seen.get('01')
  if (initiation && initiation.value !== '11' && initiation.value !== '12') {
    fail('01', `must be "11" (reusable) or "12" (single use); found "${initiation.value}"`)
  }

  // The PIX template: the first of 26 to 51 whose GUI is br.gov.bcb.pix.
  let account: {id: string; fields: Map<string, Tlv>} | undefined
  for (const field of fields) {
    const number = Number(field.id)
    if (number < 26 || number > 51) continue
    const inner = openTemplate(code, field)
    const byId = new Map(inner.fields.map((child) => [child.id, child]))
    if (isPixGui(byId.get('00')?.value)) {
      account = {id: field.id, fields: byId}
      break
    }
  }
  if (!account) {
    const other = fields.find((field) => Number(field.id) >= 26 && Number(field.id) <= 51)
    fail(other?.id ?? '26', other ? 'must carry the GUI "br.gov.bcb.pix" in its sub-field 00' : 'is missing: no template from 26 to 51 carries the GUI "br.gov.bcb.pix"')
  }
  const {id: accountId, fields: accountFields} = account!
  const key = accountFields.get('01')
  const location = accountFields.get('25')
  const facilitator = accountFields.get('03')
  // Templates 80 to 99 are EMV's unreserved templates, each opened by its GUI (sub-field 00).
  // The one whose GUI is br.gov.bcb.pix is the Pix Automático recurrence (GUI and location; the
  // PIX template may then hold only its GUI); any other is read and shown as it is.
  let recurrence: {id: string; location: string} | undefined
  for (const field of fields) {
    if (!isUnreserved(field.id)) continue
    const inner = new Map(openTemplate(code, field).fields.map((child) => [child.id, child]))
    if (!isPixGui(inner.get('00')?.value)) continue
    if (recurrence) fail(field.id, `is a second recurrence (GUI "${PIX_GUI}"): field ${recurrence.id} already carries one`)
    const where = inner.get('25')
    if (!where) fail(`${field.id}-25`, 'is missing: a recurrence carries the location of its authorisation')
    if (!isLocation(where!.value)) fail(`${field.id}-25`, locationProblem(where!.value, 'pix.example.com/rec/v1/1234'))
    recurrence = {id: field.id, location: where!.value}
  }
  if (key && location) fail(accountId, `must carry either a PIX key (${accountId}-01) or a location (${accountId}-25), not both`)
  if (!key && !location && !recurrence) fail(`${accountId}-01`, `is missing: the template carries neither a PIX key (${accountId}-01) nor a location (${accountId}-25), and no recurrence (a template of 80 to 99 with the GUI "${PIX_GUI}") follows`)
  if (key && key.value === '') fail(`${accountId}-01`, 'must not be empty')
  if (location && !isLocation(location.value)) fail(`${accountId}-25`, locationProblem(location.value, 'pix.example.com/qr/v2/1234'))
  if (facilitator && location) fail(`${accountId}-03`, `belongs to a static code: it must not come with a location (${accountId}-25)`)
  if (facilitator && !/^\d{8}$/.test(facilitator.value)) fail(`${accountId}-03`, `must be the 8-digit ISPB of a participant; found "${facilitator.value}"`)

  const category = seen.get('52')
  if (!category) fail('52', 'is missing')
  if (!/^\d{4}$/.test(category!.value)) fail('52', `must be four digits (0000 when not given); found "${category!.value}"`)
  const currency = seen.get('53')
  if (!currency) fail('53', 'is missing')
  if (currency!.value !== '986') fail('53', `must be 986 (BRL); found "${currency!.value}"`)
  const country = seen.get('58')
  if (!country) fail('58', 'is missing')
  if (country!.value.toUpperCase() !== 'BR') fail('58', `must be BR; found "${country!.value}"`)
  const name = seen.get('59')
  if (!name || name.value === '') fail('59', name ? 'must not be empty' : 'is missing')
  const city = seen.get('60')
  if (!city || city.value === '') fail('60', city ? 'must not be empty' : 'is missing')

  const amount = seen.get('54')
  if (amount) {
    const cents = amountToCents(amount.value)
    if (cents === undefined) {
      fail('54', `must be an amount in reais with a point and at most two decimals, at most 13 characters, e.g. 10.50; found "${amount.value}"`)
    }
    if (cents === 0 && !location && !facilitator) fail('54', `must be greater than zero; found "${amount.value}"`)
  }

  const additional = seen.get('62')
  if (additional) openTemplate(code, additional)
  return {account: account!, amountText: amount?.value, recurrence}
}

/** Sub-fields of a template already checked, by id. */
const openedById = (code: string, field: Tlv) => new Map(openTemplate(code, field).fields.map((child) => [child.id, child]))

/**
 * What the code asks for, from the fields already checked. The kind is what the code carries (a
 * key, a location, or only a recurrence); field 01 says only whether it may be paid once.
 */
function toDecoded(code: string, checked: Checked, seen: Map<string, Tlv>, crc: PixCrc, fields: Tlv[]): DecodedPix {
  const {account, amountText, recurrence} = checked
  const key = account.fields.get('01')?.value
  const location = account.fields.get('25')?.value
  const kind: PixKind = key !== undefined ? 'static' : location !== undefined ? 'dynamic' : 'recurrence'
  const described = describeFields(fields)
  const decoded: DecodedPix = {
    kind,
    reusable: seen.get('01')?.value !== '12',
    merchantName: seen.get('59')!.value,
    merchantCity: seen.get('60')!.value,
    merchantCategoryCode: seen.get('52')!.value,
    crc,
    fields: described,
  }
  if (key !== undefined) decoded.key = key
  if (location !== undefined) decoded.url = location
  // A static code states its amount and txid; a dynamic one's location rules them (the manual
  // has the payer's app ignore what the code says); a recurrence alone asks for no payment.
  if (kind === 'static') {
    if (amountText !== undefined) decoded.amountCents = amountToCents(amountText)
    const txid = seen.get('62') ? openedById(code, seen.get('62')!).get('05')?.value : undefined
    if (txid !== undefined && txid !== '***') decoded.txid = txid
  }
  const description = account.fields.get('02')?.value
  if (description !== undefined) decoded.description = description
  const facilitator = account.fields.get('03')?.value
  if (facilitator !== undefined) decoded.withdrawalFacilitator = facilitator
  const postalCode = seen.get('61')
  if (postalCode) decoded.postalCode = postalCode.value
  if (recurrence) {
    decoded.recurrence = recurrence.location
    decoded.recurrenceField = recurrence.id
  }
  const templates = described
    .filter((field) => field.fields && field.id !== account.id && field.id !== recurrence?.id && ((Number(field.id) >= 26 && Number(field.id) <= 51) || isUnreserved(field.id)))
    .map((field): PixTemplate => {
      const gui = field.fields!.find((child) => child.id === `${field.id}-00`)?.value
      return {id: field.id, name: field.name, ...(gui === undefined ? {} : {gui}), fields: field.fields!}
    })
  if (templates.length > 0) decoded.templates = templates
  return decoded
}
