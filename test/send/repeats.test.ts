import {afterEach, describe, expect, it, vi} from 'vitest'

import {Journal, type RequestRecord} from '../../src/journal/journal.js'
import {findRepeats} from '../../src/send/repeats.js'
import {tempConfigDir} from '../helpers/cli.js'

/** The repeat guard's reading of the journal: what it compares, and when it reads the file at all. */

const target = {profile: 'default', baseUrl: 'http://127.0.0.1:4010'}
const body = (key: string, externalCode?: string) => ({amount: 100, paymentMethod: 'PIX', idempotencyKey: key, ...(externalCode ? {externalCode} : {})})
const request = (entry: string, key: string, externalCode?: string): RequestRecord => ({
  type: 'request',
  entry,
  at: '2026-11-27T03:00:00.000Z',
  ...target,
  command: 'tx create',
  idempotencyKey: key,
  amount: 100,
  ...(externalCode ? {externalCode} : {}),
  request: {method: 'POST', path: '/core/transaction', body: body(key, externalCode)},
})

describe('the repeat guard', () => {
  let config: ReturnType<typeof tempConfigDir> | undefined
  afterEach(() => config?.remove())

  async function journalWith(...records: RequestRecord[]): Promise<Journal> {
    config = tempConfigDir()
    const journal = new Journal(config.dir)
    for (const record of records) await journal.append(record)
    return journal
  }

  it('does not read the journal when no request has an external code, and finds nothing', async () => {
    const journal = await journalWith(request('a', 'key-a'), request('b', 'key-b', 'order-1'))
    const reads = vi.spyOn(journal, 'readFrom')
    // The same fields as entry a under another key: without an external code, not a repeat.
    expect(await findRepeats(journal, target, 'tx create', [{body: body('key-c')}])).toEqual([])
    expect(reads).not.toHaveBeenCalled()
  })

  it('reads it for a request with an external code, and names the earlier one sent under another key', async () => {
    const journal = await journalWith(request('a', 'key-a'), request('b', 'key-b', 'order-1'))
    const reads = vi.spyOn(journal, 'readFrom')
    const repeats = await findRepeats(journal, target, 'tx create', [{body: body('key-c')}, {body: body('key-d', 'order-1')}, {body: body('key-b', 'order-1')}])
    expect(reads).toHaveBeenCalledTimes(1)
    // Only the request with the code and another key: the one without a code is not compared, and
    // the one under the same key is the earlier request itself.
    expect(repeats).toEqual([{request: {body: body('key-d', 'order-1')}, earlier: {idempotencyKey: 'key-b', at: '2026-11-27T03:00:00.000Z', externalCode: 'order-1', state: 'pending'}}])
  })
})
