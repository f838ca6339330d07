// `tx get` on the fast path: its bundle's entry.
import './prepare-http.js'
import '../cli/no-passwd.js'

import {runTxGet, type TxGetFlags} from '../tx/get.js'
import {runPlan} from './hot.js'
import type {Plan} from './plan.js'

export async function run(plan: Plan, bin: string): Promise<void> {
  // The parser began compiling as this bundle was evaluated (prepare-http.ts), and V8 has read it
  // by now on a background thread. Its next step needs the main thread, which the lookup otherwise
  // keeps busy until it sends (the config folder, the token, undici): one turn of the event loop
  // here lets V8 hand the compiling to its background threads, where it ends while the lookup
  // reads its files and loads undici.
  await new Promise((resolve) => setImmediate(resolve))
  return runPlan(plan, bin, (flags, args, ctx) => runTxGet(flags as unknown as TxGetFlags, args as {id: string}, ctx))
}
