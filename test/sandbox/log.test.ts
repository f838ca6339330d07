import {randomUUID} from 'node:crypto'
import {connect} from 'node:net'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {control, startTestSandbox, tokenFor, type Sandbox} from '../helpers/sandbox.js'

const LINE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z) (\S+) (\S+) (\S+) (\d+)ms (\S+)$/

describe('the request log', () => {
  let sandbox: Sandbox
  const lines: string[] = []
  /** The fields of the lines logged since `from`. */
  const logged = (from: number) =>
    lines.slice(from).map((line) => {
      const match = LINE.exec(line)
      if (!match) throw new Error(`not a log line: ${line}`)
      const [, , method, path, outcome, , client] = match
      return {method, path, outcome, client}
    })

  beforeAll(async () => {
    sandbox = await startTestSandbox({log: (line) => lines.push(line)})
  })
  afterAll(() => sandbox.close())

  it('logs one line per request: method, path without its query, status, duration and client id', async () => {
    const from = lines.length
    const token = await tokenFor(sandbox.baseUrl)
    const authorization = {authorization: `Bearer ${token}`}
    await fetch(`${sandbox.baseUrl}/core/deposit?status=PAID&perPage=5`, {headers: authorization})
    await fetch(`${sandbox.baseUrl}/core/transaction`, {
      method: 'POST',
      headers: {...authorization, 'content-type': 'application/json'},
      body: JSON.stringify({amount: 100, paymentMethod: 'PIX', idempotencyKey: randomUUID(), pix: {}}),
    })
    await fetch(`${sandbox.baseUrl}/core/transaction/${randomUUID()}`)
    await fetch(`${sandbox.baseUrl}/nowhere`)
    expect(logged(from)).toEqual([
      {method: 'POST', path: '/auth/token', outcome: '200', client: 'sandbox'},
      {method: 'GET', path: '/core/deposit', outcome: '200', client: 'sandbox'},
      {method: 'POST', path: '/core/transaction', outcome: '201', client: 'sandbox'},
      {method: 'GET', path: expect.stringMatching(/^\/core\/transaction\//), outcome: '401', client: '-'},
      {method: 'GET', path: '/nowhere', outcome: '404', client: '-'},
    ])
    expect(lines.slice(from).join('\n')).not.toContain('sandbox-secret')
    expect(lines.slice(from).join('\n')).not.toContain(token)
  })

  it('logs a reset connection as reset, and a request the parser refused', async () => {
    await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'GET /core/deposit', kind: 'reset'})
    const token = await tokenFor(sandbox.baseUrl)
    const from = lines.length
    await fetch(`${sandbox.baseUrl}/core/deposit`, {headers: {authorization: `Bearer ${token}`}}).catch(() => undefined)
    expect(logged(from)).toEqual([{method: 'GET', path: '/core/deposit', outcome: 'reset', client: 'sandbox'}])
    const garbage = connect(sandbox.port, '127.0.0.1', () => garbage.write('GARBAGE\r\n\r\n'))
    garbage.resume()
    await new Promise((resolve) => garbage.on('close', resolve))
    expect(logged(from + 1)).toEqual([{method: '-', path: '-', outcome: '400', client: '-'}])
  })
})
