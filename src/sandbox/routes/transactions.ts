import type {IncomingMessage} from 'node:http'

import type {CreateTransactionResponse, Transaction} from '../../api/types.js'
import {formatIssue, isJsonObject, type Issue} from '../../schemas/rules.js'
import {checkCreateTransaction} from '../../schemas/transaction.js'
import {REPLAY_HEADER, UUID_PATTERN} from '../../schemas/enums.js'
import {ACTIONS, type Action, type TransitionOptions} from '../domain/lifecycle.js'
import {lookupView} from '../domain/views.js'
import {readJson, readOptionalJson} from '../http/body.js'
import {HttpError, json} from '../http/reply.js'
import type {Route} from '../http/router.js'

/**
 * The shorter guide names the postal code `zipCode` (accepted as an alias of postalCode). It is
 * renamed before validation; a given `postalCode` wins over the alias.
 */
function withZipCodeAlias(body: Record<string, unknown>): {body: Record<string, unknown>; aliased: boolean} {
  const {address} = body
  if (!isJsonObject(address) || !('zipCode' in address)) return {body, aliased: false}
  const {zipCode, ...rest} = address
  return {body: {...body, address: {postalCode: zipCode, ...rest}}, aliased: rest.postalCode === undefined}
}

/** Issues name the field the client sent, so a bad `zipCode` is not reported as `postalCode`. */
const aliasedIssue = (issue: Issue): Issue => (issue.path === 'address.postalCode' ? {...issue, path: 'address.zipCode'} : issue)

/** The create response, for the first answer and for every idempotent replay alike. */
function createResponse(data: Readonly<Transaction>): CreateTransactionResponse {
  return {
    id: data.id,
    externalCode: data.externalCode,
    amount: data.amount,
    type: 'TRANSACTION',
    status: 'PIX_QRCODE_GENERATED',
    pixResponse: data.pixResponse,
  }
}

/** A path's id: 422 when it is not a UUID. */
/** A record id from the path: a UUID in either case (ids are case-insensitive), as the records hold it, in lower case. */
export function uuidParam(id: string): string {
  if (!UUID_PATTERN.test(id)) throw new HttpError(422, `id must be a valid UUID, got "${id}"`)
  return id.toLowerCase()
}

/** The optional body of a life-cycle control: nothing at all, or {amount?, message?}. */
async function readControlOptions(req: IncomingMessage): Promise<TransitionOptions> {
  const body = await readOptionalJson(req)
  if (!body) return {}
  const problems: string[] = []
  if (body.amount !== undefined && typeof body.amount !== 'number') problems.push('amount must be an integer number of cents')
  if (body.message !== undefined && typeof body.message !== 'string') problems.push('message must be a text')
  if (problems.length > 0) throw new HttpError(422, problems)
  return {amount: body.amount as number | undefined, message: body.message as string | undefined}
}

/** POST /_sandbox/transactions/:id/<action>: moves a record one step, as the real gateway would on its own. */
function controlRoute(action: Action): Route {
  return {
    method: 'POST',
    path: `/_sandbox/transactions/:id/${action}`,
    api: false,
    async handler({req, params, domain}) {
      const id = domain.transactions.stored(uuidParam(params.id)).id
      const options = await readControlOptions(req)
      return json(200, lookupView(domain.transactions.act(id, action, options), domain.now()))
    },
  }
}

/** POST /core/transaction, GET /core/transaction/{id}, and the life-cycle controls. */
export function transactionRoutes(): Route[] {
  return [
    {
      method: 'POST',
      path: '/core/transaction',
      scope: 'transaction',
      async handler({req, domain}) {
        const {body, aliased} = withZipCodeAlias(await readJson(req))
        const checked = checkCreateTransaction(body)
        if (!checked.ok) {
          throw new HttpError(422, checked.issues.map((issue) => formatIssue(aliased ? aliasedIssue(issue) : issue)))
        }
        const {data, replayed} = await domain.transactions.create(checked.value)
        return json(201, createResponse(data), replayed ? {[REPLAY_HEADER]: 'true'} : undefined)
      },
    },
    {
      method: 'GET',
      path: '/core/transaction/:id',
      scope: 'transaction',
      async handler({params, domain}) {
        const data = await domain.transactions.get(uuidParam(params.id))
        return json(200, lookupView(data, domain.now()))
      },
    },
    ...ACTIONS.map(controlRoute),
  ]
}
