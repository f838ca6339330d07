import {readFileSync} from 'node:fs'

import {closest} from './parse-errors.js'

/**
 * oclif's command_not_found hook: a command that does not exist (`gateway tx craete`) is never run,
 * nor is another run in its place, nor is anything asked, in a terminal or not. It ends the run
 * with oclif's "not found" (exit 127), which bin/run.js words with commandNotFound below.
 */
export async function notFoundHook(options: {id: string}): Promise<never> {
  throw Object.assign(new Error(`command ${options.id} not found`), {oclif: {exit: 127}})
}

/**
 * The one line for a command that does not exist (`gateway tx craete`) is a usage error: exit 2, one line, with the
 * closest command, or undefined for any other error.
 */
export function commandNotFound(error: unknown, argv: readonly string[], manifest: URL | {commands: Record<string, unknown>}, bin: string): string | undefined {
  const oclif = (error as {oclif?: {exit?: number}} | undefined)?.oclif
  if (!oclif || oclif.exit !== 127) return undefined
  let ids: string[] = []
  const globals = new Set<string>()
  try {
    // The manifest's file, or (the single executable) the manifest itself.
    const {commands} = manifest instanceof URL ? (JSON.parse(readFileSync(manifest, 'utf8')) as {commands: Record<string, unknown>}) : manifest
    ids = Object.keys(commands).map((id) => id.replaceAll(':', ' '))
    for (const command of Object.values(commands) as Array<{flags?: Record<string, {helpGroup?: string}>}>) {
      for (const [name, flag] of Object.entries(command.flags ?? {})) if (flag.helpGroup === 'GLOBAL') globals.add(`--${name}`)
    }
  } catch {
    // Without the manifest there is nothing to suggest from.
  }
  const words = argv.slice(0, argv.findIndex((word) => word.startsWith('-')) === -1 ? argv.length : argv.findIndex((word) => word.startsWith('-')))
  // Only global flags (--profile, --json, …) may come before the command's words.
  if (words.length === 0) {
    const flag = argv[0]?.split('=')[0]
    if (!flag || globals.has(flag)) return `no command given (${bin} --help lists them)`
    return `${flag} is not a flag every command takes: give the command first (${bin} COMMAND ${flag} …; ${bin} --help lists the commands)`
  }
  const typed = words.slice(0, 3).join(' ')
  const near = closest(typed, ids) ?? closest(words.slice(0, 2).join(' '), ids)
  return `${typed} is not a ${bin} command${near ? `; did you mean ${near}?` : ''} (${bin} --help lists them)`
}
