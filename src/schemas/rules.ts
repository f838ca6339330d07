// Subpath imports: the package's main entry loads every module it has (~40 ms at start-up).
import {isValidCep} from '@brazilian-utils/brazilian-utils/is-valid-cep'
import {isValidEmail} from '@brazilian-utils/brazilian-utils/is-valid-email'
import {isValidLandlinePhone} from '@brazilian-utils/brazilian-utils/is-valid-landline-phone'
import {isValidMobilePhone} from '@brazilian-utils/brazilian-utils/is-valid-mobile-phone'
import {z} from 'zod'

import {isLoopbackHost} from '../api/base-url.js'
import {LIMITS} from './enums.js'
import {cpfProblem, DOCUMENT_WRITINGS, type DocumentKind, readDocument, TEST_CPF} from './document.js'

/**
 * The field rules of the API reference, and the project's rules where it is silent (alphanumeric
 * CNPJ, phone and name formats, https webhooks), as zod schemas, each with a message a person
 * can act on. The CLI checks flags with them before sending; the sandbox answers 422 with them.
 */

const {min: AMOUNT_MIN, max: AMOUNT_MAX} = LIMITS.amount

/** Made once, when first needed, rather than once per value checked (or at start-up, for commands that check none). */
const once = <T>(make: () => T) => {
  let made: T | undefined
  return () => (made ??= make())
}

/** zod's own string formats, which the refinements below lean on. */
const FORMATS = {
  ip: once(() => z.union([z.ipv4(), z.ipv6()])),
  date: once(() => z.iso.date()),
  dateTime: once(() => z.iso.datetime({offset: true, local: true})),
}

/** Integer cents within the documented bounds. */
export const cents = (what = 'an integer number of cents') =>
  z
    .number({error: `must be ${what} from ${AMOUNT_MIN} to ${AMOUNT_MAX}`})
    .refine(Number.isInteger, {error: `must be ${what} (no decimals): 10.00 is 1000`, abort: true})
    .refine((value) => value >= AMOUNT_MIN && value <= AMOUNT_MAX, {error: `must be from ${AMOUNT_MIN} to ${AMOUNT_MAX} cents`})

export const boundedInt = (min: number, max: number) =>
  z
    .number({error: `must be an integer from ${min} to ${max}`})
    .refine((value) => Number.isInteger(value) && value >= min && value <= max, {error: `must be an integer from ${min} to ${max}`})

export const text = (min: number, max: number) =>
  z
    .string({error: `must be a text of ${min} to ${max} characters`})
    .refine((value) => value.length >= min && value.length <= max, {error: `must be ${min} to ${max} characters long`})

/** externalCode and idempotencyKey: 8 to 255 characters, not all blank. */
export const code = () =>
  text(LIMITS.code.min, LIMITS.code.max).refine((value) => value.length < LIMITS.code.min || value.length > LIMITS.code.max || value.trim().length > 0, {
    error: 'must not be blank',
  })

/** CPF, or CNPJ in either the numeric or the alphanumeric form (check digits verified), by the one rule of documents (document.ts). */
export const isDocument = (value: string) => readDocument(value).ok
export const documentKind = (value: string): DocumentKind => readDocument(value).kind ?? 'CNPJ'

/**
 * Why a value is not a document the rules take, by the one reading of documents (the same verdict
 * as a PIX key's): not written as one, its check digits, or a number refused by policy though its
 * check digits hold (the well-known test CPF 123.456.789-09).
 */
export function documentProblem(value: string): string | undefined {
  const read = readDocument(value)
  if (read.ok) return undefined
  if (read.reason === 'shape') return `must be a valid CPF or CNPJ, written as one: a CPF is ${DOCUMENT_WRITINGS.CPF}; a CNPJ is ${DOCUMENT_WRITINGS.CNPJ}`
  if (read.reason === 'policy') return `must be a real CPF or CNPJ: ${cpfProblem(TEST_CPF)}`
  return 'must be a valid CPF or CNPJ (check digits verified)'
}

/** A CPF or CNPJ as the gateway takes it: check digits verified, the letters of an alphanumeric CNPJ in upper case. */
export const document = () =>
  z
    .string({error: 'must be a CPF or CNPJ'})
    .refine(isDocument, {error: (issue) => documentProblem(String(issue.input)) ?? 'must be a CPF or CNPJ', abort: true})
    .superRefine((value, ctx) => {
      if (/[a-z]/.test(value)) ctx.addIssue({code: 'custom', message: `must have the letters of a CNPJ in upper case: ${value.toUpperCase()}`})
    })

/** Letters of any script, digits, spaces and . ' - */
export const personName = () =>
  z
    .string({error: 'must be a name'})
    .refine((value) => value.trim().length > 0, {error: 'must not be empty', abort: true})
    .refine((value) => /^[\p{L}\p{M}\p{N} .'-]+$/u.test(value), {error: "may hold only letters, digits, spaces and . ' -"})

const digits = (value: string) => value.replace(/\D/g, '')

/** Strips a +55 / 0055 country code, as the phone rules accept numbers with or without it. */
function nationalDigits(value: string): string {
  const all = digits(value)
  if (/^\s*\+?55/.test(value) && all.length > 11) return all.slice(2)
  if (all.startsWith('0055') && all.length > 13) return all.slice(4)
  return all
}

/** DDD + 8 digits, formatted or digits only, with a DDD from the national list. */
export const landline = () =>
  z
    .string({error: 'must be a Brazilian landline'})
    .refine((value) => nationalDigits(value).length === 10 && isValidLandlinePhone(value), {
      error: 'must be a Brazilian landline: DDD + 8 digits, e.g. (11) 3000-0000',
    })

/** DDD + 9 digits starting with 9, with a DDD from the national list. */
export const mobilePhone = () =>
  z.string({error: 'must be a Brazilian mobile number'}).refine(
    (value) => {
      const national = nationalDigits(value)
      return national.length === 11 && national[2] === '9' && isValidMobilePhone(value)
    },
    {error: 'must be a Brazilian mobile number: DDD + 9 digits starting with 9, e.g. (11) 98765-4321'},
  )

export const email = () => z.string({error: 'must be an e-mail address'}).refine(isValidEmail, {error: 'must be a valid e-mail address'})

export const cep = () =>
  z
    .string({error: 'must be a CEP'})
    .refine((value) => /^\d{5}-?\d{3}$/.test(value.trim()) && isValidCep(value), {error: 'must be a CEP of 8 digits, e.g. 01310-100'})

export const ip = () =>
  z.string({error: 'must be an IP address'}).refine((value) => FORMATS.ip().safeParse(value).success, {
    error: 'must be a valid IPv4 or IPv6 address',
  })

/** An ISO date without a time of day, a real calendar date, not in the future. */
export const birthdate = () =>
  z
    .string({error: 'must be a date'})
    .refine((value) => FORMATS.date().safeParse(value).success, {error: 'must be an ISO date without time, e.g. 1990-05-17', abort: true})
    .refine((value) => Date.parse(`${value}T00:00:00Z`) <= Date.now(), {error: 'must not be in the future'})

const HOST_WITH_TLD_PROBLEM = 'must have a host with a top-level domain, e.g. hooks.example.com'

/**
 * A domain name by the URL standard, as the URL parser leaves it (an IDN in its punycode form):
 * labels of 1 to 63 letters, digits and hyphens, no empty label, an optional trailing dot, and a
 * final label that is a TLD (letters, or an xn-- label); no IP literal.
 */
export function isHostWithTld(hostname: string): boolean {
  const host = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname
  const labels = host.split('.')
  if (labels.length < 2 || labels.some((label) => !/^[a-z0-9-]{1,63}$/i.test(label))) return false
  const tld = labels.at(-1)!
  return /^[a-z]{2,63}$/i.test(tld) || /^xn--[a-z0-9-]{1,59}$/i.test(tld)
}

/** https only, a host with a TLD, no fragment; a query string is allowed. */
export function webhookUrlProblem(value: string): string | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'must be a valid URL'
  }
  if (url.protocol !== 'https:') return 'must use https'
  if (value.includes('#')) return 'must not carry a fragment (#)'
  if (!isHostWithTld(url.hostname)) return HOST_WITH_TLD_PROBLEM
  return undefined
}

/**
 * The destination of a resend (overrideURL), or where the sandbox forwards its webhooks: a
 * webhookUrl, or an http(s) URL on loopback (127.0.0.0/8, ::1, localhost) for a local listener.
 * Plain http to any other host is refused: a notification carries the record's data.
 */
export function destinationUrlProblem(value: string): string | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'must be a valid URL'
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL'
  if (value.includes('#')) return 'must not carry a fragment (#)'
  if (url.username || url.password) return 'must not carry credentials'
  if (isLoopbackHost(url.hostname)) return undefined
  if (url.protocol !== 'https:') return 'must use https unless its host is loopback (127.0.0.1, ::1, localhost)'
  if (!isHostWithTld(url.hostname)) return HOST_WITH_TLD_PROBLEM
  return undefined
}

export const destinationUrl = () =>
  z.string({error: 'must be a URL'}).superRefine((value, ctx) => {
    const problem = destinationUrlProblem(value)
    if (problem) ctx.addIssue({code: 'custom', message: problem})
  })

export const webhookUrl = () =>
  z.string({error: 'must be a URL'}).superRefine((value, ctx) => {
    const problem = webhookUrlProblem(value)
    if (problem) ctx.addIssue({code: 'custom', message: problem})
  })

/** An ISO 8601 date-time with a time of day; an offset is optional (none means UTC). */
export const dateTime = () =>
  z
    .string({error: 'must be an ISO date-time'})
    .refine((value) => FORMATS.dateTime().safeParse(value).success, {
      error: 'must be an ISO date-time with a time of day, e.g. 2026-11-20T00:00:00Z',
    })

/** Reads a date-time the schema accepted; one without an offset is UTC. */
export function parseDateTime(value: string): number {
  const hasZone = /(?:Z|[+-]\d{2}:\d{2})$/i.test(value)
  return Date.parse(hasZone ? value : `${value}Z`)
}

/** A non-empty list of distinct values of an enum. */
export const enumList = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .array(z.enum(values, {error: `must be one of ${values.join(', ')}`}), {error: `must be a list of ${values.join(', ')}`})
    .refine((list) => list.length > 0, {error: 'must not be empty', abort: true})
    .refine((list) => new Set(list).size === list.length, {error: 'must not repeat a value'})

/** A JSON object: not null, not a list. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export interface Issue {
  /** Dotted path of the field, e.g. customer.document or items.1.title. */
  path: string
  message: string
}

/**
 * Flattens zod's issues into "path: message" pairs, the form both the CLI and the sandbox show.
 * Parse with `{reportInput: true}` (see checkWith): a missing field is told from a mistyped one by
 * the input zod reports.
 */
export function issuesOf(error: z.ZodError): Issue[] {
  const seen = new Set<string>()
  const list: Issue[] = []
  for (const issue of error.issues) {
    const path = issue.path.map(String).join('.') || '(body)'
    let {message} = issue
    if (issue.code === 'unrecognized_keys') message = `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`
    else if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && 'input' in issue && issue.input === undefined) {
      message = 'is required'
    } else if ('input' in issue && issue.input === null && issue.code !== 'custom') {
      // An explicit null is a value, not an absence: it is refused, never read as "use the default".
      message = 'must not be null'
    }
    const key = `${path}\u0000${message}`
    if (seen.has(key)) continue
    seen.add(key)
    list.push({path, message})
  }
  return list
}

/** Parses with a schema and answers the value, or every issue. */
export function checkWith<T>(schema: z.ZodType<T>, value: unknown): {ok: true; value: T} | {ok: false; issues: Issue[]} {
  const result = schema.safeParse(value, {reportInput: true})
  return result.success ? {ok: true, value: result.data} : {ok: false, issues: issuesOf(result.error)}
}

export const formatIssue = (issue: Issue) => `${issue.path} ${issue.message}`
