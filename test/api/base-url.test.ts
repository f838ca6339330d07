import {describe, expect, it} from 'vitest'

import {checkBaseUrl} from '../../src/api/base-url.js'
import {ConfigError} from '../../src/api/errors.js'

describe('checkBaseUrl', () => {
  it.each(['https://api.example.com', 'http://127.0.0.1:4010', 'http://localhost:8080', 'http://[::1]:4010', 'http://127.1.2.3'])(
    'accepts %s',
    (url) => {
      expect(checkBaseUrl(url)).toBe(url)
    },
  )

  it('drops a trailing slash and keeps a path prefix', () => {
    expect(checkBaseUrl('https://api.example.com/v2/')).toBe('https://api.example.com/v2')
  })

  it.each([
    ['http://example.com', /https unless its host is loopback/],
    ['http://10.0.0.5:4010', /https unless its host is loopback/],
    ['ftp://example.com', /must use https/],
    ['example.com', /absolute http\(s\) URL/],
    ['https://user:pw@example.com', /credentials/],
  ])('refuses %s', (url, message) => {
    expect(() => checkBaseUrl(url)).toThrow(ConfigError)
    expect(() => checkBaseUrl(url)).toThrow(message)
  })
})
