import {describe, expect, it} from 'vitest'

import {needsRenewal, parseTokenResponse, type StoredToken} from '../../src/api/token.js'

const issuedFor = {clientId: 'c', baseUrl: 'https://api.example.com'}
const now = Date.UTC(2026, 10, 21, 12, 0, 0)

describe('parseTokenResponse', () => {
  it('reads expires_in as a Unix timestamp in seconds and scope as a comma list', () => {
    const token = parseTokenResponse(
      {access_token: 'a.b.c', expires_in: now / 1000 + 3600, expires_in_sec: 3600, scope: 'transaction,resend_dispatcher'},
      issuedFor,
      now,
    )
    expect(token.expiresAt).toBe(now + 3_600_000)
    expect(token.lifetimeSec).toBe(3600)
    expect(token.scopes).toEqual(['transaction', 'resend_dispatcher'])
  })

  it('reads an expires_in below 10^9 as seconds from now', () => {
    const token = parseTokenResponse({access_token: 'x', expires_in: 300}, issuedFor, now)
    expect(token.expiresAt).toBe(now + 300_000)
    expect(token.lifetimeSec).toBe(300)
  })

  it('refuses an answer without access_token', () => {
    expect(() => parseTokenResponse({expires_in: 300}, issuedFor, now)).toThrow(/access_token/)
  })
})

describe('needsRenewal', () => {
  const token = (lifetimeSec: number, leftMs: number): StoredToken => ({
    accessToken: 'x',
    expiresAt: now + leftMs,
    lifetimeSec,
    scopes: [],
    obtainedAt: now,
    ...issuedFor,
  })

  it.each([
    [3600, 400_000, false],
    [3600, 350_000, true], // under 10% of an hour
    [62, 61_000, false],
    [62, 59_000, true], // under 60 s
    [3600, -1, true],
  ])('lifetime %ss with %sms left: renew = %s', (lifetime, left, expected) => {
    expect(needsRenewal(token(lifetime, left), now)).toBe(expected)
  })
})
