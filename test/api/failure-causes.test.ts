import {readFileSync} from 'node:fs'
import {connect, createServer, type Socket} from 'node:net'
import {createServer as createTlsServer} from 'node:tls'

import {Agent} from 'undici'
import {afterAll, afterEach, beforeAll, describe, expect, it, vi} from 'vitest'

import {GatewayClient} from '../../src/api/client.js'
import {CertificateRequiredError, GatewayError, InternalError, UnavailableError} from '../../src/api/errors.js'
import {memoryTokenStore} from '../../src/api/token.js'
import {classifyFailure} from '../../src/api/network.js'
import {describeError, ExitCode} from '../../src/cli/errors.js'
import {stateAfter} from '../../src/journal/journaled.js'
import {runCommand} from '../helpers/context.js'
import {makePki, type Pki} from '../helpers/network.js'
import {control, stats} from '../helpers/sandbox.js'
import {loggedInSandbox} from '../helpers/world.js'

/** An error as Node or undici make them: a message, a code, maybe a system call and a cause. */
const failure = (code: string | undefined, extra: Record<string, unknown> = {}) => Object.assign(new Error(`failed: ${code}`), code === undefined ? {} : {code}, extra)

describe('what a failed request means, by its cause', () => {
  it.each([
    ['connection refused', failure('ECONNREFUSED', {syscall: 'connect'}), 'not-sent'],
    ['host not found', failure('ENOTFOUND', {syscall: 'getaddrinfo'}), 'not-sent'],
    ['host lookup failed', failure('EAI_AGAIN', {syscall: 'getaddrinfo'}), 'not-sent'],
    ['connect timeout', failure('UND_ERR_CONNECT_TIMEOUT'), 'not-sent'],
    ['a plain-http server reached over TLS', failure('ERR_SSL_WRONG_VERSION_NUMBER'), 'not-sent'],
    ['an expired certificate', failure('CERT_HAS_EXPIRED'), 'not-sent'],
    ['a name that does not match', failure('ERR_TLS_CERT_ALTNAME_INVALID'), 'not-sent'],
    ['another failure to connect', failure('EACCES', {syscall: 'connect'}), 'not-sent'],
    ['connection reset', failure('ECONNRESET', {syscall: 'read'}), 'maybe-sent'],
    ['closed by the other side', failure('UND_ERR_SOCKET'), 'maybe-sent'],
    ['no answer in time', failure('UND_ERR_HEADERS_TIMEOUT'), 'maybe-sent'],
    ['an answer cut short', failure('ERR_STREAM_PREMATURE_CLOSE'), 'maybe-sent'],
    ['an answer that is not HTTP', failure('HPE_INVALID_CONSTANT'), 'maybe-sent'],
    ['the deadline', new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 'maybe-sent'],
    ['an answer cut short that the retry handler could not resume', failure('UND_ERR_REQ_RETRY'), 'maybe-sent'],
    ['a reset, wrapped by the retry handler', failure('UND_ERR_REQ_RETRY', {cause: failure('ECONNRESET', {syscall: 'read'})}), 'maybe-sent'],
    ['a client certificate asked for', failure('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED'), 'certificate-required'],
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'length')"), 'internal'],
    ['an option undici refuses', failure('UND_ERR_INVALID_ARG'), 'internal'],
    ["an argument Node refuses", failure('ERR_INVALID_ARG_TYPE'), 'internal'],
    ['an error without a code', new Error('something else'), 'internal'],
  ])('%s: %s', (_name, error, kind) => {
    expect(classifyFailure(error).kind).toBe(kind)
  })
})

describe('the client, against failures of each cause', () => {
  const world = loggedInSandbox()
  let refused: string
  let closer: {close(): void} | undefined

  beforeAll(async () => {
    // A port nothing listens on: the listener is closed before it is used.
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    refused = `http://127.0.0.1:${(server.address() as {port: number}).port}`
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  afterEach(async () => {
    vi.restoreAllMocks()
    await fetch(`${world.sandbox.baseUrl}/_sandbox/faults`, {method: 'DELETE'})
  })
  afterAll(() => closer?.close())

  const clientFor = (baseUrl: string, retries = 3) =>
    new GatewayClient({baseUrl, retries, sleep: async () => {}, tokens: memoryTokenStore({clientId: 'sandbox', clientSecret: 'sandbox-secret'})})

  const charge = {amount: 1000, paymentMethod: 'PIX', pix: {}, idempotencyKey: '6c1f0c1e-2a4b-4f7e-9d51-6b8f0a6e2c11'}
  /** The charge's POST; without the token where the server is no gateway. */
  const post = (client: GatewayClient, headers: Record<string, string> = {}, auth = true) =>
    client.request('POST', '/core/transaction', {json: charge, headers, idempotencyKey: charge.idempotencyKey, context: 'the charge', auth})

  it('an invalid header value, refused by undici before anything leaves: an error of the program (exit 1), not sent, never retried', async () => {
    const charges = async () => (await stats(world.sandbox.baseUrl)).byRoute['POST /core/transaction'] ?? 0
    const before = await charges()
    const client = clientFor(world.sandbox.baseUrl)
    const error = await post(client, {'x-note': 'one\r\ntwo'}).catch((caught: unknown) => caught)
    await client.close()
    expect(error).toBeInstanceOf(InternalError)
    expect(error).not.toBeInstanceOf(UnavailableError)
    expect(error).toMatchObject({notSent: true, retryable: false, attempts: 1})
    expect((error as Error).message).toMatch(/^the charge: an error of this program before the request left, not of the gateway or the network \(InvalidArgumentError UND_ERR_INVALID_ARG: .*\); nothing was sent$/)
    expect(describeError(error).exitCode).toBe(ExitCode.Unexpected)
    expect(stateAfter(error)).toBe('not-sent')
    expect(await charges()).toBe(before)
  })

  it('a TypeError thrown inside the dispatch: exit 1, not sent, one attempt only', async () => {
    const original = Agent.prototype.dispatch
    const dispatch = vi.spyOn(Agent.prototype, 'dispatch').mockImplementation(function (this: Agent, options, handler) {
      if (options.path !== '/core/transaction') return original.call(this, options, handler)
      throw new TypeError("Cannot read properties of undefined (reading 'headers')")
    })
    const client = clientFor(world.sandbox.baseUrl)
    const error = await post(client).catch((caught: unknown) => caught)
    await client.close()
    expect(error).toBeInstanceOf(InternalError)
    expect(error).toMatchObject({notSent: true, attempts: 1})
    expect((error as Error).message).toContain("(TypeError: Cannot read properties of undefined (reading 'headers'))")
    expect(dispatch.mock.calls.filter(([options]) => options.path === '/core/transaction')).toHaveLength(1)
    expect(describeError(error).exitCode).toBe(ExitCode.Unexpected)
  })

  it('connection refused: the gateway unavailable (exit 7), not sent', async () => {
    const client = clientFor(refused, 0)
    const error = await post(client, {}, false).catch((caught: unknown) => caught)
    await client.close()
    expect(error).toBeInstanceOf(UnavailableError)
    expect(error).toMatchObject({notSent: true, retryable: true})
    expect((error as Error).message).toContain('connection refused')
    expect(describeError(error).exitCode).toBe(ExitCode.Unavailable)
    expect(stateAfter(error)).toBe('not-sent')
  })

  it('a failed TLS handshake (a plain-http server reached over TLS): exit 7, not sent, the cause named', async () => {
    const client = clientFor(world.sandbox.baseUrl.replace('http://', 'https://'), 0)
    const error = await post(client, {}, false).catch((caught: unknown) => caught)
    await client.close()
    expect(error).toBeInstanceOf(UnavailableError)
    expect(error).toMatchObject({notSent: true})
    expect((error as Error).message).toContain('this server does not speak TLS')
    expect(describeError(error).exitCode).toBe(ExitCode.Unavailable)
    expect(stateAfter(error)).toBe('not-sent')
  })

  it('a connection reset after the gateway took the request: exit 7, pending', async () => {
    await control(world.sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', kind: 'reset-after'})
    const client = clientFor(world.sandbox.baseUrl, 0)
    const error = await post(client).catch((caught: unknown) => caught)
    await client.close()
    expect(error).toBeInstanceOf(UnavailableError)
    expect(error).toMatchObject({notSent: false, retryable: true})
    expect(describeError(error).exitCode).toBe(ExitCode.Unavailable)
    expect(stateAfter(error)).toBe('pending')
  })

  it('an answer that is not HTTP: exit 7, pending', async () => {
    // A server that reads the request and answers something that is no HTTP.
    const server = createServer((socket: Socket) => socket.once('data', () => socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n')))
    closer = server
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const client = clientFor(`http://127.0.0.1:${(server.address() as {port: number}).port}`, 0)
    const error = await post(client, {}, false).catch((caught: unknown) => caught)
    await client.close()
    expect(error).toBeInstanceOf(UnavailableError)
    expect(error).toMatchObject({notSent: false})
    expect(stateAfter(error)).toBe('pending')
  })

  it('a client certificate asked for and not given is an authentication failure (exit 3), never an outage', () => {
    const error = new CertificateRequiredError('https://pix.example asks for a client certificate, and none was given')
    expect(describeError(error).exitCode).toBe(ExitCode.Auth)
  })
})

describe('a charge or payout that fails inside the program before it leaves', () => {
  const world = loggedInSandbox()
  afterEach(() => vi.restoreAllMocks())

  /** undici handed an option it refuses (a header value with a line break), as a changed dependency might. */
  const badOption = () => {
    const original = Agent.prototype.dispatch
    return vi.spyOn(Agent.prototype, 'dispatch').mockImplementation(function (this: Agent, options, handler) {
      if (options.method !== 'POST' || options.path === '/auth/token') return original.call(this, options, handler)
      return original.call(this, {...options, headers: {...(options.headers as Record<string, string>), 'x-trace': 'a\nb'}}, handler)
    })
  }
  /** A TypeError thrown inside the dispatch. */
  const typeError = () => {
    const original = Agent.prototype.dispatch
    return vi.spyOn(Agent.prototype, 'dispatch').mockImplementation(function (this: Agent, options, handler) {
      if (options.method !== 'POST' || options.path === '/auth/token') return original.call(this, options, handler)
      throw new TypeError("Cannot read properties of undefined (reading 'origin')")
    })
  }

  it.each([
    ['tx create', 'an option undici refuses', ['tx', 'create', '--amount', '1500', '--json'], badOption],
    ['tx create', 'a TypeError', ['tx', 'create', '--amount', '1600'], typeError],
    ['withdraw', 'an option undici refuses', ['withdraw', '--amount', '2500', '--pix-key', 'maria@example.com', '--yes', '--json'], badOption],
    ['withdraw', 'a TypeError', ['withdraw', '--amount', '2600', '--pix-key', 'maria@example.com', '--yes'], typeError],
  ] as const)('%s (%s): exit 1, its entry not sent, and `journal retry` sends nothing', async (_name, _cause, argv, inject) => {
    const env = world.env
    const sent = async () => {
      const {byRoute, requests} = await stats(world.sandbox.baseUrl)
      return {requests, money: (byRoute['POST /core/transaction'] ?? 0) + (byRoute['POST /core/withdraw'] ?? 0)}
    }
    const before = await sent()
    const injected = inject()
    const result = await runCommand([...argv], {env})
    injected.mockRestore()
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/Error: .*an error of this program before the request left, not of the gateway or the network \((InvalidArgumentError UND_ERR_INVALID_ARG|TypeError): .*\); nothing was sent/)
    expect(result.stderr).not.toContain('could not reach the gateway')
    if ((argv as readonly string[]).includes('--json')) expect(JSON.parse(result.stdout)).toMatchObject({error: {code: 'INTERNAL', exitCode: 1}})
    expect(await sent()).toEqual(before)
    // The journal says it never left: not pending, so nothing replays it.
    const journal = await runCommand(['journal', 'list', '--json'], {env})
    const entries = JSON.parse(journal.stdout) as Array<{state: string; error?: {code: string}}>
    expect(entries.at(-1)).toMatchObject({state: 'not-sent', error: {code: 'INTERNAL'}})
    const retried = await runCommand(['journal', 'retry', '--yes', '--json'], {env})
    expect(retried.code).toBe(0)
    expect(JSON.parse(retried.stdout)).toMatchObject({retried: [], pending: 0})
    expect((await sent()).money).toBe(before.money)
  })
})

/**
 * The first attempt reaches the gateway, which acts, and its answer is lost (the sandbox's
 * reset-after); the retry then fails before it could reach anything: a TLS handshake refused, a
 * connection refused. Whatever the last attempt met, the request may have been acted on: pending,
 * never "nothing was sent".
 */
describe('an answer lost, then a retry that fails before it leaves', () => {
  const world = loggedInSandbox()
  let pki: Pki
  let front: {port: number; close(): Promise<void>} | undefined
  beforeAll(() => {
    pki = makePki()
  })
  afterEach(async () => {
    await front?.close()
    front = undefined
    await fetch(`${world.sandbox.baseUrl}/_sandbox/faults`, {method: 'DELETE'})
  })
  afterAll(() => pki.remove())

  /**
   * TLS on 127.0.0.1 in front of the sandbox, with the trusted certificate until the charge has gone
   * through it; each connection after that as `later` says (an expired certificate, or closed before
   * any byte).
   */
  const switchingFront = async (later: 'expired' | 'refused'): Promise<{port: number; close(): Promise<void>}> => {
    let charged = false
    const open = new Set<Socket>()
    const upstream = Number(new URL(world.sandbox.baseUrl).port)
    const serve = (options: {cert: string; key: string}) =>
      createTlsServer({cert: readFileSync(options.cert), key: readFileSync(options.key)}, (socket) => {
        const gateway = connect(upstream, '127.0.0.1')
        // Once the charge has gone through to the gateway, every new connection fails.
        socket.on('data', (chunk: Buffer) => {
          if (!chunk.includes('POST /core/transaction')) return
          charged = true
          // Idle connections kept alive from before are closed, so that the retry needs a new one.
          for (const other of open) if (other !== socket) other.destroy()
        })
        open.add(socket)
        socket.on('close', () => open.delete(socket))
        socket.pipe(gateway).pipe(socket)
        const end = () => (socket.destroy(), gateway.destroy())
        socket.on('error', end)
        gateway.on('error', end)
      }).on('tlsClientError', () => undefined)
    const good = serve(pki.server)
    const bad = serve(pki.expired)
    const sockets = new Set<Socket>()
    const server = createServer((socket) => {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      if (!charged) good.emit('connection', socket)
      else if (later === 'expired') bad.emit('connection', socket)
      else socket.destroy()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return {
      port: (server.address() as {port: number}).port,
      close: () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy()
          server.close(() => resolve())
        }),
    }
  }

  const charge = {amount: 1000, paymentMethod: 'PIX', pix: {}, idempotencyKey: '7d2a0c1e-2a4b-4f7e-9d51-6b8f0a6e2c12'}
  const charges = async () => (await stats(world.sandbox.baseUrl)).byRoute['POST /core/transaction'] ?? 0

  it.each([
    ['a TLS handshake that fails (an expired certificate)', 'expired' as const],
    ['a connection closed before any byte', 'refused' as const],
  ])('the retry meets %s: the charge was made, the entry stays pending, the message says so', async (_name, later) => {
    front = await switchingFront(later)
    await control(world.sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', kind: 'reset-after'})
    const before = await charges()
    const client = new GatewayClient({
      baseUrl: `https://127.0.0.1:${front.port}`,
      retries: 2,
      sleep: async () => {},
      tls: {caFile: pki.ca},
      tokens: memoryTokenStore({clientId: 'sandbox', clientSecret: 'sandbox-secret'}),
    })
    // The token first, over the first (trusted) connection, kept alive for the charge.
    const error = await client
      .request('POST', '/core/transaction', {json: charge, idempotencyKey: charge.idempotencyKey, context: 'the charge'})
      .catch((caught: unknown) => caught)
    await client.close()
    // The gateway made the charge on the first attempt.
    expect(await charges()).toBe(before + 1)
    expect(error).toBeInstanceOf(GatewayError)
    expect(error).toMatchObject({notSent: false})
    expect(stateAfter(error)).toBe('pending')
    expect((error as Error).message).not.toContain('nothing was sent')
    if (later === 'expired') {
      // The TLS failure is named, and the message says what the earlier attempt may have done.
      expect((error as Error).message).toContain('expired certificate')
      expect((error as Error).message).toContain('an earlier attempt may have reached the gateway: the gateway may have made it; idempotency key 7d2a0c1e-2a4b-4f7e-9d51-6b8f0a6e2c12')
    }
    expect(describeError(error).exitCode).not.toBe(ExitCode.Usage)
  })
})
