import {readJson} from '../http/body.js'
import {empty, HttpError, json} from '../http/reply.js'
import type {Route} from '../http/router.js'

/**
 * Controls of the sandbox itself, which no real gateway has: request statistics, token
 * revocation, a failing identity provider, and injected faults. Unauthenticated, loopback only.
 */
export function controlRoutes(): Route[] {
  return [
    {
      method: 'GET',
      path: '/_sandbox/stats',
      auth: false,
      api: false,
      handler({state}) {
        return json(200, state.stats)
      },
    },
    {
      method: 'POST',
      path: '/_sandbox/auth/revoke',
      auth: false,
      api: false,
      handler({state}) {
        state.revokeTokens()
        return empty(204)
      },
    },
    {
      method: 'POST',
      path: '/_sandbox/auth/idp',
      auth: false,
      api: false,
      async handler({req, state}) {
        const body = await readJson(req, 400)
        if (typeof body.fail !== 'boolean') throw new HttpError(400, 'fail must be a boolean')
        state.failIdentityProvider = body.fail
        return empty(204)
      },
    },
    {
      method: 'POST',
      path: '/_sandbox/faults',
      auth: false,
      api: false,
      async handler({req, state}) {
        const body = await readJson(req, 400)
        const status = Number(body.status)
        const count = body.count === undefined ? 1 : Number(body.count)
        if (typeof body.route !== 'string' || !body.route) throw new HttpError(400, 'route must name "METHOD /path" or "*"')
        if (!Number.isInteger(status) || status < 400 || status > 599) throw new HttpError(400, 'status must be 400..599')
        if (!Number.isInteger(count) || count < 1) throw new HttpError(400, 'count must be a positive integer')
        const retryAfter = body.retryAfter === undefined ? undefined : Number(body.retryAfter)
        state.faults.add({route: body.route, remaining: count, fault: {kind: 'status', status, retryAfter}})
        return empty(204)
      },
    },
  ]
}
