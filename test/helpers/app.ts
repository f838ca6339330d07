import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

export interface AppRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
}

/** An operator's app on 127.0.0.1 (any free port, or `port`): records every request and answers with `status` (changeable). */
export interface TestApp {
  url: string
  requests: AppRequest[]
  status: number
  /** Resolves once `count` requests have arrived. */
  received(count: number): Promise<AppRequest[]>
  close(): Promise<void>
}

export async function startTestApp(status = 200, port = 0): Promise<TestApp> {
  const waiters: Array<{count: number; resolve: (requests: AppRequest[]) => void}> = []
  const app: TestApp = {
    url: '',
    requests: [],
    status,
    received(count) {
      if (app.requests.length >= count) return Promise.resolve(app.requests)
      return new Promise((resolve) => waiters.push({count, resolve}))
    },
    close: async () => {},
  }
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    app.requests.push({method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8')})
    res.writeHead(app.status, {'content-type': 'application/json'}).end(JSON.stringify({ok: app.status < 300}))
    for (const waiter of waiters.filter((entry) => app.requests.length >= entry.count)) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve(app.requests)
    }
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  app.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  app.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  return app
}

/** A port nothing listens on: one that was just free. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
