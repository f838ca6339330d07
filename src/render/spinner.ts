import type {Terminal} from './output.js'

/**
 * Runs `work` behind a spinner on stderr when a person is watching a terminal; silently otherwise.
 */
export async function withSpinner<T>(term: Terminal, text: string, work: () => Promise<T>): Promise<T> {
  if (!term.spinner) return work()
  const {default: ora} = await import('ora')
  const spinner = ora({text, stream: process.stderr, color: 'cyan'}).start()
  try {
    const result = await work()
    spinner.stop()
    return result
  } catch (error) {
    spinner.stop()
    throw error
  }
}
