import type {SandboxAction} from '../../api/gateway.js'
import {TransitionCommand} from '../../transition-command.js'

export default class SandboxFail extends TransitionCommand {
  static override summary = 'Fail a sandbox transaction that is awaiting payment.'

  static override description = 'Moves a transaction awaiting payment to FAILED and sets its errorMessage. Sandbox only: no real gateway has this control.'

  static override examples = ['<%= config.bin %> <%= command.id %> 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11']

  protected readonly action: SandboxAction = 'fail'
}
