import type {SandboxAction} from '../../api/gateway.js'
import {TransitionCommand, transitionAmountFlag} from '../../transition-command.js'

export default class SandboxInfraction extends TransitionCommand {
  static override summary = 'Open a MED infraction on a paid sandbox transaction.'

  static override description = 'Moves a PAID transaction through PROCESSING_INFRACTION to INFRACTION and fills infractionDate and infractionAmount. Sandbox only: no real gateway has this control.'

  static override examples = ['<%= config.bin %> <%= command.id %> 3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11']

  static override flags = {
    amount: transitionAmountFlag('Disputed amount in cents (default: all that was paid).'),
  }

  protected readonly action: SandboxAction = 'infraction'
}
