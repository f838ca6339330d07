import {distance} from 'fastest-levenshtein'

import {printable, UsageError} from './errors.js'

/** The flags no command takes on purpose, with what to do instead. */
const NOT_FLAGS: Record<string, string> = {
  'client-secret':
    'there is no --client-secret: a secret in a flag would show in `ps` and in shell history. Give it with --client-secret-stdin, GATEWAY_CLIENT_SECRET, or at the hidden prompt in a terminal',
}

/** The closest of the names to a mistyped one, when it is close enough to be what was meant. */
export function closest(word: string, names: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  for (const name of names) {
    const d = distance(word, name)
    if (d < bestDistance) {
      best = name
      bestDistance = d
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined
}

function firstLines(message: string): string[] {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !/^See more help with/.test(line) && !/^The following errors? occurred:?$/.test(line))
}

/**
 * oclif's parser errors, in the CLI's one style: `Error: <what> <rule>`, one line each, exit 2.
 * `flags` are the command's flag names, to suggest the one a typo meant.
 */
export function usageErrorFromParse(error: unknown, flags: readonly string[]): UsageError {
  const text = error instanceof Error ? error.message : String(error)
  // oclif puts a flag's rule, and a missing argument's description, on the next line: one line each.
  const joined = withValuesEscaped(text.replace(/^The following errors? occurred:\s*/, ''))
    .replace(/(Parsing --[\w-]+)\s*\n\s*/g, '$1 ')
    .replace(/(required args?:)\s*\n\s*/g, '$1 ')
  const lines = firstLines(joined)
  const rewritten = lines.flatMap((line) => rewrite(line, flags).split('\n'))
  const unique = [...new Set(rewritten.filter(Boolean))]
  return new UsageError(unique.join('\n'), {messages: unique, cause: error})
}

/**
 * oclif quotes a typed value in its message as it is: a value holding a line break (or any control
 * character) would split its problem over lines. oclif reports one such flag at a time, in one of
 * two shapes, whose value is escaped here before the message is cut into lines.
 */
function withValuesEscaped(message: string): string {
  return message
    .replace(/^(Expected --[\w-]+=)([\s\S]*?)( to be one of: )/, (_, head: string, value: string, tail: string) => `${head}${printable(value)}${tail}`)
    .replace(/^(Parsing --[\w-]+)[ \t]*\n[ \t]*([\s\S]*?)(\nSee more help with --help)?$/, (_, head: string, rule: string, tail = '') => `${head} ${printable(rule)}${tail}`)
}

function rewrite(line: string, flags: readonly string[]): string {
  let match: RegExpExecArray | null
  if ((match = /^Nonexistent flags?: (.+)$/.exec(line))) {
    return match[1]
      .split(/,\s*/)
      .map((given) => {
        const name = given.replace(/^-+/, '').split('=')[0]
        if (NOT_FLAGS[name]) return NOT_FLAGS[name]
        const near = closest(name, flags)
        return `${given} is not a flag of this command${near ? `; did you mean --${near}?` : ' (see --help)'}`
      })
      .join('\n')
  }
  if ((match = /^Missing required flags?:?\s*(.+)$/.exec(line))) return `--${match[1].replace(/^-+/, '')} is required`
  if ((match = /^Missing \d+ required args?:\s*(\S+)\s*(.*)$/.exec(line))) {
    return `${match[1].toUpperCase()} is required${match[2] ? `: ${match[2]}` : ''}`
  }
  if ((match = /^Parsing (--[\w-]+)\s*(.*)$/.exec(line))) {
    const [, flag, rest] = match
    const integer = /^Expected an integer but received: (.*)$/.exec(rest)
    if (integer) return `${flag} must be an integer, got "${integer[1]}"`
    const range = /^Expected an integer (less|greater) than or equal to (-?\d+) but received: (.*)$/.exec(rest)
    if (range) return `${flag} must be ${range[1] === 'less' ? 'at most' : 'at least'} ${range[2]}, got "${range[3]}"`
    return `${flag} ${rest.replace(/^expected /, 'must be ')}`.trim()
  }
  if ((match = /^(?:Expected )?(--[\w-]+)=(.*) to be one of: (.*)$/.exec(line))) return `${match[1]} must be one of ${match[3]}, got "${match[2]}"`
  if ((match = /^(--[\w-]+)=\S* cannot also be provided when using (--[\w-]+)$/.exec(line))) return `${match[1]} cannot be used with ${match[2]}`
  if ((match = /^All of the following must be provided when using (--[\w-]+): (.+)$/.exec(line))) return `${match[1]} needs ${match[2]}`
  if ((match = /^Unexpected arguments?: (.+)$/.exec(line))) return `unexpected argument ${match[1]} (see --help)`
  // The rule of a flag's own parser, after oclif's "Parsing --flag" line: keep it, lower-cased "expected".
  return line.replace(/^expected /, 'must be ')
}
