import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {checkBaseUrl} from '../../src/api/base-url.js'
import {ConfigError} from '../../src/api/errors.js'
import {chooseProxy} from '../../src/api/proxy.js'
import {environmentSecrets, scrub, spellings} from '../../src/api/redact.js'
import {runCommand} from '../helpers/context.js'

/**
 * A proxy's or a base URL's user name and password never reach a message, whatever the URL's shape
 * (unencoded `@ : % #`, spaces, any character): they are found before the URL is parsed. A URL that
 * cannot be read one way only is a usage error (exit 2) naming the variable or flag and the rule.
 */
const gateway = new URL('https://api.pix.example.com')

/** Characters that break URLs, and any others. */
const awkward = fc.constantFrom('@', ':', '%', '#', '/', '?', '\\', ' ', '"', "'", '%4', '%zz', '%FF', '\n', '\t', 'ç', '€', '😀', '[', ']', '{', '`', '=', '&', '+', '~')
const piece = fc.array(fc.oneof(awkward, fc.string({unit: 'grapheme-ascii', maxLength: 3}), fc.string({unit: 'binary', maxLength: 2})), {maxLength: 6}).map((parts) => parts.join(''))
/** A user name or password: random characters around a marker no message can hold by chance. */
const credential = (marker: string) => fc.tuple(piece, piece).map(([before, after]) => `${before}${marker}${after}`)

/** Every spelling of a secret a message might hold: as typed, percent-encoded (form and URL), JSON-escaped, base64. */
function assertNone(text: string, secrets: string[]): void {
  for (const secret of secrets) for (const spelling of spellings(secret)) expect(text, `holds ${JSON.stringify(spelling)}`).not.toContain(spelling)
}

const messageOf = (fn: () => unknown): string | undefined => {
  try {
    fn()
    return undefined
  } catch (error) {
    expect(error, String(error)).toBeInstanceOf(ConfigError)
    return `${(error as ConfigError).message}\n${(error as ConfigError).hint ?? ''}\n${JSON.stringify((error as ConfigError).toJSON())}`
  }
}

describe('URLs with credentials', () => {
  it('property: a proxy URL with any characters in its user and password, typed or percent-encoded, is read or refused (ConfigError), and no message holds them', () => {
    fc.assert(
      fc.property(credential('Qz7userK'), credential('Wx4passJ'), fc.boolean(), fc.constantFrom('http://', 'https://', ''), (user, password, encode, scheme) => {
        const written = encode ? `${encodeURIComponent(user)}:${encodeURIComponent(password)}` : `${user}:${password}`
        const value = `${scheme}${written}@127.0.0.1:3128`
        const env = {HTTPS_PROXY: value}
        const message = messageOf(() => chooseProxy(gateway, env))
        if (message === undefined) {
          const {proxy} = chooseProxy(gateway, env)
          assertNone(proxy!.shown, [user, password])
          // Read: the proxy's own credentials, exactly as typed once decoded. Typed unencoded, a `%`
          // followed by two hex digits is already an escape (`%00` is a NUL), as in any URL.
          expect(decodeURIComponent(proxy!.url.password)).toBe(encode ? password : decodeURIComponent(password))
          // (The variable's value is trimmed, as curl reads it: a typed user name loses its leading blanks.)
          expect(decodeURIComponent(proxy!.url.username)).toBe(encode ? user : decodeURIComponent(scheme ? user : user.trimStart()))
          // Whatever prints a message blanks every spelling of both, Basic's base64 included.
          const every = [user, password, `${user}:${password}`].flatMap(spellings).join(' | ')
          assertNone(scrub(every, environmentSecrets(env)), [user, password])
        } else {
          expect(message).toMatch(/^HTTPS_PROXY /)
          assertNone(message, [user, password])
        }
      }),
      {numRuns: 400},
    )
  })

  it('a `%` and two hex digits typed in a proxy URL is an escape, read as such (`%00` a NUL, `%40` an @), and never shown', () => {
    const {proxy} = chooseProxy(gateway, {HTTPS_PROXY: 'http://Qz7userK%00:Wx4pass%40J@127.0.0.1:3128'})
    expect(decodeURIComponent(proxy!.url.username)).toBe('Qz7userK\u0000')
    expect(decodeURIComponent(proxy!.url.password)).toBe('Wx4pass@J')
    assertNone(proxy!.shown, ['Qz7userK', 'Wx4pass'])
  })

  it('property: a base URL with credentials is refused (exit 2) without showing them, from the flag or GATEWAY_BASE_URL', () => {
    fc.assert(
      fc.property(credential('Qz7userK'), credential('Wx4passJ'), fc.boolean(), (user, password, encode) => {
        const written = encode ? `${encodeURIComponent(user)}:${encodeURIComponent(password)}` : `${user}:${password}`
        const value = `https://${written}@api.example.com/v1`
        const message = messageOf(() => checkBaseUrl(value))
        expect(message).toBeDefined()
        expect(message).toMatch(/^--base-url must not carry credentials/)
        assertNone(message!, [user, password])
      }),
      {numRuns: 300},
    )
  })

  it.each([
    ['an unencoded @ in the user and the password', 'http://ops@corp:p@ss:w%rd#1@127.0.0.1:3128', /holds an @/],
    ['a bare % in the password', 'http://ops:50%off@127.0.0.1:3128', /% that starts no percent-encoding/],
    ['\\% as a crontab line escapes it', 'http://ops:50\\%off@127.0.0.1:3128', /% that starts no percent-encoding|\\/],
    ['a # in the password', 'http://ops:n#1secret@127.0.0.1:3128', /holds a #/],
    ['a second : in the password', 'http://ops:pa:ss-word@127.0.0.1:3128', /holds a :/],
    ['a space in the password', 'http://ops:pass word1@127.0.0.1:3128', /space/],
    ['a percent-encoding that is not UTF-8', 'http://ops:pass%FFword@127.0.0.1:3128', /not UTF-8/],
  ])('%s: refused even where the last @ would parse, with the rule', (_, value, why) => {
    const message = messageOf(() => chooseProxy(gateway, {HTTPS_PROXY: value}))
    expect(message).toMatch(why)
    expect(message).toMatch(/percent-encode @ : % #/)
    expect(message).toContain('[REDACTED]@127.0.0.1:3128')
  })

  it('a proxy password written percent-encoded is read, and the proxy shown without it', () => {
    const {proxy} = chooseProxy(gateway, {HTTPS_PROXY: 'http://ops%40corp:p%40ss%3Aw%25rd%231@127.0.0.1:3128'})
    expect(proxy?.shown).toBe('http://[REDACTED]@127.0.0.1:3128')
    expect(decodeURIComponent(proxy!.url.username)).toBe('ops@corp')
    expect(decodeURIComponent(proxy!.url.password)).toBe('p@ss:w%rd#1')
  })

  it('the issue\'s proxy URL through a command: exit 2, naming HTTPS_PROXY and the rule, in --json too, the password nowhere', async () => {
    const env = {HTTPS_PROXY: 'http://ops@corp:p@ss:w%rd#1@127.0.0.1:3128', GATEWAY_CLIENT_ID: 'a', GATEWAY_CLIENT_SECRET: 'never-sent-secret'}
    for (const json of [false, true]) {
      const result = await runCommand(['tx', 'get', '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11', '--base-url', 'https://api.example.com', ...(json ? ['--json'] : [])], {env})
      expect(result.code, result.stderr).toBe(2)
      const text = result.stdout + result.stderr
      expect(text).toMatch(/HTTPS_PROXY/)
      expect(text).toMatch(/percent-encode @ : % #/)
      assertNone(text, ['p@ss:w%rd#1', 'ops@corp', 'w%rd#1'])
      expect(text).not.toMatch(/bug/i)
    }
  })

  it('a base URL from GATEWAY_BASE_URL is named so, and a malformed one is exit 2', async () => {
    const result = await runCommand(['tx', 'get', '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11'], {env: {GATEWAY_BASE_URL: 'https://ops:s3cr%t#pw@api.example.com', GATEWAY_CLIENT_ID: 'a', GATEWAY_CLIENT_SECRET: 'never-sent-secret'}})
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/GATEWAY_BASE_URL must not carry credentials/)
    assertNone(result.stderr, ['s3cr%t#pw'])
    const bad = await runCommand(['tx', 'get', '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11'], {env: {GATEWAY_BASE_URL: 'https://[api.example.com', GATEWAY_CLIENT_ID: 'a', GATEWAY_CLIENT_SECRET: 'never-sent-secret'}})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/GATEWAY_BASE_URL must be an absolute http\(s\) URL/)
  })
})
