import type {GatewayClient, QueryValue} from './client.js'
import type {DepositQuery} from '../schemas/deposit.js'
import type {CreateTransactionBody} from '../schemas/transaction.js'
import type {CreateTransactionResponse, DepositPage, PixResponse, Transaction} from './types.js'

/** The deposit list's query: the contract's type. */
export type DepositListQuery = DepositQuery

export type SandboxAction = 'pay' | 'refund' | 'infraction' | 'block' | 'fail'

/** The gateway's endpoints, typed. Every call goes through the client's single door. */
export class GatewayApi {
  constructor(readonly client: GatewayClient) {}

  /** POST /core/transaction. The response's PIX data is read from pixResponse, else pix. */
  async createTransaction(body: CreateTransactionBody): Promise<CreateTransactionResponse> {
    const {body: answer} = await this.client.request<CreateTransactionResponse & {pix?: PixResponse}>('POST', '/core/transaction', {
      json: body,
      context: 'creating the transaction',
    })
    const {pix, ...rest} = answer
    return rest.pixResponse || !pix ? rest : {...rest, pixResponse: pix}
  }

  async getTransaction(id: string, options: {timeoutMs?: number} = {}): Promise<Transaction> {
    const {body} = await this.client.request<Transaction>('GET', `/core/transaction/${encodeURIComponent(id)}`, {
      context: `looking up transaction ${id}`,
      timeoutMs: options.timeoutMs,
    })
    return body
  }

  /** GET /core/deposit: arrays go as repeated keys (status=PAID&status=REFUNDED). */
  async listDeposits(query: DepositListQuery): Promise<DepositPage> {
    const {body} = await this.client.request<DepositPage>('GET', '/core/deposit', {
      query: query as Record<string, QueryValue>,
      context: 'listing deposits',
    })
    return body
  }

  /** Sandbox only: moves a transaction through its life (pay, refund, infraction, block, fail). */
  async sandboxTransition(id: string, action: SandboxAction, body: {amount?: number} = {}): Promise<Transaction> {
    const {body: record} = await this.client.request<Transaction>('POST', `/_sandbox/transactions/${encodeURIComponent(id)}/${action}`, {
      json: body,
      context: `sandbox ${action} of ${id}`,
    })
    return record
  }

  /** Sandbox only: a deposit received through a PIX key. */
  async sandboxDeposit(body: {amount: number; status?: string}): Promise<Transaction & {depositOrigin: string}> {
    const {body: record} = await this.client.request<Transaction & {depositOrigin: string}>('POST', '/_sandbox/deposits', {
      json: body,
      context: 'sandbox deposit',
    })
    return record
  }
}
