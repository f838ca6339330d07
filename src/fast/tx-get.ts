// `tx get` on the fast path: its bundle's entry.
import '../cli/no-passwd.js'

import {prepareHttpParser} from '../api/http-parser.js'
import {globalFlags} from '../cli/flags.js'
import type {CommandLine} from '../cli/life-cycle.js'
import {UUID_PATTERN} from '../schemas/enums.js'
import {runTxGet, type TxGetFlags} from '../tx/get.js'
import {txGetArgs, txGetFlags} from '../tx/get-flags.js'
import {readFast, runFast, type FastCommand} from './hot.js'

/** As the oclif class declares it (src/commands/tx/get.ts, src/base-command.ts). */
export const command: FastCommand = {
  definition: {flags: txGetFlags, baseFlags: globalFlags, args: txGetArgs, enableJsonFlag: true},
  run: (flags, args, ctx) => runTxGet(flags as unknown as TxGetFlags, args as {id: string}, ctx),
}

export const read = (argv: readonly string[], helpFlags: readonly string[]) => readFast(command, argv, helpFlags)

export async function run(line: CommandLine, argv: readonly string[], bin: string): Promise<void> {
  // A lookup of an id it will send starts compiling undici's HTTP parser at once, on V8's
  // background threads (src/api/http-parser.ts); an id refused before sending (by the same pattern,
  // in runTxGet) starts nothing, so that its exit waits for no compile. The compile's next step
  // needs the main thread, which the lookup otherwise keeps busy until it sends (the config folder,
  // the token, undici): one turn of the event loop here lets V8 hand the compiling to its
  // background threads, where it ends while the lookup reads its files and loads undici.
  if (UUID_PATTERN.test(String(line.args.id))) {
    void prepareHttpParser()
    await new Promise((resolve) => setImmediate(resolve))
  }
  return runFast(command, line, argv, bin)
}
