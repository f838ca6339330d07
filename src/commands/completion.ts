import {Args} from '@oclif/core'

import {BaseCommand} from '../base-command.js'
import type {CommandContext} from '../cli/context.js'
import type {CompletionCommand, CompletionTopic} from '../cli/completion.js'

/** `completion bash|zsh`: the shell's completion script, made from the commands' manifest. */
export async function completion(shell: string, commands: readonly CompletionCommand[], topics: readonly CompletionTopic[], ctx: CommandContext): Promise<void> {
  if (shell !== 'bash' && shell !== 'zsh') {
    const {printable, UsageError} = await import('../cli/errors.js')
    throw new UsageError(`SHELL must be bash or zsh, got "${printable(shell.slice(0, 80))}"`)
  }
  const {bashCompletion, zshCompletion} = await import('../cli/completion.js')
  // The script is the CLI's own text, written as is (a script, not lines for a person).
  ctx.io.stdout.write(shell === 'bash' ? bashCompletion(commands) : zshCompletion(commands, topics))
}

export default class Completion extends BaseCommand<typeof Completion> {
  static override summary = 'Print the bash or zsh completion script.'

  static override description = `Prints the shell completion script for gateway, made from its commands: commands and topics, every flag at any position after the command, and the values of flags that take a fixed set of them (--output, --status, --as...). The .deb installs the same scripts (/usr/share/bash-completion/completions/gateway and /usr/share/zsh/vendor-completions/_gateway); without it, load one from your shell's start-up file.`

  static override examples = [
    {description: 'bash, for this shell', command: 'source <(<%= config.bin %> <%= command.id %> bash)'},
    {description: 'bash, for every new shell', command: '<%= config.bin %> <%= command.id %> bash > ~/.local/share/bash-completion/completions/gateway'},
    {description: 'zsh: a folder on $fpath, then compinit', command: '<%= config.bin %> <%= command.id %> zsh > ~/.zfunc/_gateway'},
  ]

  static override args = {
    // Checked by the command, which names SHELL in its refusal (oclif's own check names no argument).
    shell: Args.string({description: 'The shell: bash or zsh.', required: true}),
  }

  /** Neither the gateway's flags nor --json: the script is the one output. */
  static override baseFlags = {} as (typeof BaseCommand)['baseFlags']

  static override enableJsonFlag = false

  async run(): Promise<void> {
    await completion(this.args.shell, this.config.commands, this.config.topics, this.ctx)
  }
}
