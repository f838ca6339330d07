import {isReplay, type GatewayClient, type QueryValue} from './client.js'
import {NoRecordError, UnavailableError} from './errors.js'
import shapes from '../schemas/contract-shapes.json' with {type: 'json'}
import {checkOf, type QuickCheck, type Shape} from '../schemas/quick.js'
import type {AnswerContract} from '../schemas/records.js'
import type {DepositQuery} from '../schemas/deposit.js'
import type {CreateTransactionBody} from '../schemas/transaction.js'
import type {ResendBody} from '../schemas/resend.js'
import type {WithdrawBody} from '../schemas/withdraw.js'
import type {CreateTransactionResponse, DepositPage, PixResponse, Transaction, WithdrawResponse} from './types.js'

/**
 * A 2xx whose body is not the record it answers for (a required field of the reference missing or
 * of the wrong type): the gateway failed, whatever its status said.
 */
export class NotTheRecordError extends UnavailableError {
  override readonly code: string = 'NOT_THE_RECORD'
}

/**
 * An answer's contract: its name in ANSWER_CONTRACTS (records.ts), what it is called, and whether a
 * run checks a single answer of it (see contractProblem).
 */
type Contract = {name: AnswerContract; what: string; once?: boolean}
const TRANSACTION: Contract = {name: 'transaction', what: 'a transaction', once: true}
const DEPOSIT_PAGE: Contract = {name: 'depositPage', what: 'a page of deposits'}
const CREATED: Contract = {name: 'created', what: 'a transaction', once: true}
const WITHDRAWAL: Contract = {name: 'withdrawal', what: 'a withdrawal', once: true}

/** Each answer contract's shape, written by the build from the contract (null: zod reads the answer alone). */
const CONTRACT_SHAPES = shapes as Partial<Record<AnswerContract, Shape | null>>
const quickChecks = new Map<AnswerContract, QuickCheck | null>()

/**
 * The first reason an answer fails its contract, or undefined when it holds to it. The answer is
 * first read against the contract's shape, written by the build (contract-shapes.json), which needs
 * nothing of zod: zod, and the contracts themselves, are loaded only for an answer the shape does
 * not accept (or a contract without one), to read it again and say what is wrong in its words.
 */
async function problemOf(contract: Contract, body: unknown): Promise<string | undefined> {
  if (!quickChecks.has(contract.name)) {
    const shape = CONTRACT_SHAPES[contract.name]
    quickChecks.set(contract.name, shape ? checkOf(shape) : null)
  }
  if (quickChecks.get(contract.name)?.(body)) return undefined
  const {ANSWER_CONTRACTS, contractProblem} = await import('../schemas/records.js')
  return contractProblem(ANSWER_CONTRACTS[contract.name], body, contract.once)
}

/** The answer, when it holds to its contract; a NotTheRecordError saying what failed otherwise. */
async function checked<T>(body: unknown, contract: Contract, context: string, status: number): Promise<T> {
  const problem = await problemOf(contract, body)
  if (problem === undefined) return body as T
  throw new NotTheRecordError(`the gateway answered something that is not ${contract.what} (${context}: ${status}, ${problem})`, {status, body})
}

/** The withdraw path when the profile and the environment name no other: the reference does not show it. */
export const DEFAULT_WITHDRAW_PATH = '/core/withdraw'

/** The answer to a POST that carried an idempotency key, and whether it replays an earlier one. */
export interface Idempotent<T> {
  body: T
  /** The gateway answered an earlier request with the same key (header Idempotent-Replayed: true). */
  replayed: boolean
}

/** Where transactions are created, and looked up (`{id}` for the id). */
export const TRANSACTION_PATH = '/core/transaction'
export const TRANSACTION_LOOKUP = '/core/transaction/{id}'

/** A create answer's PIX data is read from pixResponse, else pix. */
function pixResponseOf(answer: CreateTransactionResponse & {pix?: PixResponse}): CreateTransactionResponse {
  const {pix, ...rest} = answer
  return rest.pixResponse || !pix ? rest : {...rest, pixResponse: pix}
}

/** The deposit list's query: the contract's type. */
export type DepositListQuery = DepositQuery

export type SandboxAction = 'pay' | 'refund' | 'infraction' | 'block' | 'fail'

/** The gateway's endpoints, typed. Every call goes through the client's single door. */
export class GatewayApi {
  constructor(readonly client: GatewayClient) {}

  /** POST /core/transaction. The response's PIX data is read from pixResponse, else pix. */
  async createTransaction(body: CreateTransactionBody): Promise<CreateTransactionResponse> {
    return (await this.postTransaction(body)).body
  }

  /**
   * POST /core/transaction, retried under its idempotency key, saying whether the answer replays
   * an earlier request (header Idempotent-Replayed), whose record may have moved on since.
   */
  async postTransaction(body: CreateTransactionBody): Promise<Idempotent<CreateTransactionResponse>> {
    const answer = await this.postRecord<CreateTransactionResponse & {pix?: PixResponse}>(TRANSACTION_PATH, body, 'creating the transaction')
    return {...answer, body: pixResponseOf(answer.body)}
  }

  /**
   * POSTs a request that creates a record (a charge, a withdrawal) under its idempotency key, retried
   * under that key, and reads the answer: a 2xx without the record (not a JSON object, or without
   * its `id`) is not success, since the request may have been carried out all the same.
   */
  async postRecord<T extends {id: string}>(path: string, body: {idempotencyKey?: string}, context: string, contract?: Contract): Promise<Idempotent<T>> {
    const {body: answer, headers, status} = await this.client.request<unknown>('POST', path, {json: body, idempotencyKey: body.idempotencyKey, context})
    if (answer === null || typeof answer !== 'object' || Array.isArray(answer) || typeof (answer as {id?: unknown}).id !== 'string' || !(answer as {id: string}).id) {
      const shape = answer === undefined ? 'an empty body' : typeof answer === 'string' ? 'a body that is not JSON' : 'JSON without the record\'s id'
      throw new NoRecordError(`the gateway answered without the record (${context}: ${status} with ${shape}); the outcome is unknown${body.idempotencyKey ? `, idempotency key ${body.idempotencyKey}: send the request again with it to retry safely` : ''}`, {
        status,
        body: answer,
        retryable: true,
        idempotencyKey: body.idempotencyKey,
      })
    }
    const expected = contract ?? (path === TRANSACTION_PATH ? CREATED : WITHDRAWAL)
    const problem = await problemOf(expected, answer)
    if (problem !== undefined) {
      // Not success: the request may have been carried out all the same, so the entry stays pending.
      throw new NoRecordError(`the gateway answered something that is not ${expected.what} (${context}: ${status}, ${problem}); the outcome is unknown${body.idempotencyKey ? `, idempotency key ${body.idempotencyKey}: send the request again with it to retry safely` : ''}`, {
        status,
        body: answer,
        retryable: true,
        idempotencyKey: body.idempotencyKey,
      })
    }
    return {body: answer as T, replayed: isReplay(headers)}
  }

  async getTransaction(id: string, options: {timeoutMs?: number} = {}): Promise<Transaction> {
    const context = `looking up transaction ${id}`
    const {body, status} = await this.client.request<unknown>('GET', TRANSACTION_LOOKUP.replace('{id}', encodeURIComponent(id)), {context, timeoutMs: options.timeoutMs})
    return checked<Transaction>(body, TRANSACTION, context, status)
  }

  /** GET /core/deposit: arrays go as repeated keys (status=PAID&status=REFUNDED). */
  async listDeposits(query: DepositListQuery): Promise<DepositPage> {
    const context = query.page === undefined ? 'listing deposits' : `listing deposits, page ${query.page}`
    const {body, status} = await this.client.request<unknown>('GET', '/core/deposit', {query: query as Record<string, QueryValue>, context})
    return checked<DepositPage>(body, DEPOSIT_PAGE, context, status)
  }

  /** POST {withdraw path} (default /core/withdraw): a PIX withdrawal, and whether it was a replay. */
  async withdraw(body: WithdrawBody, options: {path?: string} = {}): Promise<Idempotent<WithdrawResponse>> {
    return this.postRecord<WithdrawResponse>(options.path ?? DEFAULT_WITHDRAW_PATH, body, 'the withdrawal')
  }

  /** POST /dispatcher/request/resend: accepted (201, no body) is all it says; delivery follows. */
  async resend(body: ResendBody): Promise<void> {
    await this.client.request<unknown>('POST', '/dispatcher/request/resend', {json: body, context: 'the resend request'})
  }

  /** Sandbox only: moves a transaction through its life (pay, refund, infraction, block, fail). */
  async sandboxTransition(id: string, action: SandboxAction, body: {amount?: number} = {}): Promise<Transaction> {
    const context = `sandbox ${action} of ${id}`
    const {body: record, status} = await this.client.request<unknown>('POST', `/_sandbox/transactions/${encodeURIComponent(id)}/${action}`, {json: body, context})
    return checked<Transaction>(record, TRANSACTION, context, status)
  }

  /** Sandbox only: a deposit received through a PIX key. */
  async sandboxDeposit(body: {amount: number; status?: string}): Promise<Transaction & {depositOrigin: string}> {
    const {body: record, status} = await this.client.request<unknown>('POST', '/_sandbox/deposits', {json: body, context: 'sandbox deposit'})
    return checked<Transaction & {depositOrigin: string}>(record, TRANSACTION, 'sandbox deposit', status)
  }
}
