import {z} from 'zod'

import {checkDepositQuery, type DepositQuery} from '../../schemas/deposit.js'
import {DEPOSIT_STATUSES} from '../../schemas/enums.js'
import {cents, checkWith, formatIssue, type Issue} from '../../schemas/rules.js'
import {depositPageJson, lookupView} from '../domain/views.js'
import {readJson} from '../http/body.js'
import {PageBuffers} from '../http/page-buffers.js'
import {HttpError, json} from '../http/reply.js'
import type {Route} from '../http/router.js'

const LIST_PARAMS = new Set(['status', 'depositOrigin'])
const NUMBER_PARAMS = new Set(['minAmount', 'maxAmount', 'page', 'perPage'])
const TEXT_PARAMS = new Set(['startDate', 'endDate', 'snapshot'])

/**
 * Turns the query string into the object checkDepositQuery reads, with what cannot be read into it
 * (a value given twice, a number that is none) as issues of its own. A list takes repeated keys,
 * `key[]=` and comma-separated values alike; an empty `status=` makes an empty list, which the
 * check refuses. Parameters the endpoint does not know are ignored.
 */
function readQuery(params: URLSearchParams): {query: Record<string, unknown>; issues: Issue[]} {
  const values = new Map<string, string[]>()
  for (const [rawKey, value] of params) {
    const key = rawKey.endsWith('[]') ? rawKey.slice(0, -2) : rawKey
    const list = values.get(key)
    if (list) list.push(value)
    else values.set(key, [value])
  }
  const query: Record<string, unknown> = {}
  const issues: Issue[] = []
  for (const [key, given] of values) {
    if (LIST_PARAMS.has(key)) {
      query[key] = given.flatMap((value) => (value === '' ? [] : value.split(',').map((part) => part.trim())))
    } else if (!NUMBER_PARAMS.has(key) && !TEXT_PARAMS.has(key)) {
      continue
    } else if (given.length > 1) {
      issues.push({path: key, message: `must be given once, not ${given.length} times`})
    } else if (TEXT_PARAMS.has(key)) {
      query[key] = given[0]
    } else {
      // Number('') is 0 and Number('1e3') is 1000: only the first is no number here.
      const number = Number(given[0])
      if (given[0].trim() !== '' && Number.isFinite(number)) query[key] = number
      else issues.push({path: key, message: `must be a number, not "${given[0]}"`})
    }
  }
  return {query, issues}
}

/** The checked query, or a 422 listing every problem. */
function checkedQuery(params: URLSearchParams): DepositQuery {
  const read = readQuery(params)
  const checked = checkDepositQuery(read.query, {side: 'gateway'})
  const issues = [...read.issues, ...(checked.ok ? [] : checked.issues)]
  if (issues.length > 0 || !checked.ok) throw new HttpError(422, issues.map(formatIssue))
  return checked.value
}

const sandboxDepositSchema = z.strictObject({
  amount: cents(),
  status: z.enum(DEPOSIT_STATUSES, {error: `must be one of ${DEPOSIT_STATUSES.join(', ')}`}).optional(),
})

/** GET /core/deposit with snapshot paging, and the PIX-key deposit control. */
export function depositRoutes(): Route[] {
  const buffers = new PageBuffers()
  return [
    {
      method: 'GET',
      path: '/core/deposit',
      scope: 'deposit',
      handler({url, domain}) {
        const page = domain.deposits.list(checkedQuery(url.searchParams))
        const body = depositPageJson(page, domain.now(), buffers.take)
        return {status: 200, json: body, sent: () => buffers.give(body)}
      },
    },
    {
      method: 'POST',
      path: '/_sandbox/deposits',
      api: false,
      /**
       * A deposit received through the merchant's PIX key, in any status (default
       * DEPOSIT_PIXKEY_GENERATED). Answers the record as the lookup shows it, plus its origin.
       */
      async handler({req, domain}) {
        const body = checkWith(sandboxDepositSchema, await readJson(req))
        if (!body.ok) throw new HttpError(422, body.issues.map(formatIssue))
        const data = domain.deposits.receive(body.value)
        return json(201, {...lookupView(data, domain.now()), depositOrigin: 'PIX_KEY'})
      },
    },
  ]
}
