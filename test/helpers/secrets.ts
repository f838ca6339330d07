import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {environmentSecrets} from '../../src/api/redact.js'

/** Commands whose purpose is to print a secret: `auth token` its token, `sandbox start` its test clients. */
const SHOWS_SECRETS = [/^auth token\b/, /^sandbox start\b/]

/**
 * Every command run by the suite is checked: its output never holds the client secret it was given
 * (environment or stdin), a proxy's credentials or a certificate's passphrase, nor an access token
 * of its profile folder, whatever the test asserts.
 */
export function assertNoSecretShown(
  argv: string[],
  given: {env: NodeJS.ProcessEnv; input?: string; configDir?: string},
  result: {stdout: string; stderr: string},
): void {
  if (SHOWS_SECRETS.some((pattern) => pattern.test(argv.join(' ')))) return
  const secrets = [
    given.env.GATEWAY_CLIENT_SECRET,
    argv.includes('--client-secret-stdin') ? given.input?.trim().split('\n')[0] : undefined,
    argv.includes('--cert-passphrase-stdin') ? given.input?.trim().split('\n').at(-1) : undefined,
    // A proxy's credentials and a certificate's passphrase.
    ...environmentSecrets(given.env),
  ]
  if (given.configDir) {
    try {
      const cache = JSON.parse(readFileSync(join(given.configDir, 'tokens.json'), 'utf8')) as Record<string, {accessToken?: string}>
      for (const token of Object.values(cache)) secrets.push(token.accessToken)
    } catch {
      // no token cache
    }
  }
  const text = `${result.stdout}\n${result.stderr}`
  for (const secret of secrets) {
    if (secret && secret.length >= 6 && text.includes(secret)) {
      throw new Error(`gateway ${argv.join(' ')} printed a secret (${secret.slice(0, 4)}…): ${text.slice(0, 300)}`)
    }
  }
}
