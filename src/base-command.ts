import {Command, Interfaces} from '@oclif/core'

import {CommandContext} from './cli/context.js'
import {globalFlags} from './cli/flags.js'
import {jsonRequested, runCommand} from './cli/life-cycle.js'
import {printResult} from './cli/outcome.js'
import {contextStorage} from './cli/run.js'

export {checkProfileName, pickFields, requireTransactionId} from './cli/outcome.js'
export {durationFlag, fieldsFlag, globalFlags, jsonFlag, transactionIdArg} from './cli/flags.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/**
 * Every command's base: it declares the global flags and --json, and runs each command through
 * runCommand (src/cli/life-cycle.ts), the life cycle the fast path runs too: the line read by
 * oclif's parser, a context (IO, environment, clock, config folder, gateway), and the end of every
 * run: --json's single document, errors included, and the exit code. Subclasses only declare flags
 * and call their logic.
 */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true

  static override baseFlags: Interfaces.FlagInput = globalFlags

  protected flags!: BaseFlags<T>
  protected args!: BaseArgs<T>
  protected ctx!: CommandContext

  /**
   * The whole run, through the life cycle the fast path runs too (src/cli/life-cycle.ts): the
   * line read by oclif's parser with this class's definitions, the globals, the command's logic,
   * the failure report, the exit code and the --json document. oclif's own start (its init) comes first.
   */
  protected override async _run<R>(): Promise<R> {
    await this.init()
    this.parsed = true
    const result = await runCommand({
      definition: this.ctor as typeof BaseCommand,
      argv: this.argv,
      bin: this.config.bin,
      given: contextStorage.getStore(),
      parserContext: this,
      run: (flags, args, ctx) => {
        this.flags = flags as BaseFlags<T>
        this.args = args as BaseArgs<T>
        this.ctx = ctx
        return this.run()
      },
    })
    return result as R
  }

  /** --json, or --fields (which picks from the same document) where the command has it: the life cycle's rule. */
  public override jsonEnabled(): boolean {
    return jsonRequested(this.ctor as typeof BaseCommand, this.argv)
  }

  public override logJson(json: unknown): void {
    printResult(this.ctx, json, (this.flags as {fields?: string} | undefined)?.fields)
  }
}
