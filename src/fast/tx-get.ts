// `tx get` on the fast path: its bundle's entry.
import './prepare-http.js'
import '../cli/no-passwd.js'

import {runTxGet, type TxGetFlags} from '../tx/get.js'
import {runPlan} from './hot.js'
import type {Plan} from './plan.js'

export function run(plan: Plan, bin: string): Promise<void> {
  return runPlan(plan, bin, (flags, args, ctx) => runTxGet(flags as unknown as TxGetFlags, args as {id: string}, ctx))
}
