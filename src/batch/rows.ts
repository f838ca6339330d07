import {closest} from '../cli/parse-errors.js'
import type {FlagTable} from '../input/fields.js'
import {parseReais} from '../input/money.js'
import type {BatchProblem, BatchRow, BatchValue} from './read.js'

/**
 * A batch row read as the flags of the single command: each field is a flag's name, and its
 * value is the text that flag would have been given, so that a row is checked by exactly the same
 * rules (the flag's own parser, then the contract) as `withdraw --amount ...` or `tx create ...`.
 */

/** The flags a row stands for, and the problems found while reading its fields. */
export interface RowFlags {
  flags: Record<string, unknown>
  problems: BatchProblem[]
  /** The flags an unknown field's name is closest to: likely meant, so not also said to be missing. */
  meant: Set<string>
}

const TRUE = /^(true|yes|y|1|x)$/i
const FALSE = /^(false|no|n|0)$/i

/** A scalar value as the text a flag would get: strings as they are, numbers as JSON writes them. */
function textOf(value: BatchValue): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number') return String(value)
  return undefined
}

/**
 * The texts of a repeatable flag: an NDJSON array (objects written as JSON, which --item reads),
 * an NDJSON object for --metadata (key=value pairs), or a CSV cell holding one value per line
 * (a line break inside a quoted cell, Alt+Enter in a spreadsheet) or a JSON array.
 */
function textsOf(flag: string, value: BatchValue): string[] | undefined {
  if (Array.isArray(value)) {
    const texts = value.map((item) => (item !== null && typeof item === 'object' ? JSON.stringify(item) : textOf(item)))
    return texts.every((text) => text !== undefined) ? (texts as string[]) : undefined
  }
  if (value !== null && typeof value === 'object') {
    if (flag === 'metadata') {
      const pairs = Object.entries(value).map(([key, inner]) => (textOf(inner) === undefined ? undefined : `${key}=${textOf(inner)}`))
      return pairs.every((pair) => pair !== undefined) ? (pairs as string[]) : undefined
    }
    return [JSON.stringify(value)]
  }
  const text = textOf(value)
  if (text === undefined) return undefined
  const trimmed = text.trim()
  if (trimmed.startsWith('[')) {
    try {
      const parsed = JSON.parse(trimmed) as BatchValue
      if (Array.isArray(parsed)) return textsOf(flag, parsed)
    } catch {
      // Not JSON: the value as written, below.
    }
  }
  if (flag === 'metadata' && trimmed.startsWith('{')) {
    try {
      const parsed = JSON.parse(trimmed) as BatchValue
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return textsOf(flag, parsed)
    } catch {
      // Not JSON: the value as written, below.
    }
  }
  return text
    .split(/\r\n|\n|\r/)
    .map((line) => line.trim())
    .filter(Boolean)
}

/** Each table's fields by flag name, made once per table (a batch reads every row against one). */
const byFlagOf = new WeakMap<FlagTable, Map<string, FlagTable[number]>>()
function fieldsByFlag(table: FlagTable): Map<string, FlagTable[number]> {
  let byFlag = byFlagOf.get(table)
  if (!byFlag) {
    byFlag = new Map(table.map((field) => [field.flag, field]))
    byFlagOf.set(table, byFlag)
  }
  return byFlag
}

/**
 * Reads a row's fields as the flags of `table`. A field that is no flag of the command, a null
 * (a value, not an absence, and refused like one in a body) or a value of the wrong kind is a
 * problem at the row's line, named after the field. `unknown` collects the names already reported
 * as unknown, so a mistyped CSV column is said once, not on every row.
 */
export function rowFlags(table: FlagTable, row: BatchRow, command: string, unknown: Set<string> = new Set()): RowFlags {
  const byFlag = fieldsByFlag(table)
  const flags: Record<string, unknown> = {}
  const problems: BatchProblem[] = []
  const meant = new Set<string>()
  const {line} = row
  const fields = {...row.fields}
  // amount-brl: the amount in reais, as a spreadsheet holds it, read as the cents of amount.
  if (fields['amount-brl'] !== undefined && byFlag.has('amount')) {
    const value = fields['amount-brl']
    delete fields['amount-brl']
    if (fields.amount !== undefined) problems.push({line, field: 'amount-brl', message: 'amount-brl and amount are both given: give the amount once, in reais (amount-brl) or in integer cents (amount)'})
    else if (typeof value !== 'string' && typeof value !== 'number') problems.push({line, field: 'amount-brl', message: 'amount-brl must be an amount in reais, such as 781,62'})
    else {
      const parsed = parseReais(value, 'amount-brl')
      if (parsed.ok) flags.amount = String(parsed.cents)
      else problems.push({line, field: 'amount-brl', message: parsed.message})
    }
    // The amount was given, as reais: not missing, whatever is wrong with it.
    meant.add('amount')
  }
  for (const [name, value] of Object.entries(fields)) {
    const field = byFlag.get(name)
    if (!field) {
      const near = closest(name, [...byFlag.keys()])
      if (near) meant.add(near)
      if (unknown.has(name)) continue
      unknown.add(name)
      problems.push({line, field: name, message: `${name} is not a field of ${command}${near ? `; did you mean ${near}?` : ` (the fields are the flags' names: ${[...byFlag.keys()].join(', ')})`}`})
      continue
    }
    if (value === null) {
      problems.push({line, field: name, message: `${name} is null: leave the field out, or give it a value`})
      continue
    }
    if (field.sets !== undefined) {
      const text = typeof value === 'boolean' ? value : textOf(value)
      if (text === true || (typeof text === 'string' && TRUE.test(text.trim()))) flags[name] = true
      else if (text === false || (typeof text === 'string' && FALSE.test(text.trim()))) continue
      else problems.push({line, field: name, message: `${name} must be true or false`})
      continue
    }
    if (field.multiple) {
      const texts = textsOf(name, value)
      if (texts === undefined) problems.push({line, field: name, message: `${name} must be a text, or a list of texts`})
      else if (texts.length > 0) flags[name] = texts
      continue
    }
    const text = textOf(value)
    if (text === undefined) {
      problems.push({line, field: name, message: `${name} must be a text or a number, not ${Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : String(value)}`})
      continue
    }
    flags[name] = text
  }
  return {flags, problems, meant}
}

/**
 * Every flag of `table` whose parser refuses the row's text, each a problem of its own; those
 * flags are left out of `flags`, so that the contract's check of the rest does not say the same
 * field is missing. (Building the body stops at the first parser that refuses.) When `values` is
 * given, what each parser made of its text is put in it, by flag.
 */
export function parseProblems(table: FlagTable, row: RowFlags, line: number, values?: Record<string, unknown>): BatchProblem[] {
  const problems: BatchProblem[] = []
  for (const field of table) {
    const given = row.flags[field.flag]
    if (given === undefined || field.sets !== undefined) continue
    try {
      const value = field.multiple ? field.parseAll?.(given as string[], undefined) : field.parse?.(String(given), `--${field.flag}`)
      if (values) values[field.flag] = value
    } catch (error) {
      delete row.flags[field.flag]
      problems.push({line, field: field.flag, message: unflagged(table, (error as Error).message)})
    }
  }
  return problems
}

/**
 * A message about flags, said about a row's fields: `--amount must be ...` → `amount must be ...`.
 * Only the table's own flag names are touched.
 */
export function unflagged(table: FlagTable, message: string): string {
  const names = table.map((field) => field.flag.replace(/[-]/g, '\\-')).sort((a, b) => b.length - a.length)
  if (names.length === 0) return message
  return message.replace(new RegExp(`--(${names.join('|')})(?![\\w-])`, 'g'), '$1')
}
