import {spawn} from 'node:child_process'
import {appendFileSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterEach, describe, expect, it} from 'vitest'

import {foldEntries, Journal, maskKey, parseRecords, type RequestRecord} from '../../src/journal/journal.js'
import {tempConfigDir} from '../helpers/cli.js'

const request = (entry: string, amount = 100): RequestRecord => ({
  type: 'request',
  entry,
  at: new Date().toISOString(),
  profile: 'default',
  baseUrl: 'http://127.0.0.1:4010',
  command: 'tx create',
  idempotencyKey: `key-${entry}`,
  amount,
  request: {method: 'POST', path: '/core/transaction', body: {amount, paymentMethod: 'PIX', idempotencyKey: `key-${entry}`, pix: {}}},
})
const done = (entry: string) => ({type: 'outcome' as const, entry, at: new Date().toISOString(), state: 'done' as const, by: 'test', id: `id-${entry}`})

describe('the journal file', () => {
  let config: ReturnType<typeof tempConfigDir>
  afterEach(() => config?.remove())

  it('folds requests and outcomes into entries: no outcome, or an unknown one, is pending; a known outcome is never undone', () => {
    const entries = foldEntries([
      request('a'),
      request('b'),
      request('c'),
      done('a'),
      {type: 'outcome', entry: 'b', at: '', state: 'pending', by: 'test', error: {code: 'UNAVAILABLE', message: '503'}},
      {type: 'outcome', entry: 'a', at: '', state: 'pending', by: 'test', error: {code: 'UNAVAILABLE', message: 'late'}},
    ])
    expect(entries.map((entry) => [entry.entry, entry.state, entry.outcomes])).toEqual([
      ['a', 'done', 2],
      ['b', 'pending', 1],
      ['c', 'pending', 0],
    ])
  })

  it('is created 0600 in a 0700 folder, and a line cut short by a crash costs only that line', async () => {
    config = tempConfigDir()
    const journal = new Journal(config.dir)
    await journal.append(request('a'), {durable: true})
    expect(statSync(journal.path).mode & 0o777).toBe(0o600)
    expect(statSync(config.dir).mode & 0o777).toBe(0o700)
    // A process killed in the middle of a write leaves half a line.
    appendFileSync(journal.path, JSON.stringify(request('b')).slice(0, 40))
    await journal.append(done('a'))
    await journal.append(request('c'))
    expect(parseRecords(readFileSync(journal.path, 'utf8'))).toHaveLength(3)
    expect((await journal.entries()).map((entry) => [entry.entry, entry.state])).toEqual([
      ['a', 'done'],
      ['c', 'pending'],
    ])
  })

  it('rotates past its size limit, archiving settled entries and keeping every pending one', async () => {
    config = tempConfigDir()
    const journal = new Journal(config.dir, {maxBytes: 4096, archives: 100})
    const pending: string[] = []
    for (let index = 0; index < 60; index++) {
      const entry = `e${index}`
      await journal.append(request(entry))
      if (index % 10 === 0) pending.push(entry)
      else await journal.append(done(entry))
    }
    const archives = await journal.archiveFiles()
    expect(archives.length).toBeGreaterThan(0)
    expect(statSync(journal.path).size).toBeLessThan(2 * 4096)
    const current = await journal.entries()
    expect(current.filter((entry) => entry.state === 'pending').map((entry) => entry.entry)).toEqual(pending)
    for (const name of archives) expect(statSync(join(config.dir, name)).mode & 0o777).toBe(0o600)
    // Every request is somewhere: in an archive or in the journal.
    const everywhere = new Set(
      [journal.path, ...archives.map((name) => join(config.dir, name))].flatMap((path) =>
        parseRecords(readFileSync(path, 'utf8')).map((record) => record.entry),
      ),
    )
    expect(everywhere.size).toBe(60)
  })

  it('keeps a bounded number of archives', async () => {
    config = tempConfigDir()
    const journal = new Journal(config.dir, {maxBytes: 1024, archives: 2})
    for (let index = 0; index < 60; index++) {
      await journal.append(request(`e${index}`))
      await journal.append(done(`e${index}`))
    }
    expect(await journal.archiveFiles()).toHaveLength(2)
  })

  it('takes appends from concurrent processes, rotating meanwhile, without losing or tearing a line', async () => {
    config = tempConfigDir()
    const module = fileURLToPath(new URL('../../dist/journal/journal.js', import.meta.url))
    const script = `
      const {Journal} = await import(${JSON.stringify(module)})
      const journal = new Journal(process.argv[1], {maxBytes: 8192, archives: 1000})
      const who = process.argv[2]
      for (let index = 0; index < 40; index++) {
        const entry = who + '-' + index
        await journal.append({type: 'request', entry, at: new Date().toISOString(), profile: 'default', baseUrl: 'http://127.0.0.1:4010', command: 'tx create', idempotencyKey: 'key-' + entry, amount: 100, request: {method: 'POST', path: '/core/transaction', body: {}}}, {durable: index % 2 === 0})
        if (index % 4 !== 0) await journal.append({type: 'outcome', entry, at: new Date().toISOString(), state: 'done', by: 'test', id: 'id-' + entry})
      }`
    const processes = 6
    await Promise.all(
      Array.from({length: processes}, (_, who) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script, config.dir, `p${who}`], {stdio: ['ignore', 'ignore', 'pipe']})
          let stderr = ''
          child.stderr.on('data', (chunk) => (stderr += chunk))
          child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`child ${who} exited ${code}: ${stderr}`))))
        }),
      ),
    )
    const journal = new Journal(config.dir)
    const files = [journal.path, ...(await journal.archiveFiles()).map((name) => join(config.dir, name))]
    expect(files.length).toBeGreaterThan(1)
    for (const file of files) {
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean)
      // Every line whole: no two writes interleaved, none cut.
      expect(parseRecords(lines.join('\n'))).toHaveLength(lines.length)
    }
    const pending = (await journal.entries()).filter((entry) => entry.state === 'pending').map((entry) => entry.entry)
    expect(pending.sort()).toEqual(
      Array.from({length: processes}, (_, who) => Array.from({length: 10}, (_, n) => `p${who}-${n * 4}`)).flat().sort(),
    )
    const requests = new Set(files.flatMap((file) => parseRecords(readFileSync(file, 'utf8')).filter((record) => record.type === 'request').map((record) => record.entry)))
    expect(requests.size).toBe(processes * 40)
    expect(readdirSync(config.dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('masks a PIX key like a document: all but the last four characters', () => {
    expect(maskKey('529.982.247-25')).toBe('**********7-25')
    expect(maskKey('maria@example.com')).toBe('*************.com')
    expect(maskKey('abc')).toBe('***')
  })
})
