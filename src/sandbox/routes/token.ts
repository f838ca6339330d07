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

/** What a 401 to HTTP Basic client authentication carries (RFC 6749 §5.2). */
const BASIC_CHALLENGE = {'www-authenticate': 'Basic realm="gateway-sandbox"'}

/** One side of HTTP Basic credentials, form-decoded as RFC 6749 §2.3.1 has them encoded. */
function formDecoded(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '))
  } catch {
    throw new HttpError(400, 'the HTTP Basic credentials are not form-encoded')
  }
}

/** The client id and secret of an `Authorization: Basic` header, or undefined without one. */
function basicCredentials(header: string | undefined): {clientId: string; clientSecret: string} | undefined {
  const match = /^Basic\s+(\S*)\s*$/i.exec(header ?? '')
  if (!match) return undefined
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon === -1) throw new HttpError(400, 'the HTTP Basic credentials must be client_id:client_secret, base64-encoded')
  return {clientId: formDecoded(decoded.slice(0, colon)), clientSecret: formDecoded(decoded.slice(colon + 1))}
}

/**
 * POST /auth/token: OAuth 2.0 client credentials, form-encoded, answering a signed JWT. The client
 * authenticates with client_id and client_secret in the form, as the reference shows, or with
 * HTTP Basic (RFC 6749 §2.3.1), never both.
 */
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
        // RFC 6749 §3.2: a parameter sent more than once is refused, never read as its first value.
        const repeated = [...new Set([...form.keys()].filter((key, index, keys) => keys.indexOf(key) !== index))]
        if (repeated.length > 0) throw new HttpError(400, `${repeated.join(', ')} ${repeated.length === 1 ? 'is' : 'are'} given more than once`)
        const basic = basicCredentials(req.headers.authorization)
        const problems: string[] = []
        const grantType = form.get('grant_type')
        if (!grantType) problems.push('grant_type is required')
        else if (grantType !== 'client_credentials') problems.push(`grant_type must be client_credentials, got "${grantType}"`)
        if (basic) {
          if (form.has('client_secret')) problems.push('authenticate with HTTP Basic or with client_secret in the form, not both')
          const formId = form.get('client_id')
          if (formId !== null && formId !== basic.clientId) problems.push('client_id in the form differs from the HTTP Basic one')
        } else {
          if (!form.get('client_id')) problems.push('client_id is required')
          if (!form.get('client_secret')) problems.push('client_secret is required')
        }
        if (problems.length > 0) throw new HttpError(400, problems)
        const {clientId, clientSecret} = basic ?? {clientId: form.get('client_id')!, clientSecret: form.get('client_secret')!}
        ctx.clientId = clientId
        if (state.failIdentityProvider) throw new HttpError(502, 'the authentication provider could not be reached')
        const client = state.clients.find((candidate) => candidate.clientId === clientId)
        if (!client || !sameSecret(client.clientSecret, clientSecret)) {
          throw new HttpError(401, 'invalid client credentials', basic ? BASIC_CHALLENGE : {})
        }
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
