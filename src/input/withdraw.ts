import {PIX_KEY_TYPES, type PixKeyType} from '../schemas/enums.js'
import type {Issue} from '../schemas/rules.js'
import type {WithdrawBody} from '../schemas/withdraw.js'
import {buildFromFlags, type Built, type FlagTable} from './fields.js'
import {anyCaseOptions} from './options.js'
import {requireCents} from './money.js'

/** `withdraw`: every flag, the body field it sets, and how its text is read. */
export const WITHDRAW_FIELDS: FlagTable = [
  {flag: 'amount', path: 'amount', description: 'Amount in integer cents, 1 to 10000000 (1000 is R$ 10,00).', helpValue: '<cents>', parse: requireCents},
  {flag: 'pix-key', path: 'pixKey', description: 'Destination PIX key: CPF, CNPJ, e-mail, mobile phone (+55...) or random key (EVP).', helpValue: '<key>'},
  {
    flag: 'pix-key-type',
    path: 'pixKeyType',
    description: `Type of the key, any case: ${PIX_KEY_TYPES.join(', ')} (default: inferred from the key).`,
    helpValue: '<type>',
    options: anyCaseOptions(PIX_KEY_TYPES),
    parse: (value) => value.trim().toUpperCase(),
  },
  {flag: 'webhook-url', path: 'webhookUrl', description: 'HTTPS URL the gateway notifies of the withdrawal\'s changes.', helpValue: '<url>'},
  {flag: 'external-code', path: 'externalCode', description: 'Your reference for the withdrawal, 8 to 255 characters.'},
  {flag: 'idempotency-key', path: 'idempotencyKey', description: 'Key that makes a retry safe, 8 to 255 characters (default: a new UUID).'},
]

export interface PreparedWithdraw extends Built {
  /** The body to send, when every rule held; it always carries an idempotency key. */
  value?: WithdrawBody & {idempotencyKey: string}
  issues: Issue[]
  /** The key type, when the CLI inferred it from the key. */
  inferredType?: PixKeyType
  /** Whether the idempotency key was made here, for want of one given. */
  generatedKey: boolean
}

/**
 * Builds the withdraw body from an optional --body object and the flags (flags winning), puts the
 * PIX key in the form the DICT registers, infers its type when none is given, and checks every
 * rule. An idempotency key is always sent: `makeKey` makes one when none is given.
 */
export async function prepareWithdraw(flags: Record<string, unknown>, base: Record<string, unknown>, makeKey: () => string | Promise<string>): Promise<PreparedWithdraw> {
  // The flags are read first: a bad one is refused before the contract (zod) is even loaded.
  const built = buildFromFlags(WITHDRAW_FIELDS, flags, base)
  const {resolvePixKey} = await import('./pix-key.js')
  const {checkWithdraw} = await import('../schemas/withdraw.js')
  const {body} = built
  const generatedKey = body.idempotencyKey === undefined
  if (generatedKey) body.idempotencyKey = await makeKey()
  const issues: Issue[] = []
  let inferredType: PixKeyType | undefined
  if (typeof body.pixKey === 'string' && (body.pixKeyType === undefined || typeof body.pixKeyType === 'string')) {
    const given = body.pixKeyType as string | undefined
    const resolved = resolvePixKey(body.pixKey, given)
    if (resolved.ok) {
      body.pixKey = resolved.key
      body.pixKeyType = resolved.type
      if (resolved.inferred) inferredType = resolved.type
    } else {
      const typeIsBad = given !== undefined && !PIX_KEY_TYPES.includes(given.trim().toUpperCase() as PixKeyType)
      issues.push({path: typeIsBad ? 'pixKeyType' : 'pixKey', message: resolved.message})
    }
  }
  const checked = checkWithdraw(body, {strict: true})
  if (!checked.ok) {
    // The key's own problem is said once, by the key check above; a type that could not be inferred
    // from a key already refused is no second problem.
    const keyRefused = issues.some((known) => known.path === 'pixKey')
    for (const issue of checked.issues) {
      if (issues.some((known) => known.path === issue.path)) continue
      // The type is inferred from the key: with no key (or a refused one), its absence is no problem of its own.
      if ((keyRefused || body.pixKey === undefined) && issue.path === 'pixKeyType' && body.pixKeyType === undefined) continue
      issues.push(issue)
    }
  }
  return {...built, issues, inferredType, generatedKey, value: checked.ok && issues.length === 0 ? {...checked.value, idempotencyKey: body.idempotencyKey as string} : undefined}
}
