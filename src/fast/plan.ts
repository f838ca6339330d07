// The fast path's reading of a command line, from the table the build reads off the command
// classes (scripts/fast-table.mjs). It reads only what it reads exactly as oclif would, and answers
// undefined for anything else, which oclif then runs: help and version flags, short flags, `--`,
// a flag or command it does not know, a flag typed twice, a missing or doubtful value, a value
// outside a flag's options, a flag the table leaves to oclif, a variable of such a flag, a
// missing or extra argument. It has no error of its own: every refusal comes from oclif or from
// the command.

/** A flag as the table holds it. */
export interface FlagEntry {
  type: 'boolean' | 'option'
  multiple?: boolean
  options?: string[]
  env?: string
  default?: unknown
  required?: boolean
  /** Typed (or set by its variable), this flag goes to oclif. */
  oclif?: boolean
}

export interface ArgEntry {
  name: string
  required?: boolean
  default?: unknown
  options?: string[]
}

/** One command's table. */
export interface CommandTable {
  words: string[]
  /** The command's fast bundle, under dist/bundle. */
  bundle: string
  flags: Record<string, FlagEntry>
  args: ArgEntry[]
  json: boolean
}

export type FastTable = Record<string, CommandTable>

/** A command line the fast path runs: the command, its flags and arguments as oclif would hand them over, and the words after the command. */
export interface Plan {
  id: string
  bundle: string
  flags: Record<string, unknown>
  args: Record<string, unknown>
  argv: string[]
}

/** The command whose words start the line, and the rest. */
function commandOf(table: FastTable, argv: readonly string[]): [string, CommandTable] | undefined {
  for (const [id, command] of Object.entries(table)) {
    if (command.words.every((word, index) => argv[index] === word)) return [id, command]
  }
  return undefined
}

export function plan(table: FastTable, argv: readonly string[], env: NodeJS.ProcessEnv): Plan | undefined {
  const found = commandOf(table, argv)
  if (!found) return undefined
  const [id, command] = found
  // oclif's --json by environment (GATEWAY_CONTENT_TYPE=json).
  if (env.GATEWAY_CONTENT_TYPE !== undefined) return undefined
  const words = argv.slice(command.words.length)
  const flags: Record<string, unknown> = {}
  const typed = new Set<string>()
  const positional: string[] = []
  // oclif gives every word after a repeatable flag's value to that flag, until another flag takes a value.
  let lastOption: FlagEntry | undefined
  for (let index = 0; index < words.length; index++) {
    const word = words[index]
    if (word.startsWith('-') && word !== '-') {
      if (!word.startsWith('--') || word === '--') return undefined
      const equals = word.indexOf('=')
      const name = equals === -1 ? word.slice(2) : word.slice(2, equals)
      const flag = Object.hasOwn(command.flags, name) ? command.flags[name] : undefined
      if (!flag || flag.oclif) return undefined
      if (typed.has(name) && !flag.multiple) return undefined
      typed.add(name)
      if (flag.type === 'boolean') {
        if (equals !== -1) return undefined
        flags[name] = true
        continue
      }
      const value = equals === -1 ? words[++index] : word.slice(equals + 1)
      // A value oclif might take for a flag, or none at all.
      if (value === undefined || value === '' || (value.startsWith('-') && value !== '-')) return undefined
      if (flag.options && !flag.options.includes(value)) return undefined
      if (flag.multiple) (flags[name] as string[] | undefined) ? (flags[name] as string[]).push(value) : (flags[name] = [value])
      else flags[name] = value
      lastOption = flag
      continue
    }
    if (lastOption?.multiple) return undefined
    positional.push(word)
  }
  if (positional.length > command.args.length) return undefined
  const args: Record<string, unknown> = {}
  for (const [index, arg] of command.args.entries()) {
    const value = positional[index] ?? arg.default
    if (value === undefined) {
      if (arg.required) return undefined
      continue
    }
    if (arg.options && !arg.options.includes(String(value))) return undefined
    args[arg.name] = value
  }
  for (const [name, flag] of Object.entries(command.flags)) {
    if (typed.has(name)) continue
    // oclif reads a flag's variable when it is set and not empty.
    const fromEnv = flag.env ? env[flag.env] : undefined
    if (fromEnv) {
      if (flag.oclif || flag.type === 'boolean' || flag.multiple) return undefined
      if (flag.options && !flag.options.includes(fromEnv)) return undefined
      flags[name] = fromEnv
      continue
    }
    if (flag.required) return undefined
    if (flag.default !== undefined) flags[name] = flag.default
  }
  return {id, bundle: command.bundle, flags, args, argv: words}
}

/** Evaluates a bundle of dist/bundle by its file name, with the require it is to use. */
export type LoadBundle = (name: string, require: (id: string) => unknown) => Record<string, unknown>

/**
 * The require the fast bundles run with: a package they take from a vendor bundle (an id such as
 * `gateway-vendor:zod`, see scripts/build.mjs) from that bundle, which is evaluated when first
 * required, once; a module whose exports are bytes (a `.wasm` file) as the file's bytes, read
 * with `read`, as the module itself exports them; anything else (Node's built-ins) from
 * nodeRequire. `vendors` names each such id's file, as the build wrote them; a bundle offers the
 * package under the same id.
 */
export function fastRequire(
  vendors: Record<string, string>,
  load: LoadBundle,
  nodeRequire: (id: string) => unknown,
  read: (name: string) => Uint8Array,
): (id: string) => unknown {
  const loaded = new Map<string, Record<string, unknown>>()
  const require = (id: string): unknown => {
    const file = Object.hasOwn(vendors, id) ? vendors[id] : undefined
    if (file === undefined) return nodeRequire(id)
    if (!loaded.has(file)) loaded.set(file, file.endsWith('.wasm') ? {[id]: read(file)} : load(file, require))
    return loaded.get(file)![id]
  }
  return require
}
