import {ConfigError} from './errors.js'
import {isLiteralLoopback} from './proxy.js'
import {userinfoProblem, userinfoSpan, withoutUserinfo} from './redact.js'

/** The embedded sandbox's default address: where a fresh install points until `login --base-url`. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010'

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1') return true
  return /^127(\.\d{1,3}){3}$/.test(host)
}

/**
 * Parses and checks a gateway base URL: https anywhere, plain http only on loopback, so that client
 * secrets and tokens never cross a network in clear text. Answers the URL without a trailing slash.
 * Credentials are refused, and found before the URL is parsed, whatever their shape: no message
 * holds them. `flag` names where the URL came from (a flag, a variable, a profile).
 */
export function checkBaseUrl(input: string, flag = '--base-url'): string {
  const shown = (() => {
    const text = withoutUserinfo(input)
    return text.length > 200 ? `${text.slice(0, 200)}…` : text
  })()
  if (userinfoSpan(input)) {
    const problem = userinfoProblem(input)
    // One line, as every refusal of input is: the rule and the way out together.
    throw new ConfigError(
      `${flag} must not carry credentials${problem ? ` (and ${problem})` : ''}: "${shown}"; give the client id with --client-id and the secret on stdin or in GATEWAY_CLIENT_SECRET, never in the URL`,
    )
  }
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw new ConfigError(`${flag} must be an absolute http(s) URL written https://HOST[:PORT][/PATH], got "${shown}"`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`${flag} must use https, got "${url.protocol}"`)
  }
  // Only a loopback address, or the name localhost itself (resolved without DNS): a name under
  // .localhost is looked up like any other, and could lead anywhere.
  if (url.protocol === 'http:' && !isLiteralLoopback(url.hostname)) {
    throw new ConfigError(
      `${flag} must use https unless its host is loopback (127.0.0.1, ::1, localhost); refusing ${url.origin}`,
    )
  }
  if (url.username || url.password) throw new ConfigError(`${flag} must not carry credentials`)
  if (url.search || url.hash) throw new ConfigError(`${flag} must not carry a query or a fragment`)
  return url.href.replace(/\/+$/, '')
}

/** Where a base URL came from, for a message: the flag, the variable (when it holds that value), or the profile. */
export function baseUrlSource(explicit: string | undefined, env: NodeJS.ProcessEnv): string {
  if (explicit === undefined) return "the profile's base URL"
  return env.GATEWAY_BASE_URL !== undefined && env.GATEWAY_BASE_URL === explicit ? 'GATEWAY_BASE_URL' : '--base-url'
}

/**
 * Checks a path of an endpoint the reference does not place (the withdrawal's): absolute, without
 * a query, a fragment or dot segments, so it joins the base URL one way only.
 */
export function checkEndpointPath(input: string, source: string): string {
  const path = input.trim()
  if (!/^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/.test(path) || /(^|\/)\.\.?(\/|$)/.test(path)) {
    throw new ConfigError(`${source} must be an absolute path such as /core/withdraw (no query, fragment or dot segments), got "${input}"`)
  }
  return path.replace(/\/+$/, '') || '/'
}
