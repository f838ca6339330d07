import type {IO} from '../cli/context.js'

/**
 * Runs `work` behind a spinner on stderr when a person is watching a terminal; silently otherwise.
 */
export async function withSpinner<T>(io: IO, text: string, work: () => Promise<T>): Promise<T> {
  if (!io.spinner) return work()
  const {default: ora} = await import('ora')
  const spinner = ora({text, stream: io.stderr, color: 'cyan', isEnabled: true}).start()
  try {
    return await work()
  } finally {
    spinner.stop()
  }
}
