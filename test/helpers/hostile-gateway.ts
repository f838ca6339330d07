import {createServer, request, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

/**
 * A hostile gateway for tests: a proxy in front of a real sandbox that answers what the sandbox
 * answers, with terminal escapes in every text value and key of every JSON answer (a title-setting
 * OSC, a screen clear, a C1 CSI, a bidi override), and, when told, a token endpoint that echoes the
 * form it was sent (the client secret in its URL-encoded spelling) in its error, or a 201 without the
 * record (an HTML page) to a create or a withdrawal the sandbox behind it did carry out.
 */

/** What every text from this gateway carries. */
export const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202e'

/** Any control character the CLI must never print raw: C0 but \n, C1, DEL, bidi overrides. */
export const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

/** An answer of the hostile gateway's own, instead of the sandbox's. */
export interface OwnAnswer {
  status?: number
  headers?: Record<string, string>
  /** The body, written at once. */
  body?: string
  /** A body of this many bytes of JSON-looking filler, written in 1 MiB chunks as the client takes them (no length declared). */
  bytes?: number
  /** Drip the body one byte every this many milliseconds. */
  dripMs?: number
}

export interface HostileRequest {
  method: string
  url: string
  body: string
  /** The Authorization header it carried, if any. */
  authorization?: string
}

export interface HostileGateway {
  baseUrl: string
  /** Every text value of every JSON answer poisoned with HOSTILE (default true). */
  poisonAll: boolean
  /** An answer of its own for a request (undefined: the sandbox's answer, as usual). */
  answer?: (request: HostileRequest) => OwnAnswer | undefined
  /** Changes the sandbox's JSON answer (after poisoning, when on) before it is sent. */
  rewrite?: (request: HostileRequest, body: unknown) => unknown
  /** Every request it was sent, in order. */
  readonly requests: HostileRequest[]
  /** Bytes of body written by the last answer of its own (how much of a huge one the client took). */
  readonly sentBytes: number
  /** Echo the token request's form body in a 400, as a careless identity provider might. */
  echoToken: boolean
  /** Pass creates and withdrawals on to the sandbox (which makes the record), then answer 201 with an HTML page instead. */
  noRecord: boolean
  close(): Promise<void>
}

/** Every string in a JSON value, keys included, with the hostile text after it (the token's fields spared, so logging in works). */
export function poison(value: unknown, spare: ReadonlySet<string> = new Set()): unknown {
  if (typeof value === 'string') return `${value}${HOSTILE}`
  if (Array.isArray(value)) return value.map((item) => poison(item, spare))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, inner] of Object.entries(value)) {
      if (spare.has(key)) out[key] = inner
      else out[key] = poison(inner, spare)
    }
    // A key of its own, from outside too.
    out[`note${HOSTILE}`] = `x${HOSTILE}`
    return out
  }
  return value
}

 /** The fields a client needs as they are to work at all: the token, ids it sends back, the dates it computes with, paging. */
const SPARED = new Set(['access_token', 'token_type', 'expires_in', 'expires_in_sec', 'scope', 'id', 'createdAt', 'updatedAt', 'expirationDate', 'currentPage', 'totalPages', 'perPage', 'total', 'snapshotExpiresAt'])

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** Writes an answer of the hostile gateway's own: at once, huge (streamed as the client reads), or dripping. */
async function answerOwn(res: import('node:http').ServerResponse, own: OwnAnswer, count: (bytes: number) => void): Promise<void> {
  res.on('error', () => undefined)
  res.writeHead(own.status ?? 200, {'content-type': 'application/json', ...own.headers})
  if (own.bytes !== undefined) {
    const chunk = Buffer.alloc(1024 * 1024, 0x20)
    chunk.write('{"id":"')
    let left = own.bytes
    while (left > 0 && !res.destroyed) {
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left)
      left -= part.length
      count(part.length)
      if (!res.write(part)) await new Promise((resolve) => {
        res.once('drain', resolve)
        res.once('close', resolve)
      })
    }
    if (!res.destroyed) res.end()
    return
  }
  const text = own.body ?? ''
  if (own.dripMs !== undefined) {
    for (const char of text) {
      if (res.destroyed) return
      res.write(char)
      await new Promise((resolve) => setTimeout(resolve, own.dripMs))
    }
    if (!res.destroyed) res.end()
    return
  }
  res.end(text)
}

export async function startHostileGateway(upstream: string): Promise<HostileGateway> {
  const target = new URL(upstream)
  const state: {echoToken: boolean; noRecord: boolean; poisonAll: boolean; sentBytes: number; answer?: HostileGateway['answer']; rewrite?: HostileGateway['rewrite']} = {
    echoToken: false,
    noRecord: false,
    poisonAll: true,
    sentBytes: 0,
  }
  const requests: HostileRequest[] = []
  const server: Server = createServer(async (req, res) => {
    const sent = await body(req)
    const seen: HostileRequest = {method: req.method ?? 'GET', url: req.url ?? '/', body: sent.toString('utf8'), authorization: req.headers.authorization}
    requests.push(seen)
    const own = state.answer?.(seen)
    if (own) {
      state.sentBytes = 0
      await answerOwn(res, own, (bytes) => (state.sentBytes += bytes))
      return
    }
    if (state.echoToken && req.url === '/auth/token') {
      res.writeHead(400, {'content-type': 'application/json'})
      res.end(JSON.stringify({error: 'invalid_client', error_description: `could not read ${sent.toString('utf8')}`}))
      return
    }
    const forwarded = request(
      {host: target.hostname, port: target.port, method: req.method, path: req.url, headers: {...req.headers, host: target.host}},
      async (answer) => {
        const text = (await body(answer)).toString('utf8')
        const headers = {...answer.headers}
        delete headers['content-length']
        let out = text
        if (state.noRecord && req.method === 'POST' && /^\/core\/(transaction|withdraw)$/.test(req.url ?? '')) {
          res.writeHead(201, {'content-type': 'text/html'})
          res.end('<html><body>Created</body></html>')
          return
        }
        if (String(answer.headers['content-type'] ?? '').includes('json') && text) {
          const parsed = JSON.parse(text) as Record<string, unknown>
          const shown = req.url === '/auth/token' || !state.poisonAll ? parsed : poison(parsed, SPARED)
          out = JSON.stringify(state.rewrite ? state.rewrite(seen, shown) : shown)
        }
        res.writeHead(answer.statusCode ?? 502, headers)
        res.end(out)
      },
    )
    forwarded.on('error', () => res.destroy())
    forwarded.end(sent)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    get echoToken() {
      return state.echoToken
    },
    set echoToken(value: boolean) {
      state.echoToken = value
    },
    requests,
    get sentBytes() {
      return state.sentBytes
    },
    get poisonAll() {
      return state.poisonAll
    },
    set poisonAll(value: boolean) {
      state.poisonAll = value
    },
    get answer() {
      return state.answer
    },
    set answer(value) {
      state.answer = value
    },
    get rewrite() {
      return state.rewrite
    },
    set rewrite(value) {
      state.rewrite = value
    },
    get noRecord() {
      return state.noRecord
    },
    set noRecord(value: boolean) {
      state.noRecord = value
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
