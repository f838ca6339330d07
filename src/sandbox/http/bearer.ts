import {randomUUID} from 'node:crypto'

import {SignJWT, jwtVerify} from 'jose'

import type {SandboxClient, SandboxState, TokenClaims} from '../state.js'
import {HttpError} from './reply.js'

const ISSUER = 'gateway-sandbox'

/** A signed HS256 JWT for the client, and its expiry (Unix seconds). */
export async function issueToken(state: SandboxState, client: SandboxClient): Promise<{accessToken: string; expiresIn: number}> {
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
  return {accessToken, expiresIn}
}

/** How many verified tokens are remembered, so that a busy client's token is checked once, not per request. */
const VERIFIED_LIMIT = 1000

/** Verified tokens by signing key: a new key (a revocation) starts an empty list. */
const verified = new WeakMap<Uint8Array, Map<string, TokenClaims>>()

/** Checks an Authorization header: 401 when missing, malformed, expired, forged or revoked. */
export async function verifyBearer(state: SandboxState, header: string | undefined): Promise<TokenClaims> {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '')
  if (!match) throw new HttpError(401, 'missing bearer token: send Authorization: Bearer <access_token>')
  let known = verified.get(state.signingKey)
  if (!known) {
    known = new Map()
    verified.set(state.signingKey, known)
  }
  const claims = known.get(match[1])
  // A remembered token is still checked for expiry, against the sandbox's clock.
  if (claims && claims.expiresAt > state.now()) return claims
  const checked = await verifyToken(state, match[1])
  if (known.size >= VERIFIED_LIMIT) known.delete(known.keys().next().value!)
  known.set(match[1], checked)
  return checked
}

async function verifyToken(state: SandboxState, token: string): Promise<TokenClaims> {
  try {
    const {payload} = await jwtVerify(token, state.signingKey, {
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
