import {z} from 'zod'

import {checkWith, formatIssue} from '../../schemas/rules.js'
import {REPLAY_HEADER} from '../../schemas/enums.js'
import {checkWithdraw} from '../../schemas/withdraw.js'
import {withdrawalView, withdrawResponse, type Settlement} from '../domain/withdrawals.js'
import {readJson, readOptionalJson} from '../http/body.js'
import {HttpError, json} from '../http/reply.js'
import type {Route, RouteContext} from '../http/router.js'
import {uuidParam} from './transactions.js'

/** POST /core/withdraw (and /withdraw): validation, then a new withdrawal or the replay of an earlier one. */
async function withdraw({req, domain}: RouteContext) {
  const checked = checkWithdraw(await readJson(req))
  if (!checked.ok) throw new HttpError(422, checked.issues.map(formatIssue))
  const {data, replayed} = await domain.withdrawals.create(checked.value)
  return json(201, withdrawResponse(data), replayed ? {[REPLAY_HEADER]: 'true'} : undefined)
}

const settleSchema = z.strictObject({
  status: z.enum(['PAID', 'FAILED'], {error: 'must be PAID or FAILED'}).optional(),
  message: z.string({error: 'must be a text'}).min(1, {error: 'must not be empty'}).optional(),
})

/** The optional body of the settle control: nothing (PAID), or {status?: "PAID" | "FAILED", message?}. */
async function readSettlement(req: RouteContext['req']): Promise<Settlement> {
  const checked = checkWith(settleSchema, (await readOptionalJson(req)) ?? {})
  if (!checked.ok) throw new HttpError(422, checked.issues.map(formatIssue))
  const {status = 'PAID', message} = checked.value
  if (status === 'PAID' && message !== undefined) throw new HttpError(422, 'message goes with status FAILED only')
  return status === 'PAID' ? {status} : {status, message}
}

/** The withdrawal endpoint at both paths, the settle control, and the sandbox's list of withdrawals. */
export function withdrawalRoutes(): Route[] {
  return [
    {method: 'POST', path: '/core/withdraw', scope: 'withdraw', handler: withdraw},
    {method: 'POST', path: '/withdraw', scope: 'withdraw', handler: withdraw},
    {
      method: 'POST',
      path: '/_sandbox/withdrawals/:id/settle',
      api: false,
      /** Moves a PENDING withdrawal to PAID (default) or FAILED, as the bank would. */
      async handler({req, params, domain}) {
        const {id} = domain.withdrawals.get(uuidParam(params.id))
        const settlement = await readSettlement(req)
        return json(200, withdrawalView(domain.withdrawals.settle(id, settlement), domain.now()))
      },
    },
    {
      method: 'GET',
      path: '/_sandbox/withdrawals',
      auth: false,
      api: false,
      handler({domain}) {
        const now = domain.now()
        const data = domain.withdrawals.all().map((withdrawal) => withdrawalView(withdrawal, now))
        return json(200, {total: data.length, data})
      },
    },
  ]
}
