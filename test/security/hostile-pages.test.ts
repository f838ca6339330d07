import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {IdSet, MAX_PAGES} from '../../src/api/paging.js'
import {tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/context.js'
import {startHostilePages, type HostilePages} from '../helpers/hostile-pages.js'
import {startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

/**
 * A gateway whose listing never ends, repeats itself or does not advance: every command that walks
 * pages stops with exit 7, naming the page, after a bounded number of requests, instead of walking
 * (and writing) without end.
 */
describe('a listing that breaks the paging contract stops with exit 7', () => {
  let sandbox: Sandbox
  let gateway: HostilePages
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  const cli = (args: string[]) => runCommand(args, {sleep: async () => {}, env})
  /** Runs a walk under a mode, answering the result and how many pages it asked for. */
  const walk = async (mode: HostilePages['mode'], args: string[]) => {
    gateway.mode = mode
    const before = gateway.pagesAsked
    const result = await cli(args)
    return {...result, asked: gateway.pagesAsked - before}
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 30})
    gateway = await startHostilePages(sandbox.baseUrl)
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    const login = await runCommand(['login', '--base-url', gateway.baseUrl, '--client-id', 'sandbox'], {env: {...env, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
    expect(login.code, login.stderr).toBe(0)
  })
  afterAll(async () => {
    await gateway.close()
    await sandbox.close()
    config.remove()
  })

  it('walks an honest listing as before', async () => {
    const result = await walk('pass', ['deposits', 'list', '--all', '--output', 'ndjson', '--per-page', '7', '--concurrency', '3'])
    expect(result.code, result.stderr).toBe(0)
    const ids = result.stdout.trim().split('\n').map((line) => JSON.parse(line).id)
    expect(ids).toHaveLength(30)
    expect(new Set(ids).size).toBe(30)
  })

  it.each([
    ['ndjson', ['deposits', 'list', '--all', '--output', 'ndjson', '--per-page', '10']],
    ['csv', ['deposits', 'list', '--all', '--output', 'csv', '--per-page', '10']],
    ['summary', ['deposits', 'summary', '--output', 'csv']],
  ])('1e9 pages of the same two records (%s): exit 7 at the first page, nothing walked', async (_name, args) => {
    const result = await walk('endless', args)
    expect(result.code, result.stderr).toBe(7)
    expect(result.stderr).toMatch(/listing is unusable at page 1: it announces 1000000000 pages, more than the 100,000/)
    expect(result.asked).toBe(1)
    expect(result.stdout.split('\n').length).toBeLessThan(3)
  }, 20_000)

  it.each([
    ['ndjson', ['deposits', 'list', '--all', '--output', 'ndjson', '--per-page', '10', '--concurrency', '4']],
    ['csv', ['deposits', 'list', '--all', '--output', 'csv', '--per-page', '10', '--concurrency', '1']],
    ['json', ['deposits', 'list', '--all', '--output', 'json', '--per-page', '10']],
    ['summary', ['deposits', 'summary', '--output', 'json', '--concurrency', '2']],
  ])('every page repeating the first (%s): exit 7 naming page 2 and the repeated id', async (name, args) => {
    const result = await walk('repeat', args)
    expect(result.code, result.stderr).toBe(7)
    expect(result.stderr).toMatch(/listing is unusable at page 2: record "[0-9a-f-]{36}" was already listed under the same snapshot/)
    // The pages in flight when it stopped, no more.
    expect(result.asked).toBeLessThanOrEqual(6)
    if (name === 'ndjson') expect(result.stdout.trim().split('\n')).toHaveLength(10)
  }, 20_000)

  it.each([
    ['list', ['deposits', 'list', '--all', '--output', 'ndjson', '--per-page', '10']],
    ['summary', ['deposits', 'summary', '--output', 'csv', '--concurrency', '1']],
  ])('a page that answers as page 1 (%s): exit 7 naming the page', async (_name, args) => {
    const result = await walk('stuck', args)
    expect(result.code, result.stderr).toBe(7)
    expect(result.stderr).toMatch(/listing is unusable at page 2: asked for page 2, it answered page 1 \(the page number does not advance\)/)
  }, 20_000)

  it('--json carries the failure as one document', async () => {
    gateway.mode = 'repeat'
    const result = await cli(['deposits', 'summary', '--json'])
    expect(result.code).toBe(7)
    const document = JSON.parse(result.stdout)
    expect(document.error.message).toMatch(/page 2/)
  }, 20_000)
})

describe('IdSet', () => {
  it('tells every new id from a repeat, over more ids than a listing of the largest pages holds', () => {
    const ids = new IdSet()
    const total = 300_000
    const id = (index: number) => `${index.toString(16).padStart(8, '0')}-0000-4000-8000-${index}`
    let refused = 0
    for (let index = 0; index < total; index += 1) if (!ids.add(id(index))) refused += 1
    expect(refused).toBe(0)
    expect(ids.count).toBe(total)
    let repeats = 0
    for (let index = 0; index < total; index += 997) if (!ids.add(id(index))) repeats += 1
    expect(repeats).toBe(Math.ceil(total / 997))
    expect(ids.count).toBe(total)
    expect(MAX_PAGES).toBe(100_000)
  })

  it('is made for the ids a listing announces, at most 2 MiB of them, and still grows past them', () => {
    expect(new IdSet().capacity).toBe(819)
    expect(new IdSet(10_000).capacity).toBe(13_107)
    // 100,000 deposits fit a table of 131,072 slots (1 MiB), made once.
    expect(new IdSet(100_000).capacity).toBe(104_857)
    // A gateway announcing 100,000 pages of 100 does not make it allocate for 10 million.
    const announced = new IdSet(10_000_000)
    expect(announced.capacity).toBe(209_715)
    const ids = new IdSet(10)
    for (let index = 0; index < 5000; index += 1) expect(ids.add(`id-${index}`)).toBe(true)
    expect(ids.capacity).toBeGreaterThanOrEqual(5000)
    for (let index = 0; index < 5000; index += 7) expect(ids.add(`id-${index}`)).toBe(false)
    expect(ids.count).toBe(5000)
  })
})
