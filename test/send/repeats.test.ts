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
    expect(repeats).toEqual([{request: {body: body('key-d', 'order-1')}, earlier: {idempotencyKey: 'key-b', at: '2026-11-27T03:00:00.000Z', externalCode: 'order-1', amount: 100, state: 'pending'}}])
  })

  it('compares by gateway and client id, whatever the profile: another client id or gateway is another sender', async () => {
    const withdrawal = (entry: string, key: string, profile: string, clientId: string | undefined, amount: number, baseUrl = target.baseUrl): RequestRecord => ({
      type: 'request',
      entry,
      at: '2026-11-27T03:00:00.000Z',
      profile,
      baseUrl,
      ...(clientId ? {clientId} : {}),
      command: 'withdraw',
      idempotencyKey: key,
      amount,
      externalCode: 'pay-1',
      destination: '*****1234',
      request: {method: 'POST', path: '/core/withdraw', body: {amount, pixKey: 'x1234', pixKeyType: 'EVP', externalCode: 'pay-1', idempotencyKey: key}},
    })
    const body = {amount: 999, pixKey: 'y9999', pixKeyType: 'EVP', externalCode: 'pay-1', idempotencyKey: 'new'}
    const check = async (record: RequestRecord, who: {profile: string; clientId?: string; baseUrl?: string}) => {
      const journal = await journalWith(record)
      const found = await findRepeats(journal, {baseUrl: target.baseUrl, ...who}, 'withdraw --batch', [{body}])
      config?.remove()
      return found.map((repeat) => repeat.earlier.idempotencyKey)
    }
    // Another profile of the same client, another amount and key: the same payout.
    expect(await check(withdrawal('a', 'k-a', 'ops', 'client-1', 100), {profile: 'cron', clientId: 'client-1'})).toEqual(['k-a'])
    // Another client of the same gateway, or the same client of another gateway: not compared.
    expect(await check(withdrawal('b', 'k-b', 'ops', 'client-2', 100), {profile: 'ops', clientId: 'client-1'})).toEqual([])
    expect(await check(withdrawal('c', 'k-c', 'ops', 'client-1', 100, 'https://other.example'), {profile: 'ops', clientId: 'client-1'})).toEqual([])
    // An entry written before client ids were kept: its profile stands for its client.
    expect(await check(withdrawal('d', 'k-d', 'ops', undefined, 100), {profile: 'ops', clientId: 'client-1'})).toEqual(['k-d'])
    expect(await check(withdrawal('e', 'k-e', 'ops', undefined, 100), {profile: 'cron', clientId: 'client-1'})).toEqual([])
  })

  it('reads the archives an older version left into the index at the first rotation, so they are never forgotten', async () => {
    config = tempConfigDir()
    const journal = new Journal(config.dir, {maxBytes: 1500, archives: 1})
    // An archive as an older version wrote it, and no index.
    const old = request('old', 'key-old', 'order-old')
    const {mkdirSync, writeFileSync} = await import('node:fs')
    mkdirSync(config.dir, {recursive: true, mode: 0o700})
    writeFileSync(`${config.dir}/journal-20250101T000000000Z.jsonl`, `${JSON.stringify(old)}\n${JSON.stringify({type: 'outcome', entry: 'old', at: old.at, state: 'done', by: 'tx create'})}\n`, {mode: 0o600})
    for (let index = 0; index < 20; index++) {
      await journal.append(request(`n${index}`, `key-n${index}`))
      await journal.append({type: 'outcome', entry: `n${index}`, at: old.at, state: 'done', by: 'tx create'})
    }
    expect(await journal.archiveFiles()).not.toContain('journal-20250101T000000000Z.jsonl')
    const repeats = await findRepeats(journal, target, 'tx create', [{body: body('key-again', 'order-old')}])
    expect(repeats.map((repeat) => repeat.earlier)).toEqual([{idempotencyKey: 'key-old', at: old.at, externalCode: 'order-old', amount: 100, state: 'done'}])
  })
})
