import {randomUUID, timingSafeEqual} from 'node:crypto'

import {SignJWT, jwtVerify} from 'jose'

import {HttpError, readText, sendJson} from './http.js'
import type {Route} from './router.js'
import type {SandboxState, TokenClaims} from './state.js'

const ISSUER = 'gateway-sandbox'

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/** POST /auth/token: OAuth 2.0 client credentials, form-encoded, answering a signed JWT. */
export function authRoutes(): Route[] {
  return [
    {
      method: 'POST',
      path: '/auth/token',
      auth: false,
      async handler({req, res, state}) {
        state.stats.tokenRequests += 1
        const type = String(req.headers['content-type'] ?? '')
        const text = await readText(req)
        if (!type.includes('application/x-www-form-urlencoded')) {
          throw new HttpError(400, 'the token request must be form-encoded (application/x-www-form-urlencoded)')
        }
        const form = new URLSearchParams(text)
        const problems: string[] = []
        const grantType = form.get('grant_type')
        if (!grantType) problems.push('grant_type is required')
        else if (grantType !== 'client_credentials') problems.push(`grant_type must be client_credentials, got "${grantType}"`)
        const clientId = form.get('client_id')
        const clientSecret = form.get('client_secret')
        if (!clientId) problems.push('client_id is required')
        if (!clientSecret) problems.push('client_secret is required')
        if (problems.length > 0) throw new HttpError(400, problems)
        if (state.failIdentityProvider) throw new HttpError(502, 'the authentication provider could not be reached')
        const client = state.clients.find((candidate) => candidate.clientId === clientId)
        if (!client || !sameSecret(client.clientSecret, clientSecret!)) throw new HttpError(401, 'invalid client credentials')
        const now = Math.floor(state.now() / 1000)
        const expiresIn = now + state.tokenTtlSec
        const accessToken = await new SignJWT({scope: client.scopes.join(','), azp: client.clientId})
          .setProtectedHeader({alg: 'HS256', typ: 'JWT'})
          .setIssuer(ISSUER)
          .setSubject(client.clientId)
          .setJti(randomUUID())
          .setIssuedAt(now)
          .setNotBefore(now)
          .setExpirationTime(expiresIn)
          .sign(state.signingKey)
        state.stats.tokensIssued += 1
        sendJson(res, 200, {
          access_token: accessToken,
          expires_in: expiresIn,
          refresh_expires_in: 0,
          token_type: 'Bearer',
          'not-before-policy': 0,
          scope: client.scopes.join(','),
          expires_in_sec: state.tokenTtlSec,
        })
      },
    },
  ]
}

/** Checks an Authorization header: 401 when missing, malformed, expired, forged or revoked. */
export async function verifyBearer(state: SandboxState, header: string | undefined): Promise<TokenClaims> {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '')
  if (!match) throw new HttpError(401, 'missing bearer token: send Authorization: Bearer <access_token>')
  try {
    const {payload} = await jwtVerify(match[1], state.signingKey, {
      issuer: ISSUER,
      algorithms: ['HS256'],
      currentDate: new Date(state.now()),
    })
    const clientId = String(payload.sub ?? '')
    if (!state.clients.some((client) => client.clientId === clientId)) throw new Error('unknown client')
    const scopes = String(payload.scope ?? '')
      .split(',')
      .filter(Boolean)
    return {clientId, scopes, expiresAt: Number(payload.exp) * 1000}
  } catch (error) {
    const expired = (error as {code?: string}).code === 'ERR_JWT_EXPIRED'
    throw new HttpError(401, expired ? 'the access token has expired' : 'invalid access token')
  }
}
