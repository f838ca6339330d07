// `tx get` on the fast path: its bundle's entry.
import '../cli/no-passwd.js'

import {prepareHttpParser} from '../api/http-parser.js'
import {UUID_PATTERN} from '../schemas/enums.js'
import {runTxGet, type TxGetFlags} from '../tx/get.js'
import {runPlan} from './hot.js'
import type {Plan} from './plan.js'

export async function run(plan: Plan, bin: string): Promise<void> {
  // A lookup of an id it will send starts compiling undici's HTTP parser at once, on V8's
  // background threads (src/api/http-parser.ts); an id refused before sending (by the same pattern,
  // in runTxGet) starts nothing, so that its exit waits for no compile. The compile's next step
  // needs the main thread, which the lookup otherwise keeps busy until it sends (the config folder,
  // the token, undici): one turn of the event loop here lets V8 hand the compiling to its
  // background threads, where it ends while the lookup reads its files and loads undici.
  if (UUID_PATTERN.test(String(plan.args.id))) {
    void prepareHttpParser()
    await new Promise((resolve) => setImmediate(resolve))
  }
  return runPlan(plan, bin, (flags, args, ctx) => runTxGet(flags as unknown as TxGetFlags, args as {id: string}, ctx))
}
