import {createHash, randomUUID} from 'node:crypto'
import type {IncomingMessage} from 'node:http'

import type {CreateTransactionResponse, DocumentValue, Transaction} from '../api/types.js'
import {LIMITS} from '../schemas/enums.js'
import {documentKind, formatIssue, type Issue} from '../schemas/rules.js'
import {checkCreateTransaction, UUID_PATTERN, type CreateTransactionBody} from '../schemas/transaction.js'
import {ACQUIRER, brCode, qrPngDataUri, txidFor} from './fixtures.js'
import {HttpError, readJson, readText, sendJson} from './http.js'
import {ACTIONS, transition, withStatuses, type Action, type TransitionOptions} from './lifecycle.js'
import {lookupView, recordsOf, type RecordEntry, type RecordStore} from './records.js'
import type {Route} from './router.js'
import type {SandboxState} from './state.js'

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The shorter guide names the postal code `zipCode` (decisions.md: accepted as an alias). It is
 * renamed before validation; a given `postalCode` wins over the alias.
 */
function withZipCodeAlias(body: Record<string, unknown>): {body: Record<string, unknown>; aliased: boolean} {
  const {address} = body
  if (!isObject(address) || !('zipCode' in address)) return {body, aliased: false}
  const {zipCode, ...rest} = address
  return {body: {...body, address: {postalCode: zipCode, ...rest}}, aliased: rest.postalCode === undefined}
}

/** Issues name the field the client sent, so a bad `zipCode` is not reported as `postalCode`. */
const aliasedIssue = (issue: Issue): Issue =>
  issue.path === 'address.postalCode' ? {...issue, path: 'address.zipCode'} : issue

/** JSON with object keys sorted at every level, so that key order does not change a digest. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** The digest an idempotent replay is compared by: the validated body, so unknown fields do not count. */
const digestOf = (body: CreateTransactionBody): string => createHash('sha256').update(canonicalJson(body)).digest('hex')

/** A document as the record keeps it: plain characters (alphanumeric CNPJs upper-cased) and its kind. */
function storedDocument(document: string): DocumentValue {
  return {value: document.replace(/[^0-9A-Za-z]/g, '').toUpperCase(), type: documentKind(document)}
}

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

/**
 * Makes the record of an accepted create request. It starts PENDING when the request arrives and
 * moves to PIX_QRCODE_GENERATED once the QR image is drawn, so PENDING lasts as long as that took.
 */
async function createEntry(state: SandboxState, request: CreateTransactionBody, digest: string): Promise<RecordEntry> {
  const createdAtMs = state.now()
  const createdAt = new Date(createdAtMs).toISOString()
  const id = randomUUID()
  const pending: Transaction = {
    id,
    acquirerCode: ACQUIRER.code,
    acquirer: ACQUIRER.name,
    amount: request.amount,
    paymentMethod: request.paymentMethod,
    webhookUrl: request.webhookUrl,
    externalCode: request.externalCode,
    customer: request.customer && {...request.customer, document: storedDocument(request.customer.document)},
    seller: request.seller && {...request.seller, document: storedDocument(request.seller.document)},
    isInfoProduct: request.isInfoProduct ?? true,
    address: request.address,
    items: request.items?.map((item) => ({...item, quantity: item.quantity ?? LIMITS.quantity.default})),
    metadata: request.metadata,
    createdAt,
    status: 'PENDING',
    statusHistory: [{status: 'PENDING', date: createdAt, durationInMilliseconds: 0}],
    updatedAt: createdAt,
  }
  const uri = brCode(request.amount, txidFor(id))
  const qrCodeBase64 = await qrPngDataUri(uri)
  const expirationSeconds = request.pix?.expirationSeconds ?? LIMITS.expirationSeconds.default
  const data: Transaction = {
    ...withStatuses(pending, ['PIX_QRCODE_GENERATED'], state.now()),
    pixResponse: {uri, qrCodeBase64, expirationDate: new Date(createdAtMs + expirationSeconds * 1000).toISOString()},
  }
  return recordsOf(state).insert({
    id,
    origin: 'QRCODE',
    createdAtMs,
    data: Object.freeze(data),
    idempotencyKey: request.idempotencyKey,
    requestDigest: digest,
  })
}

/** Pays the record later, unless it was moved meanwhile (a failed QR code stays failed). */
function scheduleAutoPay(state: SandboxState, id: string, ms: number): void {
  state.later(ms, () => {
    try {
      recordsOf(state).update(id, (data) => transition(data, 'pay', state.now()))
    } catch (error) {
      if (!(error instanceof HttpError)) throw error
    }
  })
}

/** The record a path names: 422 for an id that is not a UUID, 404 for an unknown one. */
function entryFor(store: RecordStore, id: string): RecordEntry {
  if (!UUID_PATTERN.test(id)) throw new HttpError(422, `id must be a valid UUID, got "${id}"`)
  const entry = store.get(id)
  if (!entry) throw new HttpError(404, `no transaction with id ${id}`)
  return entry
}

/** The optional body of a life-cycle control: nothing at all, or {amount?, message?}. */
async function readControlOptions(req: IncomingMessage): Promise<TransitionOptions> {
  const text = (await readText(req)).trim()
  if (!text) return {}
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw new HttpError(422, 'the body is not valid JSON')
  }
  if (!isObject(body)) throw new HttpError(422, 'the body must be a JSON object: {"amount"?: cents, "message"?: text}')
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
    async handler({req, res, params, state}) {
      const store = recordsOf(state)
      const {id} = entryFor(store, params.id)
      const options = await readControlOptions(req)
      const entry = store.update(id, (data) => transition(data, action, state.now(), options))!
      sendJson(res, 200, lookupView(entry.data, state.now()))
    },
  }
}

/** POST /core/transaction, GET /core/transaction/{id}, and the life-cycle controls. */
export function transactionRoutes(state: SandboxState): Route[] {
  const store = recordsOf(state)
  /**
   * Creates still drawing their QR code, by idempotency key: a replay that arrives meanwhile
   * waits for the first one instead of making a second record.
   */
  const creating = state.part('transactions.creating', () => new Map<string, Promise<RecordEntry>>())

  return [
    {
      method: 'POST',
      path: '/core/transaction',
      async handler({req, res}) {
        const {body, aliased} = withZipCodeAlias(await readJson(req))
        const checked = checkCreateTransaction(body)
        if (!checked.ok) {
          throw new HttpError(422, checked.issues.map((issue) => formatIssue(aliased ? aliasedIssue(issue) : issue)))
        }
        const request = checked.value
        const key = request.idempotencyKey
        const digest = digestOf(request)
        const earlier = store.byIdempotencyKey(key) ?? creating.get(key)
        let entry: RecordEntry
        if (earlier) {
          entry = await earlier
          if (entry.requestDigest !== digest) {
            throw new HttpError(
              422,
              `idempotencyKey "${key}" was already used with another body (transaction ${entry.id}): use a new key for a new transaction`,
            )
          }
        } else {
          const pending = createEntry(state, request, digest)
          creating.set(key, pending)
          try {
            entry = await pending
          } finally {
            creating.delete(key)
          }
          if (state.autoPayMs !== undefined) scheduleAutoPay(state, entry.id, state.autoPayMs)
        }
        sendJson(res, 201, createResponse(entry.data))
      },
    },
    {
      method: 'GET',
      path: '/core/transaction/:id',
      async handler({res, params}) {
        let entry = entryFor(store, params.id)
        // Seeded records carry the BR Code only: draw its image the first time one is looked up.
        const pix = entry.data.pixResponse
        if (pix && !pix.qrCodeBase64) {
          const qrCodeBase64 = await qrPngDataUri(pix.uri)
          entry = store.update(entry.id, (data) => ({...data, pixResponse: {...pix, ...data.pixResponse, qrCodeBase64}}))!
        }
        sendJson(res, 200, lookupView(entry.data, state.now()))
      },
    },
    ...ACTIONS.map(controlRoute),
  ]
}
