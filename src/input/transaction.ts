import {UsageError} from '../cli/errors.js'
import {readDocument} from '../schemas/document.js'
import type {Issue} from '../schemas/rules.js'
import type {CreateTransactionBody} from '../schemas/transaction.js'
import {buildFromFlags, nameIssue, type Built, type FlagTable} from './fields.js'
import {calendarDate} from './dates.js'
import {requireCents, requireInteger} from './money.js'

const ITEM_KEYS = ['title', 'unitPrice', 'quantity', 'description'] as const

/**
 * Reads one `--item`: comma-separated key=value pairs with the keys title, unitPrice (cents),
 * quantity and description, e.g. `title=T-shirt,unitPrice=2990,quantity=2`. A comma belongs to the
 * value unless a word and "=" follow it, so descriptions may hold commas, and a mistyped key is
 * caught rather than swallowed into the value before it. A JSON object works too.
 */
export function parseItem(input: string, position: number): Record<string, unknown> {
  const flag = `--item #${position}`
  const trimmed = input.trim()
  if (trimmed.startsWith('{')) {
    try {
      const value = JSON.parse(trimmed) as unknown
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>
    } catch {
      // reported below
    }
    throw new UsageError(`${flag} is not a valid JSON object`)
  }
  const parts = trimmed.split(/,(?=\s*[A-Za-z]+=)/)
  const item: Record<string, unknown> = {}
  for (const part of parts) {
    const eq = part.indexOf('=')
    const key = part.slice(0, eq).trim()
    const value = part.slice(eq + 1).trim()
    if (eq === -1 || !(ITEM_KEYS as readonly string[]).includes(key)) {
      throw new UsageError(`${flag} must be title=TEXT,unitPrice=CENTS[,quantity=N][,description=TEXT]; "${part.trim()}" is not one of those`)
    }
    if (key in item) throw new UsageError(`${flag} gives ${key} twice`)
    if (key === 'unitPrice') {
      item[key] = requireCents(value, `${flag} unitPrice`)
    } else if (key === 'quantity') {
      if (!/^\d+$/.test(value)) throw new UsageError(`${flag} quantity must be an integer from 1 to 100, got "${value}"`)
      item[key] = Number(value)
    } else {
      item[key] = value
    }
  }
  return item
}

/** Reads `--metadata key=value` pairs into an object; values stay strings. */
export function parseMetadata(pairs: string[]): Record<string, string> {
  const metadata: Record<string, string> = {}
  for (const pair of pairs) {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new UsageError(`--metadata must be key=value, got "${pair}"`)
    // Defined, not assigned: a key is kept exactly, "__proto__" included, and never reaches a prototype.
    Object.defineProperty(metadata, pair.slice(0, eq).trim(), {value: pair.slice(eq + 1), enumerable: true, writable: true, configurable: true})
  }
  return metadata
}

const CUSTOMER = 'CUSTOMER'
const SELLER = 'SELLER'
const ADDRESS = 'ADDRESS (with --physical)'
const cents = (text: string, flag: string) => requireCents(text, flag)
/**
 * A document is sent as a PIX key is, with only its formatting removed (529 982 247 25 and
 * 529.982.247-25 are sent 52998224725; a CNPJ's letters upper case). One the rules refuse is sent
 * to the contract as typed (its letters upper case), to be refused there in the rule's words.
 */
const documentValue = (text: string) => {
  const read = readDocument(text)
  return read.ok ? read.value : text.trim().toUpperCase()
}
/** A typographic apostrophe (D’Ávila) is sent as the plain one the gateway's name rule takes. */
const nameValue = (text: string) => text.replace(/[\u2018\u2019\u02BC\u00B4`]/g, "'")

/** `tx create`: every flag, the body field it sets, and how its text is read. */
export const TX_CREATE_FIELDS: FlagTable = [
  {flag: 'amount', path: 'amount', description: 'Amount in integer cents, 1 to 10000000 (1000 is R$ 10,00).', helpValue: '<cents>', parse: cents},
  {flag: 'external-code', path: 'externalCode', description: 'Your reference for the charge, 8 to 255 characters.'},
  {flag: 'idempotency-key', path: 'idempotencyKey', description: 'Key that makes a retry safe, 8 to 255 characters (default: a new UUID).'},
  {flag: 'webhook-url', path: 'webhookUrl', description: 'HTTPS URL the gateway notifies of changes.'},
  {
    flag: 'expiration-seconds',
    path: 'pix.expirationSeconds',
    description: 'Lifetime of the QR code, 60 to 86400 seconds (gateway default 1800).',
    helpValue: '<seconds>',
    parse: requireInteger,
  },
  {flag: 'customer-name', path: 'customer.name', description: "Customer name: letters of any script, digits, spaces and . ' - (a typographic ’ is sent as ').", helpGroup: CUSTOMER, parse: nameValue},
  {flag: 'customer-document', path: 'customer.document', description: 'Customer CPF or CNPJ (alphanumeric CNPJ included).', helpGroup: CUSTOMER, parse: documentValue},
  {flag: 'customer-email', path: 'customer.email', description: 'Customer e-mail.', helpGroup: CUSTOMER},
  {flag: 'customer-mobile', path: 'customer.mobilePhone', description: 'Customer mobile: DDD + 9 digits, e.g. (11) 98765-4321.', helpGroup: CUSTOMER},
  {flag: 'customer-landline', path: 'customer.landline', description: 'Customer landline: DDD + 8 digits, e.g. (11) 3000-0000.', helpGroup: CUSTOMER},
  {flag: 'customer-ip', path: 'customer.ip', description: 'Customer IPv4 or IPv6 address.', helpGroup: CUSTOMER},
  {flag: 'customer-birthdate', path: 'customer.birthdate', description: 'Customer birthdate: DD/MM/AAAA or AAAA-MM-DD (sent as AAAA-MM-DD).', helpGroup: CUSTOMER, parse: calendarDate},
  {flag: 'seller-name', path: 'seller.name', description: 'Seller name, as the customer name.', helpGroup: SELLER, parse: nameValue},
  {flag: 'seller-document', path: 'seller.document', description: 'Seller CPF or CNPJ.', helpGroup: SELLER, parse: documentValue},
  {
    flag: 'physical',
    path: 'isInfoProduct',
    sets: false,
    description: 'A physical product that needs delivery (isInfoProduct false); needs an address.',
    helpGroup: ADDRESS,
  },
  {flag: 'address-postal-code', path: 'address.postalCode', description: 'CEP, e.g. 01310-100.', helpGroup: ADDRESS},
  {flag: 'address-number', path: 'address.number', description: 'Street number, 1 to 10 digits.', helpGroup: ADDRESS},
  {flag: 'address-street', path: 'address.street', description: 'Street, 2 to 200 characters.', helpGroup: ADDRESS},
  {flag: 'address-neighborhood', path: 'address.neighborhood', description: 'Neighborhood, 2 to 100 characters.', helpGroup: ADDRESS},
  {flag: 'address-city', path: 'address.city', description: 'City, 2 to 100 characters.', helpGroup: ADDRESS},
  {flag: 'address-state', path: 'address.state', description: 'State name or abbreviation, 2 to 50 characters.', helpGroup: ADDRESS},
  {flag: 'address-country', path: 'address.country', description: 'Country, 2 to 60 characters.', helpGroup: ADDRESS},
  {flag: 'address-complement', path: 'address.complement', description: 'Complement, 2 to 150 characters.', helpGroup: ADDRESS},
  {
    flag: 'item',
    path: 'items',
    description: 'An item: title=TEXT,unitPrice=CENTS[,quantity=N][,description=TEXT]. Repeatable.',
    multiple: true,
    parseAll: (texts) => texts.map((text, index) => parseItem(text, index + 1)),
    describe: (rest, message) => {
      const [index, ...field] = rest.split('.')
      return index ? `--item #${Number(index) + 1}${field.length > 0 ? ` ${field.join('.')}` : ''} ${message}` : `--item ${message}`
    },
  },
  {
    flag: 'metadata',
    path: 'metadata',
    description: 'Metadata as key=value. Repeatable.',
    multiple: true,
    parseAll: (texts, previous) => ({
      ...(previous && typeof previous === 'object' && !Array.isArray(previous) ? previous : {}),
      ...parseMetadata(texts),
    }),
    describe: (_rest, message) => `--metadata ${message}`,
  },
]

/**
 * Builds the create body from an optional `--body` object and the flags, flags winning. The CLI
 * always sends paymentMethod PIX and a pix object, as the reference requires them for PIX; an
 * explicit null in the file stays, to be refused like every other null.
 */
export function buildCreateBody(flags: Record<string, unknown>, base: Record<string, unknown> = {}): Built {
  const built = buildFromFlags(TX_CREATE_FIELDS, flags, base)
  const {body} = built
  if (body.paymentMethod === undefined) body.paymentMethod = 'PIX'
  if (body.pix === undefined) body.pix = {}
  for (const party of ['customer', 'seller'] as const) {
    const holder = body[party] as {document?: unknown; name?: unknown} | undefined
    if (!holder || typeof holder !== 'object') continue
    body[party] = {
      ...holder,
      ...(typeof holder.document === 'string' ? {document: documentValue(holder.document)} : {}),
      ...(typeof holder.name === 'string' ? {name: nameValue(holder.name)} : {}),
    }
  }
  return built
}

export interface PreparedCreate extends Built {
  /** The body to send, when every rule held; it always carries an idempotency key. */
  value?: CreateTransactionBody & {idempotencyKey: string}
  issues: Issue[]
  /** Whether the idempotency key was made here, for want of one given. */
  generatedKey: boolean
}

/** The message --physical gets when the address it needs is missing. */
const PHYSICAL_NEEDS_ADDRESS =
  '--physical needs an address: --address-postal-code, --address-number, --address-street, --address-neighborhood, --address-city, --address-state and --address-country'

/**
 * Builds the create body from an optional --body object and the flags (flags winning) and checks
 * every rule, as the sandbox does. An idempotency key is always sent: `makeKey` makes one when none
 * is given. `tx create` and `tx create --batch` (one row at a time) both come through here.
 */
export async function prepareCreate(flags: Record<string, unknown>, base: Record<string, unknown>, makeKey: () => string | Promise<string>): Promise<PreparedCreate> {
  // The flags are read first: a bad one is refused before the contract (zod) is even loaded.
  const built = buildCreateBody(flags, base)
  const {checkCreateTransaction} = await import('../schemas/transaction.js')
  const {body} = built
  const generatedKey = body.idempotencyKey === undefined
  if (generatedKey) body.idempotencyKey = await makeKey()
  const checked = checkCreateTransaction(body, {strict: true})
  if (!checked.ok) return {...built, issues: checked.issues, generatedKey}
  return {...built, issues: [], generatedKey, value: {...checked.value, idempotencyKey: body.idempotencyKey as string}}
}

/** A refused field of a create, named after the flag that set it (or the --body path). */
export function nameCreateIssue(prepared: Pick<PreparedCreate, 'fromFlags' | 'fromBody' | 'body'>, issue: Issue): string {
  if (issue.path === 'address' && prepared.fromFlags.has('isInfoProduct')) return PHYSICAL_NEEDS_ADDRESS
  // A customer (or seller) given in part: say why the rest is needed, which the contract alone does not.
  const part = /^(customer|seller)\.(name|document)$/.exec(issue.path)
  if (part && issue.message === 'is required') {
    return nameIssue(TX_CREATE_FIELDS, {...issue, message: `is required: the gateway's reference requires a ${part[1]}'s name and document whenever a ${part[1]} is given`}, prepared)
  }
  return nameIssue(TX_CREATE_FIELDS, issue, prepared)
}
