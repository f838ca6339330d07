import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {createTransactionResponseSchema, depositPageSchema, transactionSchema} from '../../src/schemas/records.js'
import {startTestSandbox, tokenFor, type Sandbox} from '../helpers/sandbox.js'

/** The sandbox's answers hold to the one contract the client's types come from. */
describe('the answers contract', () => {
  let sandbox: Sandbox
  let token: string
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${sandbox.baseUrl}${path}`, {
      method,
      headers: {authorization: `Bearer ${token}`, ...(body ? {'content-type': 'application/json'} : {})},
      body: body ? JSON.stringify(body) : undefined,
    })
    return response.json()
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 40})
    token = await tokenFor(sandbox.baseUrl)
  })
  afterAll(() => sandbox.close())

  it('fits a create answer, a paid and refunded lookup, and every seeded deposit', async () => {
    const created = createTransactionResponseSchema.parse(
      await call('POST', '/core/transaction', {
        amount: 1500,
        paymentMethod: 'PIX',
        idempotencyKey: 'contract-key-1',
        pix: {},
        customer: {name: 'Ana Souza', document: '52998224725'},
        items: [{title: 'Cap', unitPrice: 1500}],
      }),
    )
    await call('POST', `/_sandbox/transactions/${created.id}/pay`, {})
    await call('POST', `/_sandbox/transactions/${created.id}/refund`, {})
    const record = transactionSchema.parse(await call('GET', `/core/transaction/${created.id}`))
    expect(record.status).toBe('REFUNDED')
    const page = depositPageSchema.parse(await call('GET', '/core/deposit?perPage=100'))
    expect(page.data.length).toBeGreaterThan(40)
  })
})
