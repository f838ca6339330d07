import {describe, expect, it} from 'vitest'

import {checkBaseUrl} from '../../src/api/base-url.js'
import {ConfigError} from '../../src/api/errors.js'
import {bypasses, chooseProxy, isLiteralLoopback} from '../../src/api/proxy.js'
import {environmentSecrets, scrub} from '../../src/api/redact.js'
import {htmlSummary} from '../../src/api/tls.js'

const gateway = new URL('https://api.pix.example.com')

describe('the proxy for a gateway, read from the environment as curl reads it', () => {
  it('lower case wins, https first, then the http variables', () => {
    expect(chooseProxy(gateway, {https_proxy: 'http://lower:3128', HTTPS_PROXY: 'http://upper:3128'}).proxy?.variable).toBe('https_proxy')
    expect(chooseProxy(gateway, {HTTPS_PROXY: 'http://upper:3128', http_proxy: 'http://plain:3128'}).proxy?.variable).toBe('HTTPS_PROXY')
    expect(chooseProxy(gateway, {HTTP_PROXY: 'http://plain:3128', http_proxy: 'http://lower:8080'}).proxy?.url.host).toBe('lower:8080')
    expect(chooseProxy(gateway, {https_proxy: '  ', HTTPS_PROXY: 'proxy.internal:3128'}).proxy?.url.href).toBe('http://proxy.internal:3128/')
    expect(chooseProxy(gateway, {}).direct).toBe('no proxy variable is set')
  })

  it('never for a loopback gateway', () => {
    for (const url of ['https://127.0.0.1:8443', 'https://127.9.8.7', 'https://[::1]:4010', 'https://localhost:8443', 'http://localhost']) {
      expect(chooseProxy(new URL(url), {HTTPS_PROXY: 'http://proxy:3128', HTTP_PROXY: 'http://proxy:3128'})).toEqual({direct: 'the gateway is loopback'})
    }
  })

  it('shows the proxy without its credentials, and keeps them as secrets', () => {
    const {proxy} = chooseProxy(gateway, {HTTPS_PROXY: 'http://ops:p%40ss-w0rd@proxy.internal:3128'})
    expect(proxy?.shown).toBe('http://[REDACTED]@proxy.internal:3128')
    expect(proxy?.secrets).toEqual(expect.arrayContaining(['ops', 'p%40ss-w0rd', 'p@ss-w0rd']))
  })

  it('refuses a proxy it cannot use (exit 2 through ConfigError), without echoing credentials', () => {
    expect(() => chooseProxy(gateway, {HTTPS_PROXY: 'socks5://user:hunter22@proxy:1080'})).toThrow(ConfigError)
    expect(() => chooseProxy(gateway, {HTTPS_PROXY: 'socks5://user:hunter22@proxy:1080'})).toThrow(/only http:\/\/ and https:\/\/ proxies/)
    expect(() => chooseProxy(gateway, {HTTPS_PROXY: 'http://user:hunter22@[bad'})).toThrow(/^HTTPS_PROXY is not a proxy URL: "http:\/\/\[REDACTED\]@\[bad"$/)
  })

  it.each([
    ['*', 'https://anything.example', true],
    ['example.com', 'https://example.com', true],
    ['example.com', 'https://api.example.com', true],
    ['example.com', 'https://notexample.com', false],
    ['.example.com', 'https://example.com', true],
    ['.example.com', 'https://a.b.example.com', true],
    ['*.example.com', 'https://api.example.com', true],
    ['EXAMPLE.com.', 'https://Api.Example.COM', true],
    ['other.org, example.com', 'https://api.example.com', true],
    ['other.org example.com', 'https://api.example.com', true],
    ['api.example.com:8443', 'https://api.example.com:8443', true],
    ['api.example.com:8443', 'https://api.example.com', false],
    ['example.com:443', 'https://api.example.com', true],
    ['10.1.2.3', 'https://10.1.2.3:8443', true],
    ['10.1.2.3', 'https://10.1.2.4', false],
    ['10.0.0.0/8', 'https://10.200.3.4', true],
    ['10.0.0.0/8', 'https://11.0.0.1', false],
    ['192.168.1.0/24', 'https://192.168.1.77', true],
    ['[2001:db8::1]', 'https://[2001:db8::1]', true],
    ['2001:db8::/32', 'https://[2001:db8:5::1]', true],
    ['2001:db8::/32', 'https://[2001:db9::1]', false],
    ['', 'https://example.com', false],
  ])('NO_PROXY=%j for %s: %s', (list, url, expected) => {
    expect(bypasses(new URL(url), list)).toBe(expected)
  })

  it('no_proxy wins over NO_PROXY, and a bypassed gateway goes direct', () => {
    expect(chooseProxy(gateway, {HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'example.com'}).direct).toBe('NO_PROXY names its host')
    expect(chooseProxy(gateway, {HTTPS_PROXY: 'http://proxy:3128', no_proxy: 'other.org', NO_PROXY: 'example.com'}).proxy?.variable).toBe('HTTPS_PROXY')
  })
})

describe('loopback for plain http', () => {
  it('is literal loopback addresses and localhost itself', () => {
    for (const host of ['127.0.0.1', '127.255.0.9', '[::1]', 'localhost', 'LOCALHOST']) expect(isLiteralLoopback(host)).toBe(true)
    for (const host of ['gateway.localhost', 'localhost.example.com', '127.0.0.1.nip.io', '10.0.0.1', '128.0.0.1', '::2']) expect(isLiteralLoopback(host)).toBe(false)
  })

  it('refuses http to *.localhost (exit 2), as any other name', () => {
    expect(() => checkBaseUrl('http://gateway.localhost:4010')).toThrow(ConfigError)
    expect(checkBaseUrl('http://localhost:4010')).toBe('http://localhost:4010')
    expect(checkBaseUrl('https://gateway.localhost:4010')).toBe('https://gateway.localhost:4010')
  })
})

describe('secrets of the environment', () => {
  it('are the credentials of every proxy variable and the certificate passphrase', () => {
    const env = {HTTPS_PROXY: 'http://ops:s3cret%21pass@proxy:3128', all_proxy: 'socks5://other-user:second-pass@proxy:1080', GATEWAY_CERT_PASSPHRASE: 'p12-pass-phrase'}
    const secrets = environmentSecrets(env)
    expect(secrets).toEqual(expect.arrayContaining(['s3cret%21pass', 's3cret!pass', 'second-pass', 'p12-pass-phrase']))
    const text = `failed via http://ops:s3cret%21pass@proxy:3128 (Basic ${Buffer.from('ops:s3cret!pass').toString('base64')}) with p12-pass-phrase`
    const scrubbed = scrub(text, secrets)
    for (const secret of ['s3cret', 'p12-pass-phrase', Buffer.from('ops:s3cret!pass').toString('base64')]) expect(scrubbed).not.toContain(secret)
  })
})

describe('an HTML page in a few words', () => {
  it('is its title, else its first heading; anything else is not a page', () => {
    expect(htmlSummary('<html><head><title>502 Bad Gateway</title></head><body>…</body></html>')).toBe('an HTML page titled "502 Bad Gateway"')
    expect(htmlSummary('<!DOCTYPE html>\n<body><h1>Access &amp; denied</h1></body>')).toBe('an HTML page titled "Access & denied"')
    expect(htmlSummary('<html><style>p{}</style><body><p>Service\n  unavailable</p></body></html>')).toBe('an HTML page reading "Service unavailable"')
    expect(htmlSummary('{"message":"x"}')).toBeUndefined()
    expect(htmlSummary('plain text <title>no</title>')).toBeUndefined()
  })
})

describe('localhost without DNS', () => {
  it('answers 127.0.0.1 and ::1 for localhost itself, and asks the system for any other name', async () => {
    const {loopbackLookup} = await import('../../src/api/transport.js')
    const asked: string[] = []
    const lookup = loopbackLookup(((hostname: string, _options: unknown, callback: (error: Error | null, address: string, family: number) => void) => {
      asked.push(hostname)
      callback(null, '192.0.2.1', 4)
    }) as never)
    const answer = (hostname: string, options: {all?: boolean; family?: number}) =>
      new Promise<unknown[]>((resolve) => lookup(hostname, options, (...args: unknown[]) => resolve(args)))
    expect(await answer('localhost', {all: true})).toEqual([null, [{address: '127.0.0.1', family: 4}, {address: '::1', family: 6}]])
    expect(await answer('LOCALHOST', {})).toEqual([null, '127.0.0.1', 4])
    expect(await answer('localhost', {family: 6})).toEqual([null, '::1', 6])
    expect(asked).toEqual([])
    expect(await answer('gateway.localhost', {})).toEqual([null, '192.0.2.1', 4])
    expect(asked).toEqual(['gateway.localhost'])
  })
})
