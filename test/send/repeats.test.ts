import {afterEach, describe, expect, it, vi} from 'vitest'

import {Journal, type RequestRecord} from '../../src/journal/journal.js'
import {FolderError} from '../../src/api/folder.js'
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
    const reads = [vi.spyOn(journal, 'readFrom'), vi.spyOn(journal, 'bytes')]
    // The same fields as entry a under another key: without an external code, not a repeat.
    expect(await findRepeats(journal, target, 'tx create', [{body: body('key-c')}])).toEqual([])
    for (const read of reads) expect(read).not.toHaveBeenCalled()
  })

  it('reads it for a request with an external code, and names the earlier one sent under another key', async () => {
    const journal = await journalWith(request('a', 'key-a'), request('b', 'key-b', 'order-1'))
    const reads = [vi.spyOn(journal, 'readFrom'), vi.spyOn(journal, 'bytes')]
    const repeats = await findRepeats(journal, target, 'tx create', [{body: body('key-c')}, {body: body('key-d', 'order-1')}, {body: body('key-b', 'order-1')}])
    // Read once: a first look searches the file for the codes and parses only their lines.
    expect(reads[0].mock.calls.length + reads[1].mock.calls.length).toBe(1)
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

  it('a first look, which parses only the lines of its codes and of their entries, finds what a whole reading finds', async () => {
    const odd = 'order "7" \\ ação ✓'
    const outcome = (entry: string, state: 'done' | 'failed' | 'pending') => ({type: 'outcome' as const, entry, at: '2026-11-27T03:00:00.000Z', state, by: 'tx create'})
    const journal = await journalWith(request('a', 'key-a', odd), request('b', 'key-b', 'order-2'), request('c', 'key-c', 'order-3'))
    // a done then an unknown outcome (still done); b refused (not compared); c still pending.
    for (const record of [outcome('a', 'done'), outcome('b', 'failed'), outcome('a', 'pending')]) await journal.append(record)
    const ask = () => findRepeats(journal, target, 'tx create', [{body: body('new-1', odd)}, {body: body('new-2', 'order-2')}, {body: body('new-3', 'order-3')}])
    const bytes = vi.spyOn(journal, 'bytes')
    const readFrom = vi.spyOn(journal, 'readFrom')
    const first = await ask()
    expect(bytes).toHaveBeenCalledTimes(1)
    expect(readFrom).not.toHaveBeenCalled()
    expect(first.map(({earlier}) => [earlier.externalCode, earlier.idempotencyKey, earlier.state])).toEqual([
      [odd, 'key-a', 'done'],
      ['order-3', 'key-c', 'pending'],
    ])
    // A second check in the same process (a batch's next row) reads the whole file, to the same answer.
    expect(await ask()).toEqual(first)
    expect(readFrom).toHaveBeenCalledTimes(1)
  })

  it('reads an index in the layout of an earlier version (16 files), and folds it into the current one at the next rotation', async () => {
    config = tempConfigDir()
    const journal = new Journal(config.dir, {maxBytes: 1500, archives: 1})
    const {createHash} = await import('node:crypto')
    const {existsSync, mkdirSync, readFileSync, writeFileSync} = await import('node:fs')
    const {fieldsHash, indexFile} = await import('../../src/journal/journal.js')
    const old = request('old', 'key-old', 'order-legacy')
    const line = {c: 'order-legacy', g: target.baseUrl, i: 'profile:default', f: 'tx create', h: fieldsHash(old.request.body), at: old.at, key: 'key-old', amount: 100, s: 'done', e: 'old'}
    const legacy = `${config.dir}/journal-index-${createHash('sha256').update('order-legacy').digest('hex')[0]}.jsonl`
    mkdirSync(config.dir, {recursive: true, mode: 0o700})
    writeFileSync(legacy, `${JSON.stringify(line)}\n`, {mode: 0o600})
    writeFileSync(`${config.dir}/journal-index-0.jsonl`, '', {flag: 'a', mode: 0o600})
    const again = [{body: body('key-again', 'order-legacy')}]
    const expected = [{idempotencyKey: 'key-old', at: old.at, externalCode: 'order-legacy', amount: 100, state: 'done'}]
    expect((await findRepeats(journal, target, 'tx create', again)).map((repeat) => repeat.earlier)).toEqual(expected)
    for (let index = 0; index < 20; index++) {
      await journal.append(request(`n${index}`, `key-n${index}`))
      await journal.append({type: 'outcome', entry: `n${index}`, at: old.at, state: 'done', by: 'tx create'})
    }
    expect(existsSync(legacy)).toBe(false)
    expect(existsSync(`${config.dir}/journal-index-0.jsonl`)).toBe(false)
    expect(readFileSync(`${config.dir}/${indexFile('order-legacy')}`, 'utf8')).toContain('"c":"order-legacy"')
    expect((await findRepeats(journal, target, 'tx create', again)).map((repeat) => repeat.earlier)).toEqual(expected)
  })
  it('a batch payout rotated away, remembered by the index alone, blocks a single payout of the same code', async () => {
    config = tempConfigDir()
    const journal = new Journal(config.dir, {maxBytes: 1500, archives: 1})
    const {readdirSync, readFileSync} = await import('node:fs')
    const payoutBody = (key: string) => ({amount: 5000, pixKey: 'maria@example.com', pixKeyType: 'EMAIL', idempotencyKey: key, externalCode: 'payout-2026-11'})
    const payout: RequestRecord = {
      ...request('p', 'key-p'),
      command: 'withdraw --batch',
      amount: 5000,
      externalCode: 'payout-2026-11',
      request: {method: 'POST', path: '/core/withdraw', body: payoutBody('key-p')},
    }
    await journal.append(payout)
    await journal.append({type: 'outcome', entry: 'p', at: payout.at, state: 'done', by: 'withdraw --batch'})
    // Rotations until neither the journal nor any archive holds it: only the index remembers it.
    for (let index = 0; index < 60; index++) {
      await journal.append(request(`n${index}`, `key-n${index}`))
      await journal.append({type: 'outcome', entry: `n${index}`, at: payout.at, state: 'done', by: 'tx create'})
    }
    const journalFiles = readdirSync(config.dir).filter((name) => /^journal(-\d{8}T\d{9}Z)?\.jsonl$/.test(name))
    for (const name of journalFiles) expect(readFileSync(`${config.dir}/${name}`, 'utf8')).not.toContain('payout-2026-11')
    // The same code again, sent singly (and with another amount: a payout is compared by its code alone).
    const repeats = await findRepeats(journal, target, 'withdraw', [{body: {...payoutBody('key-again'), amount: 4000}}])
    expect(repeats.map((repeat) => repeat.earlier.idempotencyKey)).toEqual(['key-p'])
  })
  it('reads an index in the first layout (one file, journal-index.jsonl), and folds it in at the next rotation', async () => {
    config = tempConfigDir()
    const journal = new Journal(config.dir, {maxBytes: 1500, archives: 1})
    const {existsSync, mkdirSync, readFileSync, writeFileSync} = await import('node:fs')
    const {fieldsHash, indexFile} = await import('../../src/journal/journal.js')
    // As the first version with an index wrote it: every code's line in one file.
    const payoutBody = (key: string) => ({amount: 5000, pixKey: 'maria@example.com', pixKeyType: 'EMAIL', idempotencyKey: key, externalCode: 'payout-first'})
    const line = {c: 'payout-first', g: target.baseUrl, i: 'profile:default', f: 'withdraw', h: fieldsHash(payoutBody('key-first')), k: 'ma***@example.com', at: '2026-01-05T03:00:00.000Z', key: 'key-first', amount: 5000, s: 'done', e: 'first'}
    const other = {...line, c: 'payout-other', key: 'key-other', e: 'other'}
    const first = `${config.dir}/journal-index.jsonl`
    mkdirSync(config.dir, {recursive: true, mode: 0o700})
    writeFileSync(first, `${JSON.stringify(other)}\n${JSON.stringify(line)}\n`, {mode: 0o600})
    const again = [{body: {...payoutBody('key-again'), amount: 4000}}]
    const keys = async () => (await findRepeats(journal, target, 'withdraw', again)).map((repeat) => repeat.earlier.idempotencyKey)
    expect(await keys()).toEqual(['key-first'])
    for (let index = 0; index < 20; index++) {
      await journal.append(request(`n${index}`, `key-n${index}`))
      await journal.append({type: 'outcome', entry: `n${index}`, at: line.at, state: 'done', by: 'tx create'})
    }
    expect(existsSync(first)).toBe(false)
    expect(readFileSync(`${config.dir}/${indexFile('payout-first')}`, 'utf8')).toContain('"c":"payout-first"')
    expect(await keys()).toEqual(['key-first'])
  })

  describe('a damaged index line that names the code fails closed: refused, naming the file and line, never sent', () => {
    const damaged = async (text: (line: string) => string, many: boolean) => {
      config = tempConfigDir()
      const journal = new Journal(config.dir)
      const {mkdirSync, writeFileSync} = await import('node:fs')
      const {fieldsHash, indexFile} = await import('../../src/journal/journal.js')
      const old = request('old', 'key-old', 'order-torn')
      const line = JSON.stringify({c: 'order-torn', g: target.baseUrl, i: 'profile:default', f: 'tx create', h: fieldsHash(old.request.body), at: old.at, key: 'key-old', amount: 100, s: 'done', e: 'old'})
      const other = JSON.stringify({c: 'order-other', g: target.baseUrl, i: 'profile:default', f: 'tx create', h: 'x', at: old.at, key: 'key-x', amount: 100, s: 'done', e: 'x'})
      mkdirSync(config.dir, {recursive: true, mode: 0o700})
      const path = `${config.dir}/${indexFile('order-torn')}`
      writeFileSync(path, `${other}\n${text(line)}`, {mode: 0o600})
      // Many codes at once (a batch) read the index whole; a few search it.
      const extra = many ? Array.from({length: 40}, (_, index) => ({body: body(`k${index}`, `other-${index}`)})) : []
      const error = await findRepeats(journal, target, 'tx create', [...extra, {body: body('key-again', 'order-torn')}]).catch((caught: unknown) => caught)
      return {error: error as Error & {hint?: string}, path}
    }
    it.each([
      ['does not parse', (line: string) => `${line.replace(',"g":', ',"g"')}\n`, 'cannot be read'],
      ['is cut short at the end of the file', (line: string) => line.slice(0, 70), 'is cut short at the end of the file'],
    ])('a line that %s (a few codes, and a batch of many)', async (_name, text, why) => {
      for (const many of [false, true]) {
        const {error, path} = await damaged(text, many)
        expect(error, `many: ${many}`).toBeInstanceOf(FolderError)
        expect(error.message).toBe(`${path}, line 2, names the external code "order-torn" but ${why}: the journal's index cannot tell whether it was sent, so nothing was sent`)
        expect(error.hint).toContain(`sed -n '2p' ${path}`)
        config?.remove()
        config = undefined
      }
    })
  })

  describe('a damaged journal line that names the code fails closed, and is kept at rotation', () => {
    const sent = request('sent', 'key-sent', 'order-torn')
    const whole = JSON.stringify(sent)
    const cases: Array<[string, (line: string) => string, string, number]> = [
      ['does not parse (second of three lines)', (line) => `${JSON.stringify(request('a', 'key-a', 'order-a'))}\n${line.replace('"type":', '"type"')}\n${JSON.stringify(request('b', 'key-b', 'order-b'))}\n`, 'cannot be read', 2],
      ['is cut short at the end of the file', (line) => `${JSON.stringify(request('a', 'key-a', 'order-a'))}\n${line.slice(0, line.indexOf('"order-torn"') + 14)}`, 'is cut short at the end of the file', 2],
    ]
    it.each(cases)('a line that %s: refused on a first look, on a batch of many, and on a look after another', async (_name, text, why, number) => {
      for (const how of ['first', 'many', 'again'] as const) {
        config = tempConfigDir()
        const {mkdirSync, writeFileSync} = await import('node:fs')
        mkdirSync(config.dir, {recursive: true, mode: 0o700})
        const journal = new Journal(config.dir)
        writeFileSync(journal.path, text(whole), {mode: 0o600})
        // A process that checks again (a batch, row by row) reads the file whole the second time.
        if (how === 'again') expect(await findRepeats(journal, target, 'tx create', [{body: body('key-z', 'order-z')}])).toEqual([])
        const extra = how === 'many' ? Array.from({length: 40}, (_, index) => ({body: body(`k${index}`, `other-${index}`)})) : []
        const error = (await findRepeats(journal, target, 'tx create', [...extra, {body: body('key-again', 'order-torn')}]).catch((caught: unknown) => caught)) as Error & {hint?: string}
        expect(error, how).toBeInstanceOf(FolderError)
        expect(error.message).toBe(`${journal.path}, line ${number}, names the external code "order-torn" but ${why}: the journal cannot tell whether it was sent, so nothing was sent`)
        expect(error.hint).toContain(`sed -n '${number}p' ${journal.path}`)
        // Other codes are not held up by it.
        expect(await findRepeats(journal, target, 'tx create', [{body: body('key-c', 'order-c')}])).toEqual([])
        config.remove()
        config = undefined
      }
    })

    it('a rotation keeps the damaged line in the journal, so the code is still refused after it', async () => {
      config = tempConfigDir()
      const {mkdirSync, writeFileSync, readFileSync} = await import('node:fs')
      mkdirSync(config.dir, {recursive: true, mode: 0o700})
      const journal = new Journal(config.dir, {maxBytes: 4096})
      const damaged = whole.replace('"type":', '"type"')
      writeFileSync(journal.path, `${damaged}\n`, {mode: 0o600})
      // Settled history past the size limit: the next append rotates.
      for (let index = 0; index < 20; index += 1) {
        await journal.append(request(`n${index}`, `key-n${index}`, `order-n${index}`))
        await journal.append({type: 'outcome', entry: `n${index}`, at: sent.at, state: 'done', by: 'tx create'})
      }
      const text = readFileSync(journal.path, 'utf8')
      expect(text.length).toBeLessThan(4096)
      expect(text.split('\n')).toContain(damaged)
      const fresh = new Journal(config.dir)
      await expect(findRepeats(fresh, target, 'tx create', [{body: body('key-again', 'order-torn')}])).rejects.toThrow(/names the external code "order-torn" but cannot be read/)
    })
  })
})
