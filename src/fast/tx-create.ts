// `tx create` on the fast path (one charge; a batch goes to oclif): its bundle's entry.
import '../cli/no-passwd.js'

import {runTxCreate, type TxCreateFlags} from '../tx/create.js'
import {runPlan} from './hot.js'
import type {Plan} from './plan.js'

export function run(plan: Plan, bin: string): Promise<void> {
  return runPlan(plan, bin, (flags, _args, ctx) => runTxCreate(flags as TxCreateFlags, ctx))
}
