import {UsageError} from '../api/errors.js'
import {requireCents} from '../render/money.js'

/** The flags of `tx create`, as oclif parsed them. */
export interface CreateFlags {
  amount?: string
  'external-code'?: string
  'idempotency-key'?: string
  'webhook-url'?: string
  'expiration-seconds'?: string
  'customer-name'?: string
  'customer-document'?: string
  'customer-email'?: string
  'customer-mobile'?: string
  'customer-landline'?: string
  'customer-ip'?: string
  'customer-birthdate'?: string
  'seller-name'?: string
  'seller-document'?: string
  physical?: boolean
  'address-postal-code'?: string
  'address-number'?: string
  'address-street'?: string
  'address-neighborhood'?: string
  'address-city'?: string
  'address-state'?: string
  'address-country'?: string
  'address-complement'?: string
  item?: string[]
  metadata?: string[]
}

/** Body field path → the flag that sets it. */
const FLAG_OF: Record<string, keyof CreateFlags> = {
  amount: 'amount',
  externalCode: 'external-code',
  idempotencyKey: 'idempotency-key',
  webhookUrl: 'webhook-url',
  'pix.expirationSeconds': 'expiration-seconds',
  'customer.name': 'customer-name',
  'customer.document': 'customer-document',
  'customer.email': 'customer-email',
  'customer.mobilePhone': 'customer-mobile',
  'customer.landline': 'customer-landline',
  'customer.ip': 'customer-ip',
  'customer.birthdate': 'customer-birthdate',
  'seller.name': 'seller-name',
  'seller.document': 'seller-document',
  isInfoProduct: 'physical',
  'address.postalCode': 'address-postal-code',
  'address.number': 'address-number',
  'address.street': 'address-street',
  'address.neighborhood': 'address-neighborhood',
  'address.city': 'address-city',
  'address.state': 'address-state',
  'address.country': 'address-country',
  'address.complement': 'address-complement',
}

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
    metadata[pair.slice(0, eq).trim()] = pair.slice(eq + 1)
  }
  return metadata
}

function integerFlag(value: string, flag: string): number {
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`${flag} must be an integer, got "${value}"`)
  return Number(value)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value)
}

/** Sets the defined values of `fields` on a copy of `base[key]`, creating it when needed. */
function overlay(base: Record<string, unknown>, key: string, fields: Record<string, unknown>): void {
  const defined = Object.entries(fields).filter(([, value]) => value !== undefined)
  if (defined.length === 0) return
  base[key] = {...(isObject(base[key]) ? base[key] : {}), ...Object.fromEntries(defined)}
}

/**
 * Builds the create body from an optional `--body` object and the flags, flags winning. The CLI
 * always sends paymentMethod PIX and a pix object, as the reference requires them for PIX.
 */
export function buildCreateBody(flags: CreateFlags, base: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {...base}
  if (flags.amount !== undefined) {
    body.amount = requireCents(flags.amount, '--amount')
  }
  body.paymentMethod ??= 'PIX'
  if (flags['external-code'] !== undefined) body.externalCode = flags['external-code']
  if (flags['idempotency-key'] !== undefined) body.idempotencyKey = flags['idempotency-key']
  if (flags['webhook-url'] !== undefined) body.webhookUrl = flags['webhook-url']
  body.pix ??= {}
  overlay(body, 'pix', {
    expirationSeconds: flags['expiration-seconds'] === undefined ? undefined : integerFlag(flags['expiration-seconds'], '--expiration-seconds'),
  })
  overlay(body, 'customer', {
    name: flags['customer-name'],
    document: flags['customer-document'],
    email: flags['customer-email'],
    mobilePhone: flags['customer-mobile'],
    landline: flags['customer-landline'],
    ip: flags['customer-ip'],
    birthdate: flags['customer-birthdate'],
  })
  overlay(body, 'seller', {name: flags['seller-name'], document: flags['seller-document']})
  if (flags.physical) body.isInfoProduct = false
  overlay(body, 'address', {
    postalCode: flags['address-postal-code'],
    number: flags['address-number'],
    street: flags['address-street'],
    neighborhood: flags['address-neighborhood'],
    city: flags['address-city'],
    state: flags['address-state'],
    country: flags['address-country'],
    complement: flags['address-complement'],
  })
  if (flags.item && flags.item.length > 0) body.items = flags.item.map((item, index) => parseItem(item, index + 1))
  if (flags.metadata && flags.metadata.length > 0) {
    body.metadata = {...(isObject(body.metadata) ? body.metadata : {}), ...parseMetadata(flags.metadata)}
  }
  return body
}

/**
 * Says what is wrong with a body field the way the operator wrote it: the flag that set it
 * (`--customer-document must be ...`), `--item #2 title` for items, or the field of the --body file.
 */
export function describeIssue(issue: {path: string; message: string}, flags: CreateFlags): string {
  const {path, message} = issue
  if (path === 'address' && flags.physical) {
    return '--physical needs an address: --address-postal-code, --address-number, --address-street, --address-neighborhood, --address-city, --address-state and --address-country'
  }
  const item = /^items\.(\d+)\.?(.*)$/.exec(path)
  if (item && flags.item && flags.item.length > 0) return `--item #${Number(item[1]) + 1}${item[2] ? ` ${item[2]}` : ''} ${message}`
  if (path.startsWith('metadata') && flags.metadata && flags.metadata.length > 0) return `--metadata ${message}`
  const flag = FLAG_OF[path]
  if (flag && (flags[flag] !== undefined || path === 'amount' || path === 'idempotencyKey')) return `--${flag} ${message}`
  return `body field ${path} ${message}`
}
