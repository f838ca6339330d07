import {isIP} from 'node:net'

import {ConfigError} from './errors.js'
import {REDACTED, urlCredential, USERINFO_RULE, userinfoProblem, userinfoSecrets, withoutUserinfo} from './redact.js'

/**
 * Which proxy a request to the gateway goes through, read from the environment as curl reads it:
 * `https_proxy` then `HTTPS_PROXY` for an https gateway (and, when neither is set, `http_proxy`
 * then `HTTP_PROXY`, as undici's EnvHttpProxyAgent does), `http_proxy` then `HTTP_PROXY` for a
 * plain http one; the lower-case spelling wins. `no_proxy` (else `NO_PROXY`) names the hosts that
 * are reached directly. A loopback gateway is never reached through a proxy.
 */
export interface ProxyChoice {
  /** The proxy's URL, credentials included: handed to the dispatcher only. */
  url: URL
  /** The variable it came from (`HTTPS_PROXY`, `https_proxy`, ...). */
  variable: string
  /** The proxy as it may be shown: its origin, never its credentials. */
  shown: string
  /** The credentials in its URL (user name and password, as given and decoded): secrets, scrubbed everywhere. */
  secrets: string[]
}

export interface ProxyDecision {
  proxy?: ProxyChoice
  /** Why the gateway is reached directly, when it is. */
  direct?: string
}

/** Loopback as the CLI counts it: 127.0.0.0/8, ::1 and the name `localhost` itself (see base-url.ts). */
export function isLiteralLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host === '::1' || host === '0:0:0:0:0:0:0:1') return true
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) && host.split('.').every((part) => Number(part) <= 255)
}

/** The first variable of `names` that is set and not blank, with its value. */
function firstSet(env: NodeJS.ProcessEnv, names: string[]): [string, string] | undefined {
  for (const name of names) {
    const value = env[name]?.trim()
    if (value) return [name, value]
  }
  return undefined
}

/** Decides how the gateway at `target` is reached: directly, or through which proxy. */
export function chooseProxy(target: URL, env: NodeJS.ProcessEnv): ProxyDecision {
  if (isLiteralLoopback(target.hostname)) return {direct: 'the gateway is loopback'}
  const names = target.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] : ['http_proxy', 'HTTP_PROXY']
  const set = firstSet(env, names)
  if (!set) return {direct: 'no proxy variable is set'}
  const noProxy = firstSet(env, ['no_proxy', 'NO_PROXY'])
  if (noProxy && bypasses(target, noProxy[1])) return {direct: `${noProxy[0]} names its host`}
  return {proxy: parseProxy(set[1], set[0])}
}

/**
 * A proxy variable's value as a URL: `host:port` alone means http://, as curl reads it. Its user
 * name and password are found, and refused when they cannot be read one way only (an unencoded
 * `@ : % #`, a space), before the URL is parsed: no message ever holds them.
 */
export function parseProxy(value: string, variable: string): ProxyChoice {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`
  const problem = userinfoProblem(text)
  if (problem) {
    throw new ConfigError(`${variable} is not a proxy URL that reads one way only (${problem}): "${shownValue(value)}"`, {hint: `In ${variable}, ${USERINFO_RULE}.`})
  }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new ConfigError(`${variable} is not a proxy URL: "${shownValue(value)}"`, {hint: `Set ${variable} to http://HOST:PORT (or unset it); ${USERINFO_RULE}.`})
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${variable} names a ${url.protocol.slice(0, -1)} proxy (${url.protocol}//${url.host}): only http:// and https:// proxies are supported`, {
      hint: `Set ${variable} to an http:// or https:// proxy, or unset it.`,
    })
  }
  // A host name, an IPv4 address or a bracketed IPv6 one; nothing after the port but a slash.
  const host = url.hostname
  const named = /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i.test(host) || (host.startsWith('[') && isIP(host.slice(1, -1)) === 6)
  if (!named || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new ConfigError(`${variable} is not a proxy URL (a host and a port, such as http://proxy.example.com:3128): "${shownValue(value)}"`, {hint: `Set ${variable} to http://HOST:PORT (or unset it); ${USERINFO_RULE}.`})
  }
  const secrets = [...new Set([...[url.username, url.password].flatMap(urlCredential), ...userinfoSecrets(text)])]
  const shown = `${url.protocol}//${url.username || url.password ? `${REDACTED}@` : ''}${url.host}`
  return {url, variable, shown, secrets}
}

/** A proxy variable's value with any credentials blanked, cut to a sane length, for a message. */
function shownValue(value: string): string {
  const shown = withoutUserinfo(value)
  return shown.length > 200 ? `${shown.slice(0, 200)}…` : shown
}

/**
 * Whether `no_proxy` sends the target directly, as curl reads it: entries separated by commas (or
 * spaces); `*` alone for every host; a host name matches itself and every name under it (a leading
 * `.` or `*.` is dropped, so `.example.com` also matches example.com); an IP address matches itself,
 * and `address/bits` a range (CIDR); a `:port` after a name or an address restricts it to that port.
 * Case and a trailing dot do not matter.
 */
export function bypasses(target: URL, noProxy: string): boolean {
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '')
  const port = target.port || (target.protocol === 'https:' ? '443' : '80')
  for (const raw of noProxy.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase()
    if (!entry) continue
    if (entry === '*') return true
    let entryPort: string | undefined
    // [v6]:port, v6 alone, name:port, v4:port.
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry)
    if (bracketed) {
      entry = bracketed[1]
      entryPort = bracketed[2]
    } else if (!entry.includes('/') && (entry.match(/:/g)?.length ?? 0) === 1) {
      const colon = entry.lastIndexOf(':')
      if (/^\d+$/.test(entry.slice(colon + 1))) {
        entryPort = entry.slice(colon + 1)
        entry = entry.slice(0, colon)
      }
    }
    if (entryPort !== undefined && entryPort !== port) continue
    const slash = entry.indexOf('/')
    if (slash !== -1) {
      if (inRange(host, entry.slice(0, slash), Number(entry.slice(slash + 1)))) return true
      continue
    }
    if (isIP(entry)) {
      if (isIP(host) && sameAddress(host, entry)) return true
      continue
    }
    const name = entry.replace(/^\*?\./, '').replace(/\.$/, '')
    if (!name) continue
    if (host === name || host.endsWith(`.${name}`)) return true
  }
  return false
}

/** An address as 16 bytes (IPv4 as an IPv4-mapped IPv6 address), or undefined. */
function addressBytes(address: string): number[] | undefined {
  const kind = isIP(address)
  if (kind === 4) return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...address.split('.').map(Number)]
  if (kind !== 6) return undefined
  let text = address
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (v4) {
    const [a, b, c, d] = v4[1].split('.').map(Number)
    text = text.slice(0, -v4[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split('::')
  const parts = (value: string | undefined) => (value ? value.split(':').filter(Boolean) : [])
  const front = parts(head)
  const back = parts(tail)
  const groups = tail === undefined ? front : [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back]
  return groups.flatMap((group) => {
    const value = Number.parseInt(group, 16)
    return [value >> 8, value & 0xff]
  })
}

function sameAddress(a: string, b: string): boolean {
  const left = addressBytes(a)
  const right = addressBytes(b)
  return left !== undefined && right !== undefined && left.every((byte, index) => byte === right[index])
}

function inRange(host: string, network: string, bits: number): boolean {
  const address = addressBytes(host)
  const base = addressBytes(network)
  if (!address || !base || !Number.isInteger(bits) || bits < 0) return false
  // An IPv4 range counts its bits after the 96 of the mapping.
  const total = isIP(network) === 4 ? bits + 96 : bits
  if (total > 128) return false
  for (let bit = 0; bit < total; bit++) {
    const mask = 0x80 >> (bit % 8)
    if ((address[bit >> 3] & mask) !== (base[bit >> 3] & mask)) return false
  }
  return true
}
