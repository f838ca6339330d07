// The flag definitions every command shares (the global flags, --json, --fields, durations, a
// transaction's id), as oclif's parser reads them. They are taken from oclif's flags and args
// modules rather than its index, so that the fast path (src/fast) can bundle them, with oclif's
// parser, without the rest of oclif: both paths then read a command line with the same parser and
// the same objects.
import {string as argString} from '@oclif/core/args'
import {boolean, custom, string} from '@oclif/core/flags'

import {parseDuration} from '../input/duration.js'
import {MAX_TIMER_MS} from '../schemas/enums.js'
import {retryFlag} from './retry-flag.js'

/** oclif's flag builders, taken by name: a namespace import of a CommonJS module would copy the whole module when loaded. */
const Flags = {boolean, custom, string}

/** A duration flag: "500ms", "30s", "10m", "2h", or a bare number of seconds. Parsed to milliseconds. */
export const durationFlag = Flags.custom<number>({
  helpValue: '<duration>',
  async parse(input) {
    const ms = parseDuration(input)
    if (ms === undefined || ms <= 0) throw new Error(`expected a positive duration such as 500ms, 30s or 10m, got "${input}"`)
    // A timer cannot wait longer: Node would fire it at once.
    if (ms > MAX_TIMER_MS) throw new Error(`must be at most ${MAX_TIMER_MS} ms (about 24 days), got "${input}"`)
    return ms
  },
})

/** The ID argument of the commands that name one transaction. */
export const transactionIdArg = argString({description: 'Transaction id (a UUID).', required: true})

/** --json, saying what the one document on stdout holds for this command. */
export function jsonFlag(holds: string) {
  return Flags.boolean({description: `Print one JSON document on stdout: ${holds}. An error is {"error": {code, exitCode, message, ...}}.`, helpGroup: 'GLOBAL'})
}

/**
 * --fields: the fields of the record to print under --json (which it implies), comma-separated, in
 * that order. The names are checked offline against the record's fields: an unknown one exits 2,
 * naming the flag and the fields there are.
 */
export function fieldsFlag(record: string, names: readonly string[]) {
  const allowed = [...new Set(names)]
  return Flags.custom<string>({
    description: `Print only these fields of ${record} as one JSON document (implies --json), comma-separated, in this order; a field the record lacks is null. Fields: ${allowed.join(', ')}.`,
    helpValue: '<list>',
    async parse(input) {
      const picked = input.split(',').map((name) => name.trim())
      if (picked.some((name) => name === '')) throw new Error(`takes field names separated by commas, from ${allowed.join(', ')}; got "${input}"`)
      const unknown = picked.filter((name) => !allowed.includes(name))
      if (unknown.length > 0) {
        throw new Error(`does not know ${unknown.map((name) => `"${name}"`).join(', ')}: the fields are ${allowed.join(', ')}`)
      }
      return [...new Set(picked)].join(',')
    },
  })()
}

/** The global flags every command takes. */
export const globalFlags = {
  profile: Flags.string({
    description: 'Profile to use: its base URL, credentials and token cache.',
    env: 'GATEWAY_PROFILE',
    default: 'default',
    helpGroup: 'GLOBAL',
  }),
  'base-url': Flags.string({
    description: 'Gateway base URL (https, or http on loopback). Default: the profile\'s. `login` needs one of them: there is no default gateway.',
    env: 'GATEWAY_BASE_URL',
    helpGroup: 'GLOBAL',
  }),
  timeout: durationFlag({
    description: 'How long to wait for each answer from the gateway.',
    default: 30_000,
    defaultHelp: async () => '30s',
    helpGroup: 'GLOBAL',
  }),
  debug: Flags.boolean({
    description: 'Print each HTTP exchange to stderr, with secrets redacted.',
    helpGroup: 'GLOBAL',
  }),
  quiet: Flags.boolean({
    description: 'Nothing on stderr when the command succeeds (notes, summaries, progress); a failure still shows its error, after what was held back.',
    helpGroup: 'GLOBAL',
  }),
  ...retryFlag,
}
