import {timingSafeEqual} from 'node:crypto'

import {issueToken} from '../http/bearer.js'
import {readText} from '../http/body.js'
import {HttpError, json} from '../http/reply.js'
import type {Route} from '../http/router.js'

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/** POST /auth/token: OAuth 2.0 client credentials, form-encoded, answering a signed JWT. */
export function tokenRoutes(): Route[] {
  return [
    {
      method: 'POST',
      path: '/auth/token',
      auth: false,
      async handler(ctx) {
        const {req, state} = ctx
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
        ctx.clientId = clientId!
        if (state.failIdentityProvider) throw new HttpError(502, 'the authentication provider could not be reached')
        const client = state.clients.find((candidate) => candidate.clientId === clientId)
        if (!client || !sameSecret(client.clientSecret, clientSecret!)) throw new HttpError(401, 'invalid client credentials')
        const {accessToken, expiresIn} = await issueToken(state, client)
        state.stats.tokensIssued += 1
        return json(200, {
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
