import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

export interface Received {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: Record<string, unknown>
}

/**
 * A local webhook receiver on 127.0.0.1, any free port: it keeps every request it gets and
 * answers `status` (200 unless told otherwise), or never answers while `hang` is set.
 */
export async function startListener(options: {status?: number; hang?: boolean} = {}) {
  const received: Received[] = []
  const waiters: Array<{count: number; resolve: () => void}> = []
  const settings = {status: options.status ?? 200, hang: options.hang ?? false}
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      received.push({method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : {}})
      for (const waiter of waiters.filter((candidate) => received.length >= candidate.count)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
      if (settings.hang) return
      res.writeHead(settings.status, {'content-type': 'text/plain'})
      res.end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    settings,
    /** Resolves once `count` requests in all have arrived. */
    waitFor(count: number): Promise<void> {
      if (received.length >= count) return Promise.resolve()
      return new Promise((resolve) => waiters.push({count, resolve}))
    },
    close(): Promise<void> {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

export type Listener = Awaited<ReturnType<typeof startListener>>

/** A port nothing listens on: one a listener had, closed again. */
export async function closedPort(): Promise<string> {
  const listener = await startListener()
  await listener.close()
  return listener.url
}
