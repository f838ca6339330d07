// `tx get` on the fast path: its bundle's entry.
import '../cli/no-passwd.js'

import {globalFlags} from '../cli/flags.js'
import type {CommandLine} from '../cli/life-cycle.js'
import {runTxGet, type TxGetFlags} from '../tx/get.js'
import {txGetArgs, txGetFlags} from '../tx/get-flags.js'
import {readFast, runFast, type FastCommand} from './hot.js'

/** As the oclif class declares it (src/commands/tx/get.ts, src/base-command.ts). */
export const command: FastCommand = {
  definition: {flags: txGetFlags, baseFlags: globalFlags, args: txGetArgs, enableJsonFlag: true},
  run: (flags, args, ctx) => runTxGet(flags as unknown as TxGetFlags, args as {id: string}, ctx),
}

export const read = (argv: readonly string[], helpFlags: readonly string[]) => readFast(command, argv, helpFlags)

export function run(line: CommandLine, argv: readonly string[], bin: string): Promise<void> {
  return runFast(command, line, argv, bin)
}
