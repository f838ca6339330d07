// `deposits list` on the fast path: its bundle's entry. An export (--all) walks thousands of pages
// in a process that never loaded oclif (its 2 MB bundle, and the code cache of every command).
import '../cli/no-passwd.js'

import {globalFlags} from '../cli/flags.js'
import type {CommandLine} from '../cli/life-cycle.js'
import {runDepositsList} from '../deposits/list.js'
import {depositsListFlags, type DepositsListFlags} from '../deposits/list-flags.js'
import {readFast, runFast, type FastCommand} from './hot.js'

/** As the oclif class declares it (src/commands/deposits/list.ts, src/base-command.ts). */
export const command: FastCommand = {
  definition: {flags: depositsListFlags, baseFlags: globalFlags, enableJsonFlag: true},
  run: (flags, _args, ctx) => runDepositsList(flags as DepositsListFlags, ctx),
}

export const read = (argv: readonly string[], helpFlags: readonly string[]) => readFast(command, argv, helpFlags)

export function run(line: CommandLine, argv: readonly string[], bin: string): Promise<void> {
  return runFast(command, line, argv, bin)
}
