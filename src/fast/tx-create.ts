// `tx create` on the fast path (one charge; a batch goes to oclif): its bundle's entry.
import '../cli/no-passwd.js'

import {globalFlags} from '../cli/flags.js'
import type {CommandLine} from '../cli/life-cycle.js'
import {runTxCreate, type TxCreateFlags} from '../tx/create.js'
import {txCreateFlags} from '../tx/create-flags.js'
import {readFast, runFast, type FastCommand} from './hot.js'

/** As the oclif class declares it (src/commands/tx/create.ts, src/base-command.ts). */
export const command: FastCommand = {
  definition: {flags: txCreateFlags, baseFlags: globalFlags, enableJsonFlag: true},
  declines: ['batch'],
  run: (flags, _args, ctx) => runTxCreate(flags as TxCreateFlags, ctx),
}

export const read = (argv: readonly string[], helpFlags: readonly string[]) => readFast(command, argv, helpFlags)

export function run(line: CommandLine, argv: readonly string[], bin: string): Promise<void> {
  return runFast(command, line, argv, bin)
}
