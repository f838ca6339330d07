// The fast path's commands, and the build's check of each against its oclif class. The fast path
// (src/fast) reads a command line with oclif's own parser and the very flag definitions the class
// declares, and runs it through the life cycle the class runs (src/cli/life-cycle.ts): nothing of
// the line's meaning is written twice. What the check holds is what would make the two paths part:
// a fast entry whose definitions are not the class's, and what oclif does around its parser that
// the fast path does not (a deprecated command's warning, a preparse hook, a flag read from stdin
// while the line is read). The build fails, naming each.

/**
 * The commands the fast path runs, each from its entry (built into a bundle of its own), and the
 * flags it leaves to oclif when given (a batch: its own reader, prompts and summary). `carries` names the
 * packages a command's bundle holds itself instead of loading them from their vendor bundles: a
 * lookup always sends, so undici is part of its one file and its one code cache. A charge keeps
 * taking undici from its vendor bundle: refused before sending, as a bad flag is, it reads none of it.
 */
export const FAST_COMMANDS = [
  {id: 'tx:create', entry: 'src/fast/tx-create.ts', carries: []},
  {id: 'tx:get', entry: 'src/fast/tx-get.ts', carries: ['undici']},
  {id: 'deposits:list', entry: 'src/fast/deposits-list.ts', carries: []},
]

/** The file a fast command's bundle is built into, under dist/bundle. */
export const fastBundleName = (id) => `fast-${id.replaceAll(':', '-')}.cjs`

/** The file the fast bundles load a package from, under dist/bundle. */
export const vendorBundleName = (name) => `vendor-${name.replace('/', '-')}.cjs`

/**
 * What would make the fast entry of a command read or run a line otherwise than its oclif class
 * (`command`, as oclif loads it; `fast`, the entry's FastCommand; `hooks`, package.json's
 * oclif.hooks): an empty list when nothing does.
 */
export function fastCommandProblems(id, command, fast, hooks = {}) {
  const problems = []
  const {definition} = fast
  // The same definitions, by identity: the same objects, from the same module.
  if (definition.flags !== command.flags) problems.push('its fast entry does not read the flags its class declares')
  if (definition.baseFlags !== command.baseFlags) problems.push('its fast entry does not read the base flags its class declares')
  if ((definition.args ?? undefined) !== (command.args && Object.keys(command.args).length > 0 ? command.args : undefined)) problems.push('its fast entry does not read the arguments its class declares')
  if (Boolean(definition.enableJsonFlag) !== Boolean(command.enableJsonFlag)) problems.push('its fast entry and its class differ on --json')
  if ((definition.strict ?? true) !== (command.strict ?? true)) problems.push('its fast entry and its class differ on strict')
  if (command.state === 'deprecated' || command.deprecationOptions) problems.push('it is deprecated, which oclif says when it runs')
  if (hooks.preparse) problems.push('package.json has a preparse hook, which no command runs (src/cli/life-cycle.ts reads the line with the parser alone)')
  for (const [name, flag] of Object.entries({...command.baseFlags, ...command.flags})) {
    // oclif's parser reads such a flag's value from stdin while it reads the line: the fast path
    // would have taken it before handing a line to oclif.
    if (flag.allowStdin) problems.push(`--${name} may be read from stdin by the parser`)
  }
  for (const name of fast.declines ?? []) {
    const flag = command.flags?.[name] ?? command.baseFlags?.[name]
    if (!flag) problems.push(`it declines --${name}, which it does not have`)
    // A declined flag goes to oclif when it is given: it must have a value only when typed.
    else if (flag.default !== undefined || flag.env) problems.push(`it declines --${name}, which has a value even when not typed`)
  }
  return problems
}
