import {UsageError} from '../cli/errors.js'
import {closest} from '../cli/parse-errors.js'
import type {Issue} from '../schemas/rules.js'

/**
 * One row of a command's flag table: the flag, the body (or query) path it sets, and how its text
 * becomes the value sent. From the table come the flag definitions, the body, and the naming of a
 * refused field after the flag the operator typed, or after the --body path when the file set it.
 */
export interface FieldFlag {
  flag: string
  /** Where the value goes in the body, dotted: "customer.document". */
  path: string
  description: string
  helpGroup?: string
  helpValue?: string
  /** A boolean flag: when given, sets `path` to this value. */
  sets?: unknown
  /** Allowed values: checked by oclif, shown in the help, offered by shell completion (anyCaseOptions for any case). */
  options?: readonly string[]
  /** Repeatable; `parse` then gets every value at once. */
  multiple?: boolean
  /** Text to value; throws a UsageError naming the flag. Default: the text as it is. */
  parse?: (text: string, flag: string) => unknown
  /** For a repeatable flag: every value to one body value, merged with what --body had there. */
  parseAll?: (texts: string[], previous: unknown) => unknown
  /** Says what is wrong below this path, for a flag whose value has parts (`--item #2 title`). */
  describe?: (rest: string, message: string) => string
}

export type FlagTable = readonly FieldFlag[]

function isObject(value: unknown): value is Record<string, unknown> {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value)
}

function getPath(body: Record<string, unknown>, path: string): unknown {
  let node: unknown = body
  for (const key of path.split('.')) {
    if (!(isObject(node) || Array.isArray(node)) || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

/** Sets a dotted path on a body, copying each object on the way so --body's objects are never changed. */
function setPath(body: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.')
  let node = body
  for (const key of keys.slice(0, -1)) {
    const next = isObject(node[key]) ? {...(node[key] as Record<string, unknown>)} : {}
    node[key] = next
    node = next
  }
  node[keys.at(-1)!] = value
}

export interface Built {
  body: Record<string, unknown>
  /** The paths a flag set. */
  fromFlags: Set<string>
  /** The paths the --body file held. */
  fromBody: Set<string>
}

/** Every path that holds a value in an object: "customer", "customer.name", "items", "items.0", ... */
function pathsOf(value: unknown, prefix = '', into = new Set<string>()): Set<string> {
  if (isObject(value)) {
    for (const [key, inner] of Object.entries(value)) {
      const path = prefix ? `${prefix}.${key}` : key
      into.add(path)
      pathsOf(inner, path, into)
    }
  } else if (Array.isArray(value)) {
    value.forEach((inner, index) => {
      const path = `${prefix}.${index}`
      into.add(path)
      pathsOf(inner, path, into)
    })
  }
  return into
}

/** The body from an optional --body object and the flags, flags winning. */
export function buildFromFlags(table: FlagTable, flags: Record<string, unknown>, base: Record<string, unknown> = {}): Built {
  const body: Record<string, unknown> = structuredClone(base)
  const fromFlags = new Set<string>()
  for (const field of table) {
    const given = flags[field.flag]
    if (given === undefined || given === false) continue
    let value: unknown
    if (field.sets !== undefined) value = field.sets
    else if (field.multiple) {
      const texts = given as string[]
      if (texts.length === 0) continue
      value = field.parseAll ? field.parseAll(texts, getPath(body, field.path)) : texts
    } else value = field.parse ? field.parse(String(given), `--${field.flag}`) : given
    setPath(body, field.path, value)
    fromFlags.add(field.path)
  }
  return {body, fromFlags, fromBody: pathsOf(base)}
}

/** The table's row that sets a body path, or the path's nearest parent ("items.1.title" → --item). */
export function fieldOfPath(table: FlagTable, path: string): FieldFlag | undefined {
  return [...table].filter((entry) => path === entry.path || path.startsWith(`${entry.path}.`)).sort((a, b) => b.path.length - a.path.length)[0]
}

/**
 * Names a refused field the way the operator wrote it: the flag that set it, the --body path when
 * the file set it, and the flag that would set it when it is missing.
 */
export function nameIssue(table: FlagTable, issue: Issue, built: Pick<Built, 'fromFlags' | 'fromBody'> & {body?: Record<string, unknown>}): string {
  const {path} = issue
  const field = fieldOfPath(table, path)
  // A rule that names another field ("must not be after endDate") names it as the operator typed it.
  const message = issue.message.replace(/\b[a-z]+[A-Z]\w*\b/g, (name) => {
    const other = table.find((candidate) => candidate.path === name)
    return other && built.fromFlags.has(other.path) ? `--${other.flag}` : name
  })
  if (field && built.fromFlags.has(field.path)) {
    const rest = path.slice(field.path.length + 1)
    if (field.describe) return field.describe(rest, message)
    // One value of a repeatable flag: name the value, not its position.
    if (field.multiple && /^\d+$/.test(rest)) {
      const value = built.body ? getPath(built.body, path) : undefined
      return `--${field.flag} ${message}${typeof value === 'string' ? `, got "${value}"` : ''}`
    }
    return `--${field.flag}${rest ? ` ${rest}` : ''} ${message}`
  }
  if (path === '(body)') {
    // A field the contract does not know is most often a typo of one it does.
    const unknown = /^unknown field (\S+)$/.exec(message)?.[1]
    const meant = unknown === undefined ? undefined : closest(unknown, table.map((candidate) => candidate.path.split('.')[0]))
    return `--body ${message}${meant ? `; did you mean ${meant}?` : ''}`
  }
  if (built.fromBody.has(path) || !field) return `--body field ${path} ${message}`
  return `--${field.flag} ${message}`
}

/** Refuses a body that broke the contract: one line per problem, each naming its flag. */
export function refuse(table: FlagTable, issues: Issue[], built: Pick<Built, 'fromFlags' | 'fromBody'> & {body?: Record<string, unknown>}): never {
  const problems = issues.map((issue) => nameIssue(table, issue, built))
  throw new UsageError(problems.join('\n'), {messages: problems})
}
