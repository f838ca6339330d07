// The fast path's runner: a command run from a plan (src/fast/plan.ts) without loading oclif,
// through the same functions the oclif command calls (src/tx, src/cli/outcome.ts): the same
// context, globals, logic, --json document, failure report and exit code. Each command of the
// fast path has an entry of its own (src/fast/tx-*.ts), built into a bundle of its own with its
// own code cache (dist/bundle/fast-*.cjs, scripts/build.mjs), which holds only what it loads.

import {processContext} from '../cli/context.js'
import {commandGlobals, type GlobalFlags, guardStdout, printResult, reportFailure} from '../cli/outcome.js'
import type {CommandContext} from '../cli/context.js'
import type {Plan} from './plan.js'

/** A command's logic, from its parsed flags and arguments: what it answers is its --json document. */
export type Runner = (flags: Record<string, unknown>, args: Record<string, unknown>, ctx: CommandContext) => Promise<unknown>

/** Runs a planned command as this process, as the oclif command would (BaseCommand's init, run, catch and finally). */
export async function runPlan(plan: Plan, bin: string, runner: Runner): Promise<void> {
  const ctx = await processContext(bin)
  guardStdout(ctx)
  // As oclif's jsonEnabled: --json typed. The plan leaves to oclif the other ways to it (--fields,
  // which implies --json, a `--` before it, GATEWAY_CONTENT_TYPE).
  const json = plan.argv.includes('--json')
  let result: unknown
  try {
    ctx.globals = commandGlobals(plan.flags as GlobalFlags, plan.argv, ctx.env, json)
    result = await runner(plan.flags, plan.args, ctx)
  } catch (error) {
    await reportFailure(ctx, error as Error, json, (code) => {
      ctx.exitCode = code
      process.exitCode = code
    })
  }
  // The client is not closed: the process ends once this is written, and its connection with it.
  // undici lets an idle connection hold no process, and every request has been answered or has
  // failed by now. Closing it first took a lookup some 0.7 ms (the socket's and the parser's
  // teardown) before its answer was printed.
  if (result && json) printResult(ctx, result, undefined)
}
