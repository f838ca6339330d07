import {execFileSync} from 'node:child_process'
import {chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer as createHttpServer, type IncomingMessage} from 'node:http'
import {connect as netConnect, createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createServer as createTlsServer, type TlsOptions} from 'node:tls'

import {createProxy} from 'proxy'

/**
 * The real things a network test needs, on loopback: a CA of the test's own with the certificates
 * it signs (made with the openssl CLI), TLS gateways in front of a sandbox, and an HTTP proxy.
 */

/** The host name a gateway behind a proxy has: only the test proxy knows where it is (127.0.0.1). */
export const REMOTE_HOST = 'gateway.test'

/** The machine's own network variables (proxies, CAs, TLS checks), cleared for a test's process: it sees only what the test sets. */
export const NO_MACHINE_NETWORK = {
  HTTPS_PROXY: undefined,
  https_proxy: undefined,
  HTTP_PROXY: undefined,
  http_proxy: undefined,
  NO_PROXY: undefined,
  no_proxy: undefined,
  ALL_PROXY: undefined,
  all_proxy: undefined,
  SSL_CERT_FILE: undefined,
  SSL_CERT_DIR: undefined,
  NODE_EXTRA_CA_CERTS: undefined,
  NODE_TLS_REJECT_UNAUTHORIZED: undefined,
} as const

export interface Pki {
  dir: string
  /** CA certificate (PEM file). */
  ca: string
  /** Server certificates: for 127.0.0.1, localhost and gateway.test; expired; for another name. */
  server: {cert: string; key: string}
  expired: {cert: string; key: string}
  otherName: {cert: string; key: string}
  /** A client certificate signed by the CA, its key (mode 0600), and both as a .p12 (mode 0600) with its passphrase. */
  client: {cert: string; key: string; p12: string; passphrase: string}
  read(path: string): Buffer
  remove(): void
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, {cwd, stdio: ['ignore', 'ignore', 'pipe']})
}

/** Makes a CA and the certificates the tests use, in a fresh folder. */
export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-pki-'))
  const key = (name: string) => openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}.key`], dir)
  key('ca')
  openssl(['req', '-x509', '-new', '-key', 'ca.key', '-out', 'ca.pem', '-days', '30', '-subj', '/CN=Gateway Test CA'], dir)
  const sign = (name: string, subject: string, days: string, extensions?: string) => {
    key(name)
    openssl(['req', '-new', '-key', `${name}.key`, '-out', `${name}.csr`, '-subj', subject], dir)
    const args = ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', days]
    if (extensions) {
      writeFileSync(join(dir, `${name}.ext`), `${extensions}\n`)
      args.push('-extfile', `${name}.ext`)
    }
    openssl(args, dir)
  }
  const names = `subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:${REMOTE_HOST}`
  sign('server', '/CN=gateway.test', '30', names)
  // A negative lifetime: it ended the moment it began.
  sign('expired', '/CN=gateway.test', '-1', names)
  sign('other', '/CN=other.example', '30', 'subjectAltName=DNS:other.example')
  sign('client', '/CN=gateway-client', '30', 'extendedKeyUsage=clientAuth')
  const passphrase = 'p12-passphrase-3f9a'
  openssl(['pkcs12', '-export', '-in', 'client.pem', '-inkey', 'client.key', '-out', 'client.p12', '-passout', `pass:${passphrase}`], dir)
  for (const name of ['ca', 'server', 'expired', 'other', 'client']) chmodSync(join(dir, `${name}.key`), 0o600)
  chmodSync(join(dir, 'client.p12'), 0o600)
  const path = (name: string) => join(dir, name)
  return {
    dir,
    ca: path('ca.pem'),
    server: {cert: path('server.pem'), key: path('server.key')},
    expired: {cert: path('expired.pem'), key: path('expired.key')},
    otherName: {cert: path('other.pem'), key: path('other.key')},
    client: {cert: path('client.pem'), key: path('client.key'), p12: path('client.p12'), passphrase},
    read: (file) => readFileSync(file),
    remove: () => rmSync(dir, {recursive: true, force: true}),
  }
}

export interface Listening {
  port: number
  /** Connections accepted. */
  connections(): number
  close(): Promise<void>
}

function listen(server: NetServer, sockets: Set<Socket>): Promise<number> {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)))
}

function closer(server: NetServer, sockets: Set<Socket>): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
}

/**
 * A TLS gateway: TLS on 127.0.0.1 in front of an http server (the sandbox) at `upstreamPort`,
 * with the certificate and options given (requestCert for mutual TLS, maxVersion...).
 */
export async function tlsFront(upstreamPort: number, options: TlsOptions): Promise<Listening & {handshakes(): number; clientCertificates(): Array<string | undefined>}> {
  let handshakes = 0
  let connections = 0
  // The subject (CN) of the client certificate each handshake showed, or undefined where none was.
  const shown: Array<string | undefined> = []
  const server = createTlsServer(options, (socket) => {
    handshakes += 1
    const peer = socket.getPeerCertificate()
    shown.push(peer && Object.keys(peer).length > 0 ? String(peer.subject?.CN) : undefined)
    const upstream = netConnect(upstreamPort, '127.0.0.1')
    socket.pipe(upstream).pipe(socket)
    const end = () => {
      socket.destroy()
      upstream.destroy()
    }
    socket.on('error', end)
    upstream.on('error', end)
  })
  server.on('connection', () => (connections += 1))
  server.on('tlsClientError', () => undefined)
  const sockets = new Set<Socket>()
  const port = await listen(server, sockets)
  return {port, connections: () => connections, handshakes: () => handshakes, clientCertificates: () => [...shown], close: closer(server, sockets)}
}

/** An https server whose every answer is `status` with `body` (an HTML page, say), as a web server in front of a gateway answers. */
export async function tlsPage(options: TlsOptions, status: number, body: string): Promise<Listening> {
  const {createServer} = await import('node:https')
  let connections = 0
  const server = createServer(options, (request, response) => {
    request.resume()
    response.writeHead(status, {'content-type': 'text/html'})
    response.end(body)
  })
  server.on('connection', () => (connections += 1))
  const sockets = new Set<Socket>()
  const port = await listen(server, sockets)
  return {port, connections: () => connections, close: closer(server, sockets)}
}

export interface ProxyLog {
  method: string
  target: string
  authorization?: string
}

/**
 * A real HTTP proxy (the `proxy` package) on 127.0.0.1, that logs every request it gets and reaches
 * REMOTE_HOST at 127.0.0.1. With `credentials` it asks for them (407 without).
 */
export async function startProxy(options: {credentials?: {user: string; password: string}} = {}): Promise<Listening & {log: ProxyLog[]}> {
  const log: ProxyLog[] = []
  const server = createProxy(createHttpServer())
  const note = (request: IncomingMessage) => {
    const authorization = request.headers['proxy-authorization']
    log.push({method: request.method ?? '', target: request.url ?? '', ...(authorization ? {authorization: String(authorization)} : {})})
    // Only this proxy knows where the remote gateway is.
    if (request.url?.startsWith(`${REMOTE_HOST}:`)) request.url = request.url.replace(REMOTE_HOST, '127.0.0.1')
  }
  server.prependListener('connect', note)
  server.prependListener('request', note)
  if (options.credentials) {
    const expected = `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString('base64')}`
    server.authenticate = (request) => request.headers['proxy-authorization'] === expected
  }
  const sockets = new Set<Socket>()
  const port = await listen(server, sockets)
  let connections = 0
  server.on('connection', () => (connections += 1))
  return {port, log, connections: () => connections, close: closer(server, sockets)}
}

/** A port on 127.0.0.1 where nothing listens (it was free a moment ago). */
export async function deadPort(): Promise<number> {
  const server = createNetServer()
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)))
  await new Promise((resolve) => server.close(resolve))
  return port
}
