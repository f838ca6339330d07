import {createServer, request, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

/**
 * A gateway whose deposit listing breaks the paging contract, for tests: a proxy in front of a real
 * sandbox that passes everything through (the token, the records) but rewrites the answers of
 * GET /core/deposit as its mode says.
 *
 * - `endless`: every page announces 1e9 pages and holds the same first two records;
 * - `repeat`: every page announces 50 pages, answers as the page asked for, and holds the
 *   records of the sandbox's first page;
 * - `stuck`: every page holds the records asked for, but says it is page 1 of at least 3;
 * - `pass`: the sandbox's answers as they are.
 */
export type PagingMode = 'pass' | 'endless' | 'repeat' | 'stuck'

export interface HostilePages {
  baseUrl: string
  mode: PagingMode
  /** The deposit pages asked for so far. */
  readonly pagesAsked: number
  close(): Promise<void>
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

export async function startHostilePages(upstream: string, mode: PagingMode = 'pass'): Promise<HostilePages> {
  const target = new URL(upstream)
  const state = {mode, pagesAsked: 0}
  const server: Server = createServer(async (req, res) => {
    const sent = await body(req)
    const url = new URL(req.url ?? '/', 'http://gateway.test')
    const listing = req.method === 'GET' && url.pathname === '/core/deposit'
    const asked = Number(url.searchParams.get('page') ?? 1)
    if (listing) {
      state.pagesAsked += 1
      // The records of the first page, whatever page was asked for.
      if (state.mode === 'endless' || state.mode === 'repeat') url.searchParams.set('page', '1')
    }
    const forwarded = request(
      {host: target.hostname, port: target.port, method: req.method, path: `${url.pathname}${url.search}`, headers: {...req.headers, host: target.host}},
      async (answer) => {
        const text = (await body(answer)).toString('utf8')
        const headers = {...answer.headers}
        delete headers['content-length']
        let out = text
        if (listing && answer.statusCode === 200 && state.mode !== 'pass') {
          const page = JSON.parse(text) as {totalPages: number; currentPage: number; data: unknown[]}
          if (state.mode === 'endless') Object.assign(page, {totalPages: 1e9, currentPage: asked, data: page.data.slice(0, 2)})
          if (state.mode === 'repeat') Object.assign(page, {totalPages: 50, currentPage: asked})
          if (state.mode === 'stuck') Object.assign(page, {currentPage: 1, totalPages: Math.max(page.totalPages, 3)})
          out = JSON.stringify(page)
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
    get mode() {
      return state.mode
    },
    set mode(value: PagingMode) {
      state.mode = value
    },
    get pagesAsked() {
      return state.pagesAsked
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
