// The sandbox writes pages of deposits into buffers it uses again once an answer has been handed to
// the system (src/sandbox/http/page-buffers.ts). What must hold: a buffer is never written again
// while an answer still reads from it, whatever the connections do (many at once, slow readers,
// clients that go away mid-answer).
import {EventEmitter} from 'node:events'
import {request, type ServerResponse} from 'node:http'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {DepositPage} from '../../src/api/types.js'
import {PageBuffers} from '../../src/sandbox/http/page-buffers.js'
import {writeReply} from '../../src/sandbox/http/reply.js'
import {startTestSandbox, tokenFor, type Sandbox} from '../helpers/sandbox.js'

describe('the page buffers', () => {
  it('give a buffer back for a page of about its size, and keep no more than 32', () => {
    const buffers = new PageBuffers()
    const first = buffers.take(110_000)
    expect(first.length).toBeGreaterThanOrEqual(110_000)
    buffers.give(first.subarray(0, 109_000))
    expect(buffers.size).toBe(1)
    // A page of about the same size takes it again, its whole length, whatever view was given back.
    const again = buffers.take(108_000)
    expect(again.buffer).toBe(first.buffer)
    expect(again.length).toBe(first.length)
    expect(buffers.size).toBe(0)
    // A small page does not take a large buffer, nor a large page a small one.
    buffers.give(again)
    expect(buffers.take(2_000).buffer).not.toBe(first.buffer)
    expect(buffers.take(300_000).buffer).not.toBe(first.buffer)
    // Nothing it did not make, and nothing twice.
    const before = buffers.size
    buffers.give(Buffer.allocUnsafe(100))
    buffers.give(Buffer.alloc(110_000))
    const twice = buffers.take(200_000)
    buffers.give(twice)
    buffers.give(twice.subarray(0, 10))
    expect(buffers.size).toBe(before + 1)
    const many = Array.from({length: 40}, () => buffers.take(50_000))
    for (const buffer of many) buffers.give(buffer)
    expect(buffers.size).toBe(32)
  })
})

describe('an answer written from a buffer used again', () => {
  /** A response whose body the system takes when the test says so ('finish'), or never ('close'). */
  class Response extends EventEmitter {
    ended: unknown
    writeHead(): this {
      return this
    }
    end(body: unknown): void {
      this.ended = body
    }
  }
  const response = () => new Response()

  it('gives its buffer back once the system has the whole body, not when it is handed to Node', () => {
    for (const last of ['finish', 'close'] as const) {
      const res = response()
      let given = 0
      const body = Buffer.from('{"data":[]}')
      writeReply(res as unknown as ServerResponse, {status: 200, json: body, sent: () => given++})
      expect(res.ended).toBe(body)
      // Node may still be writing it: the socket took part of it, the rest waits in Node's queue.
      expect(given, last).toBe(0)
      res.emit(last)
      expect(given, last).toBe(1)
      // A response that finishes and then closes gives it back once.
      res.emit('close')
      res.emit('finish')
      expect(given, last).toBe(1)
    }
  })
})

describe('pages of deposits answered from buffers used again', () => {
  let sandbox: Sandbox
  let token: string
  let snapshot: string
  const pages = 30
  /** Each page's ids and number, from one request at a time. */
  const expected = new Map<number, {currentPage: number; ids: string[]}>()
  const path = (page: number) => `/core/deposit?page=${page}&perPage=100&snapshot=${snapshot}`
  const shape = (body: DepositPage) => ({currentPage: body.currentPage, ids: body.data.map((deposit) => deposit.id)})

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: pages * 100})
    token = await tokenFor(sandbox.baseUrl)
    const first = (await (await fetch(`${sandbox.baseUrl}/core/deposit?page=1&perPage=100`, {headers: {authorization: `Bearer ${token}`}})).json()) as DepositPage
    snapshot = first.snapshot!
    for (let page = 1; page <= pages; page++) {
      const body = (await (await fetch(`${sandbox.baseUrl}${path(page)}`, {headers: {authorization: `Bearer ${token}`}})).json()) as DepositPage
      expected.set(page, shape(body))
    }
  })
  afterAll(async () => {
    await sandbox.close()
  })

  /** GETs a page; a slow reader waits before reading each chunk, a leaver goes away after its first chunk. */
  function get(page: number, how: 'fast' | 'slow' | 'leave'): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      const req = request(`${sandbox.baseUrl}${path(page)}`, {headers: {authorization: `Bearer ${token}`}, agent: false}, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => {
          if (how === 'leave') {
            req.destroy()
            resolve(undefined)
            return
          }
          chunks.push(chunk)
          if (how === 'slow') {
            res.pause()
            setTimeout(() => res.resume(), 5)
          }
        })
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
        res.on('error', (error) => (how === 'leave' ? resolve(undefined) : reject(error)))
      })
      req.on('error', (error) => (how === 'leave' ? resolve(undefined) : reject(error)))
      req.end()
    })
  }

  it('answers every page whole and as itself, with many at once, slow readers and clients that leave', async () => {
    const hows = ['fast', 'slow', 'leave'] as const
    const asked = Array.from({length: 240}, (_, index) => ({page: (index % pages) + 1, how: hows[index % 3]}))
    const answers = await Promise.all(asked.map(({page, how}) => get(page, how)))
    let checked = 0
    for (const [index, text] of answers.entries()) {
      if (asked[index].how === 'leave') continue
      expect(text, `page ${asked[index].page}`).toBeDefined()
      expect(shape(JSON.parse(text!) as DepositPage)).toEqual(expected.get(asked[index].page))
      checked++
    }
    expect(checked).toBe(160)
  }, 60_000)
})
