// The fast path's runner: a command run without loading oclif, from its own bundle (each command of
// the fast path has an entry, src/fast/tx-*.ts, built into dist/bundle/fast-*.cjs with its own code
// cache; src/fast/launch.ts loads it). It decides nothing of its own: the line is read by oclif's
// parser with the command's own flag definitions (the module its oclif class declares them from),
// and the command runs through the life cycle the oclif base command runs (src/cli/life-cycle.ts).
// What that parser refuses, and what needs more of oclif than its parser, goes to oclif.

import {readCommandLine, runCommand, type CommandDefinition, type CommandLine} from '../cli/life-cycle.js'
import type {CommandContext} from '../cli/context.js'

/** A command of the fast path: its definitions, as its oclif class declares them, and its logic. */
export interface FastCommand {
  definition: CommandDefinition
  /** Flags the fast path leaves to oclif when they are given (what they need, its bundle does not carry). */
  declines?: readonly string[]
  run(flags: Record<string, unknown>, args: Record<string, unknown>, ctx: CommandContext): Promise<unknown>
}

/**
 * The words after the command, read as oclif reads them, when the fast path runs them: undefined
 * for a line oclif takes, having done nothing. oclif's own machinery takes a help flag before any
 * `--` (as oclif's run looks for one before it finds the command), and the fast path leaves it `--`
 * and whatever follows, a line its parser refuses (oclif then refuses it, in the same words, with
 * its help at hand), and a declined flag.
 */
export async function readFast(command: FastCommand, argv: readonly string[], helpFlags: readonly string[]): Promise<CommandLine | undefined> {
  if (argv.some((word) => word === '--' || helpFlags.includes(word))) return undefined
  let line: CommandLine
  try {
    line = await readCommandLine(command.definition, argv)
  } catch {
    return undefined
  }
  if (command.declines?.some((name) => line.flags[name] !== undefined)) return undefined
  return line
}

/** Runs a line readFast read, as this process, through the one life cycle. */
export async function runFast(command: FastCommand, line: CommandLine, argv: readonly string[], bin: string): Promise<void> {
  await runCommand({definition: command.definition, argv, bin, line, run: command.run})
}
