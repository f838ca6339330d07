import type {IO} from '../cli/context.js'

/**
 * Runs `work` behind a spinner on stderr when a person is watching a terminal; silently otherwise.
 * The terminal is left as it is: ora's `discardStdin` would put stdin in raw mode for the spinner's
 * life, and Ctrl-C would then be a key, not the signal that ends a command while its request is out.
 */
export async function withSpinner<T>(io: IO, text: string, work: () => Promise<T>): Promise<T> {
  if (!io.spinner) return work()
  const {default: ora} = await import('ora')
  const spinner = ora({text, stream: io.stderr, color: 'cyan', isEnabled: true, discardStdin: false}).start()
  try {
    return await work()
  } finally {
    spinner.stop()
  }
}
