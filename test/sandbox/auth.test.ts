import {SignJWT} from 'jose'
import * as oauth from 'oauth4webapi'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {control, startTestSandbox, tokenFor, type Sandbox} from '../helpers/sandbox.js'

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
const FORM = {'content-type': 'application/x-www-form-urlencoded'}
const good = {grant_type: 'client_credentials', client_id: 'sandbox', client_secret: 'sandbox-secret'}

describe('POST /auth/token', () => {
  let sandbox: Sandbox
  const post = (body: string, headers: Record<string, string> = FORM) => fetch(`${sandbox.baseUrl}/auth/token`, {method: 'POST', headers, body})

  beforeAll(async () => {
    sandbox = await startTestSandbox({tokenTtlSec: 600})
  })
  afterAll(() => sandbox.close())

  it('answers every documented field, expires_in as a Unix timestamp, scope comma-separated', async () => {
    const before = Math.floor(Date.now() / 1000)
    const response = await post(form(good))
    expect(response.status).toBe(200)
    const body = (await response.json()) as Record<string, unknown>
    expect(Object.keys(body).sort()).toEqual(
      ['access_token', 'expires_in', 'expires_in_sec', 'not-before-policy', 'refresh_expires_in', 'scope', 'token_type'].sort(),
    )
    expect(body.token_type).toBe('Bearer')
    expect(body.expires_in_sec).toBe(600)
    expect(body.expires_in).toBeGreaterThanOrEqual(before + 600)
    expect(body.expires_in).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 600)
    expect(String(body.scope).split(',')).toEqual(['transaction', 'deposit', 'withdraw', 'resend_dispatcher'])
    const [header, payload] = String(body.access_token).split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()))
    expect(header).toMatchObject({alg: 'HS256', typ: 'JWT'})
    expect(payload).toMatchObject({sub: 'sandbox', iss: 'gateway-sandbox', exp: body.expires_in})
  })

  it('gives sandbox-limited every scope but resend_dispatcher', async () => {
    const body = (await (await post(form({...good, client_id: 'sandbox-limited'}))).json()) as {scope: string}
    expect(body.scope.split(',')).not.toContain('resend_dispatcher')
    expect(body.scope.split(',')).toContain('transaction')
  })

  it.each([
    ['a missing client_secret', form({grant_type: 'client_credentials', client_id: 'sandbox'}), FORM, 'client_secret is required'],
    ['a missing client_id', form({grant_type: 'client_credentials', client_secret: 'x'}), FORM, 'client_id is required'],
    ['a missing grant_type', form({client_id: 'sandbox', client_secret: 'sandbox-secret'}), FORM, 'grant_type is required'],
    ['another grant_type', form({...good, grant_type: 'password'}), FORM, 'grant_type must be client_credentials'],
    ['a JSON body', JSON.stringify(good), {'content-type': 'application/json'}, 'must be form-encoded'],
  ])('answers 400 for %s', async (_, body, headers, message) => {
    const response = await post(body, headers)
    expect(response.status).toBe(400)
    const error = (await response.json()) as {statusCode: number; error: string; message: string | string[]}
    expect(error).toMatchObject({statusCode: 400, error: 'Bad Request'})
    expect([error.message].flat().join(' ')).toContain(message)
  })

  it.each([
    ['a wrong secret', {...good, client_secret: 'nope'}],
    ['an unknown client', {...good, client_id: 'stranger'}],
  ])('answers 401 for %s', async (_, fields) => {
    const response = await post(form(fields))
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({statusCode: 401, error: 'Unauthorized', message: 'invalid client credentials'})
  })

  it('answers 502 while the identity provider is told to fail', async () => {
    await control(sandbox.baseUrl, '/_sandbox/auth/idp', {fail: true})
    try {
      expect((await post(form(good))).status).toBe(502)
    } finally {
      await control(sandbox.baseUrl, '/_sandbox/auth/idp', {fail: false})
    }
    expect((await post(form(good))).status).toBe(200)
  })
})

describe('the bearer on every other route', () => {
  let sandbox: Sandbox
  /** The sandbox's clock, which the test moves past a token's expiry. */
  let clock = Date.now()
  const lookup = (authorization?: string) =>
    fetch(`${sandbox.baseUrl}/core/transaction/00000000-0000-4000-8000-000000000000`, {headers: authorization ? {authorization} : {}})
  const message = async (response: Response) => ((await response.json()) as {message: string}).message

  beforeAll(async () => {
    sandbox = await startTestSandbox({tokenTtlSec: 60, now: () => clock})
  })
  afterAll(() => sandbox.close())

  it('accepts a valid token', async () => {
    expect((await lookup(`Bearer ${await tokenFor(sandbox.baseUrl)}`)).status).toBe(404)
  })

  it('answers 401 without a token, or with another scheme', async () => {
    const missing = await lookup()
    expect(missing.status).toBe(401)
    expect(await message(missing)).toContain('missing bearer token')
    expect((await lookup('Basic c2FuZGJveDpzYW5kYm94LXNlY3JldA==')).status).toBe(401)
  })

  it('answers 401 for a forged token', async () => {
    const forged = await new SignJWT({scope: 'transaction'})
      .setProtectedHeader({alg: 'HS256'})
      .setIssuer('gateway-sandbox')
      .setSubject('sandbox')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('a key the sandbox never made, 32 bytes long'))
    const response = await lookup(`Bearer ${forged}`)
    expect(response.status).toBe(401)
    expect(await message(response)).toBe('invalid access token')
  })

  it('answers 401 for an expired token', async () => {
    const token = await tokenFor(sandbox.baseUrl)
    clock += 59_000
    expect((await lookup(`Bearer ${token}`)).status).toBe(404)
    clock += 1000
    const response = await lookup(`Bearer ${token}`)
    expect(response.status).toBe(401)
    expect(await message(response)).toBe('the access token has expired')
  })

  it('answers 401 for every token issued before a revocation, one already used too', async () => {
    const token = await tokenFor(sandbox.baseUrl)
    expect((await lookup(`Bearer ${token}`)).status).toBe(404)
    await control(sandbox.baseUrl, '/_sandbox/auth/revoke')
    expect((await lookup(`Bearer ${token}`)).status).toBe(401)
    expect((await lookup(`Bearer ${await tokenFor(sandbox.baseUrl)}`)).status).toBe(404)
  })
})

describe('HTTP Basic client authentication at the token endpoint (RFC 6749 §2.3.1)', () => {
  let sandbox: Sandbox
  const basic = (id: string, secret: string) =>
    `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`
  const post = (body: string, authorization?: string) =>
    fetch(`${sandbox.baseUrl}/auth/token`, {method: 'POST', headers: {...FORM, ...(authorization ? {authorization} : {})}, body})

  beforeAll(async () => {
    sandbox = await startTestSandbox({
      clients: [
        {clientId: 'sandbox', clientSecret: 'sandbox-secret', scopes: ['transaction']},
        {clientId: 'odd client', clientSecret: 'p@ss:w+rd é', scopes: ['deposit']},
      ],
    })
  })
  afterAll(() => sandbox.close())

  it('issues a token to credentials in an Authorization: Basic header', async () => {
    const response = await post(form({grant_type: 'client_credentials'}), basic('sandbox', 'sandbox-secret'))
    expect(response.status).toBe(200)
    expect(((await response.json()) as {scope: string}).scope).toBe('transaction')
  })

  it('form-decodes both sides, so ids and secrets with reserved characters work', async () => {
    const response = await post(form({grant_type: 'client_credentials'}), basic('odd client', 'p@ss:w+rd é'))
    expect(response.status).toBe(200)
  })

  it('answers 401 with a Basic challenge to wrong Basic credentials', async () => {
    const response = await post(form({grant_type: 'client_credentials'}), basic('sandbox', 'wrong'))
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="gateway-sandbox"')
    const viaForm = await post(form({...good, client_secret: 'wrong'}))
    expect(viaForm.status).toBe(401)
    expect(viaForm.headers.get('www-authenticate')).toBeNull()
  })

  it.each([
    ['a secret in the form too', {...good}, 'authenticate with HTTP Basic or with client_secret in the form, not both'],
    ['another client_id in the form', {grant_type: 'client_credentials', client_id: 'other'}, 'client_id in the form differs from the HTTP Basic one'],
  ])('answers 400 to Basic credentials with %s', async (_what, fields, message) => {
    const response = await post(form(fields), basic('sandbox', 'sandbox-secret'))
    expect(response.status).toBe(400)
    expect(((await response.json()) as {message: string[]}).message).toContain(message)
  })

  it('accepts the same client_id in the form beside Basic credentials', async () => {
    expect((await post(form({grant_type: 'client_credentials', client_id: 'sandbox'}), basic('sandbox', 'sandbox-secret'))).status).toBe(200)
  })

  it('answers 400 to Basic credentials without a colon', async () => {
    const response = await post(form({grant_type: 'client_credentials'}), `Basic ${Buffer.from('sandbox').toString('base64')}`)
    expect(response.status).toBe(400)
  })

  it.each([
    ['client_secret_basic', (secret: string) => oauth.ClientSecretBasic(secret)],
    ['client_secret_post', (secret: string) => oauth.ClientSecretPost(secret)],
  ])('gives a standard OAuth client (oauth4webapi) a token with %s', async (_method, auth) => {
    const server: oauth.AuthorizationServer = {issuer: sandbox.baseUrl, token_endpoint: `${sandbox.baseUrl}/auth/token`}
    const client: oauth.Client = {client_id: 'sandbox'}
    const options = {[oauth.allowInsecureRequests]: true}
    const response = await oauth.clientCredentialsGrantRequest(server, client, auth('sandbox-secret'), new URLSearchParams(), options)
    const tokens = await oauth.processClientCredentialsResponse(server, client, response)
    expect(tokens.token_type).toBe('bearer')
    const lookup = await fetch(`${sandbox.baseUrl}/core/transaction/00000000-0000-4000-8000-000000000000`, {
      headers: {authorization: `Bearer ${tokens.access_token}`},
    })
    expect(lookup.status).toBe(404)
    const refused = await oauth.clientCredentialsGrantRequest(server, client, auth('wrong-secret'), new URLSearchParams(), options)
    await expect(oauth.processClientCredentialsResponse(server, client, refused)).rejects.toThrow()
  })
})
