import {randomInt} from 'node:crypto'

import {z} from 'zod'

import {checkWith, formatIssue} from '../../schemas/rules.js'
import {readJson} from '../http/body.js'
import {MAX_TIMER_MS} from '../../schemas/enums.js'
import {DEFAULT_PLAN_KINDS, FAULT_KINDS, faultOf, type Fault} from '../http/faults.js'
import {empty, HttpError, json} from '../http/reply.js'
import type {Route} from '../http/router.js'

const count = (what: string) => z.number({error: `must be ${what}`}).int({error: `must be ${what}`})

/** A fault for the next requests of a route: a kind, or any error status. */
const queuedFaultSchema = z
  .strictObject({
    route: z.string({error: 'must name "METHOD /path" or "*"'}).min(1, {error: 'must name "METHOD /path" or "*"'}),
    kind: z.enum(FAULT_KINDS, {error: `must be one of ${FAULT_KINDS.join(', ')}`}).optional(),
    status: count('a status from 400 to 599').min(400, {error: 'must be a status from 400 to 599'}).max(599, {error: 'must be a status from 400 to 599'}).optional(),
    count: count('a positive integer').min(1, {error: 'must be a positive integer'}).optional(),
    retryAfter: count('a number of seconds').min(0, {error: 'must be a number of seconds'}).max(Math.floor(MAX_TIMER_MS / 1000), {error: `must be at most ${Math.floor(MAX_TIMER_MS / 1000)} seconds`}).optional(),
    delayMs: count('a positive number of milliseconds').min(1, {error: 'must be a positive number of milliseconds'}).max(MAX_TIMER_MS, {error: `must be at most ${MAX_TIMER_MS} milliseconds (a timer holds no longer)`}).optional(),
  })
  .refine((body) => (body.kind === undefined) !== (body.status === undefined), {error: 'give either kind or status'})

/** Faults at random, from now on: a rate of 0 ends them. */
const planSchema = z.strictObject({
  rate: z.number({error: 'must be a share from 0 to 1'}).min(0, {error: 'must be a share from 0 to 1'}).max(1, {error: 'must be a share from 0 to 1'}),
  kinds: z.array(z.enum(FAULT_KINDS, {error: `must be one of ${FAULT_KINDS.join(', ')}`})).min(1, {error: 'must not be empty'}).optional(),
  seed: count('an integer').optional(),
})

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
      /**
       * {route, kind | status, count?, retryAfter?, delayMs?} fails the next `count` requests of a
       * route (204); {rate, kinds?, seed?} fails that share of every gateway request but the token
       * endpoint's, at random from a seed, and answers the plan (200).
       */
      async handler({req, state}) {
        const body = await readJson(req, 400)
        if ('rate' in body) {
          const checked = checkWith(planSchema, body)
          if (!checked.ok) throw new HttpError(400, checked.issues.map(formatIssue))
          const {rate, kinds = DEFAULT_PLAN_KINDS, seed = randomInt(2 ** 31)} = checked.value
          state.faults.setPlan({rate, kinds, seed})
          return json(200, {rate, kinds, seed})
        }
        const checked = checkWith(queuedFaultSchema, body)
        if (!checked.ok) throw new HttpError(400, checked.issues.map(formatIssue))
        const {route, kind, status, count: times = 1, retryAfter, delayMs} = checked.value
        const fault: Fault = kind ? faultOf(kind, {retryAfter, delayMs}) : {kind: 'status', status: status!, retryAfter}
        state.faults.add({route, remaining: times, fault})
        return empty(204)
      },
    },
    {
      method: 'GET',
      path: '/_sandbox/faults',
      auth: false,
      api: false,
      handler({state}) {
        return json(200, {plan: state.faults.plan ?? null, queued: state.faults.queued, injected: state.faults.injected})
      },
    },
    {
      method: 'DELETE',
      path: '/_sandbox/faults',
      auth: false,
      api: false,
      handler({state}) {
        state.faults.clear()
        return empty(204)
      },
    },
  ]
}
