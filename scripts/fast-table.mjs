// The fast path's table of the command line, read at build time from the command classes
// themselves (their flags and arguments as oclif parses them), never written by hand. The fast
// path (src/fast/plan.ts) runs a command only when every word typed is one it reads the way oclif
// would; anything else (help, short flags, `--`, a repeated flag, a value outside a flag's options,
// a flag whose value oclif parses with code of its own, a flag this table declines) goes to oclif.
// The build fails on a flag or argument whose reading the table cannot hold.
import {Args, Flags} from '@oclif/core'

/**
 * The commands the fast path runs, each from its entry (built into a bundle of its own), and the
 * flags it leaves to oclif (a batch: its own reader, prompts and summary). `carries` names the
 * packages a command's bundle holds itself instead of loading them from their vendor bundles: a
 * lookup always sends, so undici is part of its one file and its one code cache. A charge keeps
 * taking undici from its vendor bundle: refused before sending, as a bad flag is, it reads none of it.
 */
export const FAST_COMMANDS = [
  {id: 'tx:create', entry: 'src/fast/tx-create.ts', declines: ['batch'], carries: []},
  {id: 'tx:get', entry: 'src/fast/tx-get.ts', declines: [], carries: ['undici']},
]

/** The file a fast command's bundle is built into, under dist/bundle. */
export const fastBundleName = (id) => `fast-${id.replaceAll(':', '-')}.cjs`

/** The file the fast bundles load a package from, under dist/bundle (bin/run.js words it the same). */
export const vendorBundleName = (name) => `vendor-${name.replace('/', '-')}.cjs`

/** Properties that only describe a flag in help and completion: they do not change a reading. */
const DESCRIBING = new Set(['name', 'description', 'summary', 'helpGroup', 'helpValue', 'defaultHelp', 'hidden', 'input', 'noCacheDefault', 'helpLabel'])
/** Properties that make oclif run checks or code of its own when the flag is typed: the fast path then declines it. */
const CHECKED_WHEN_TYPED = new Set(['dependsOn', 'exclusive', 'relationships', 'allowStdin', 'delimiter', 'deprecated', 'aliases', 'charAliases', 'deprecateAliases', 'min', 'max'])
/** Properties the table reads. */
const READ = new Set(['type', 'parse', 'default', 'env', 'options', 'multiple', 'multipleNonGreedy', 'allowNo', 'char', 'required', 'exactlyOne'])

/** The source of oclif's own reading of a value, for a flag or argument that keeps the text as typed. */
const IDENTITY = new Set([String(Flags.string().parse), String(Flags.boolean().parse), String(Args.string().parse)])

/** A value the table can carry as JSON, unchanged. */
function plainValue(value) {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value) || (Array.isArray(value) && value.every((item) => typeof item === 'string'))
}

/** One flag's reading, or a list of what the table cannot hold. */
function readFlag(name, flag, declined) {
  const problems = []
  for (const key of Object.keys(flag)) {
    if (!DESCRIBING.has(key) && !CHECKED_WHEN_TYPED.has(key) && !READ.has(key)) problems.push(`--${name} has "${key}", which the fast path's table does not know`)
  }
  if (flag.type !== 'boolean' && flag.type !== 'option') problems.push(`--${name} is of type "${flag.type}"`)
  if (typeof flag.default === 'function') problems.push(`--${name} computes its default when run`)
  else if (flag.default !== undefined && !plainValue(flag.default)) problems.push(`--${name} has a default that is not plain JSON`)
  if (flag.default !== undefined && ['dependsOn', 'exclusive', 'relationships'].some((key) => flag[key] !== undefined)) {
    problems.push(`--${name} has both a default and a relationship with other flags, which oclif checks even when it is not typed`)
  }
  if (flag.exactlyOne !== undefined) problems.push(`--${name} is one of flags of which exactly one is needed, which oclif checks even when none is typed`)
  if (flag.options !== undefined && !plainValue(flag.options)) problems.push(`--${name} has options that are not a list of words`)
  if (problems.length > 0) return {problems}
  const custom = typeof flag.parse === 'function' && !IDENTITY.has(String(flag.parse))
  const checked = [...CHECKED_WHEN_TYPED].some((key) => flag[key] !== undefined && flag[key] !== false)
  const entry = {type: flag.type}
  if (flag.multiple) entry.multiple = true
  if (flag.options) entry.options = [...flag.options]
  if (flag.env) entry.env = flag.env
  if (flag.default !== undefined) entry.default = flag.default
  if (flag.required) entry.required = true
  // Typed, this flag goes to oclif: its value is read by code of the command's, or oclif checks
  // more than the words, or the fast path leaves it to oclif by choice.
  if (custom || checked || flag.allowNo || declined) entry.oclif = true
  return {entry}
}

/** One argument's reading, or what the table cannot hold. */
function readArg(name, arg) {
  const problems = []
  if (typeof arg.default === 'function') problems.push(`argument ${name} computes its default when run`)
  if (arg.multiple) problems.push(`argument ${name} takes many values`)
  if (typeof arg.parse === 'function' && !IDENTITY.has(String(arg.parse))) problems.push(`argument ${name} is read by code of its own`)
  if (problems.length > 0) return {problems}
  const entry = {name}
  if (arg.required) entry.required = true
  if (arg.default !== undefined) entry.default = arg.default
  if (arg.options) entry.options = [...arg.options]
  return {entry}
}

/**
 * The table of one command, from its class: every flag oclif would read (its own JSON flag, the
 * base flags, the command's), its arguments, and whether it takes a --fields that implies --json.
 * Throws, naming each, when a flag or argument cannot be held.
 */
export function commandTable(id, command, declines = []) {
  const problems = []
  if (command.strict === false) problems.push('it takes words oclif does not check (strict is off)')
  if (command.state === 'deprecated' || command.deprecationOptions) problems.push('it is deprecated, which oclif says when it runs')
  const json = command.enableJsonFlag ? {json: Flags.boolean()} : {}
  const all = {...json, ...command.baseFlags, ...command.flags}
  for (const name of declines) if (!all[name]) problems.push(`it declines --${name}, which it does not have`)
  const flags = {}
  for (const [name, flag] of Object.entries(all)) {
    const read = readFlag(name, flag, declines.includes(name))
    if (read.problems) problems.push(...read.problems)
    else flags[name] = read.entry
  }
  const args = []
  for (const [name, arg] of Object.entries(command.args ?? {})) {
    const read = readArg(name, arg)
    if (read.problems) problems.push(...read.problems)
    else args.push(read.entry)
  }
  if (problems.length > 0) throw new Error(`the fast path cannot read \`${id.replaceAll(':', ' ')}\`: ${problems.join('; ')}`)
  return {words: id.split(':'), bundle: fastBundleName(id), flags, args, json: Boolean(command.enableJsonFlag)}
}
