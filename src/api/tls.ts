import {closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, statSync} from 'node:fs'
import {dirname, isAbsolute, join, resolve, sep} from 'node:path'

import {AuthError, ConfigError} from './errors.js'

/**
 * TLS for the gateway: which certificate authorities are trusted, which client certificate is
 * shown, and what a failed handshake means, in words, with its fix.
 */

/** A client certificate and trusted CAs, as a profile or the environment gives them: paths only. */
export interface TlsSettings {
  /** PEM file of CA certificates trusted for this gateway, beyond the usual ones. */
  caFile?: string
  /** PEM certificate (chain) and its key. */
  cert?: string
  key?: string
  /** PKCS#12 file holding the certificate and its key. */
  p12?: string
  /** The passphrase of the key or the .p12 file: a secret. */
  passphrase?: string
}

/** Where each setting came from, for messages: the flag and the variable that set it. */
export const TLS_SOURCES = {
  caFile: {flag: '--ca-file', variable: 'GATEWAY_CA_FILE'},
  cert: {flag: '--cert', variable: 'GATEWAY_CERT'},
  key: {flag: '--key', variable: 'GATEWAY_KEY'},
  p12: {flag: '--p12', variable: 'GATEWAY_P12'},
} as const

/** The environment's settings (GATEWAY_CA_FILE, GATEWAY_CERT, GATEWAY_KEY, GATEWAY_P12, GATEWAY_CERT_PASSPHRASE) over the profile's. */
export function tlsSettings(env: NodeJS.ProcessEnv, stored: TlsSettings = {}): TlsSettings {
  const pick = (name: string) => env[name]?.trim() || undefined
  const fromEnv: TlsSettings = {
    caFile: pick('GATEWAY_CA_FILE'),
    cert: pick('GATEWAY_CERT'),
    key: pick('GATEWAY_KEY'),
    p12: pick('GATEWAY_P12'),
  }
  // A certificate given by the environment replaces the profile's whole: never its cert with the profile's key.
  const certFromEnv = fromEnv.cert !== undefined || fromEnv.key !== undefined || fromEnv.p12 !== undefined
  const settings: TlsSettings = {
    caFile: fromEnv.caFile ?? stored.caFile,
    ...(certFromEnv ? {cert: fromEnv.cert, key: fromEnv.key, p12: fromEnv.p12} : {cert: stored.cert, key: stored.key, p12: stored.p12}),
    passphrase: env.GATEWAY_CERT_PASSPHRASE || stored.passphrase,
  }
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) as TlsSettings
}

/** Whether the settings show a client certificate. */
export function hasClientCertificate(settings: TlsSettings): boolean {
  return Boolean(settings.p12 || settings.cert)
}

/** The settings checked for sense: a certificate with its key, or a .p12, not both. Throws a ConfigError (exit 2). */
export function checkTlsSettings(settings: TlsSettings): void {
  if (settings.p12 && (settings.cert || settings.key)) {
    throw new ConfigError('a client certificate is given both as a .p12 file and as PEM files: give --p12, or --cert with --key, not both')
  }
  if (settings.cert && !settings.key) throw new ConfigError('--cert needs its private key: give --key (or GATEWAY_KEY) too')
  if (settings.key && !settings.cert) throw new ConfigError('--key needs its certificate: give --cert (or GATEWAY_CERT) too')
}

const ownUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined)
const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`

/** A path as a shell reads it. */
function quote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`
}

/** A certificate or key file that cannot be used as it is: exit 3, naming the file and the fix. */
export class CertificateFileError extends AuthError {
  override readonly code = 'CERTIFICATE_FILE'
}

/**
 * Reads a certificate, key, .p12 or CA file, after checking it as the config folder is checked:
 * the user's (or root's, for a certificate or a CA), not writable by group or others, and a
 * private key or .p12 readable by nobody else.
 */
export function readCheckedFile(path: string, kind: 'key' | 'p12' | 'cert' | 'ca', what: string): Buffer {
  const real = checkedLinks(path, what)
  let fd: number
  try {
    // The path its links lead to, each checked: the last one is opened without following a link
    // put there since.
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new CertificateFileError(`${what} ${path} cannot be read (${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? (error as Error).message)})`)
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) throw new CertificateFileError(`${what} ${path} is not a file`)
    const uid = ownUid()
    if (uid !== undefined) {
      const secret = kind === 'key' || kind === 'p12'
      const owners = secret ? [uid] : [uid, 0]
      if (!owners.includes(info.uid)) {
        throw new CertificateFileError(`${what} ${path} belongs to another user (uid ${info.uid})`, {
          hint: `Use a copy of your own: \`cp ${quote(path)} ~/… && chmod ${secret ? '600' : '644'} ~/…\`.`,
        })
      }
      if ((info.mode & 0o022) !== 0) {
        throw new CertificateFileError(`${what} ${path} can be written by others than you (mode ${octal(info.mode)})`, {
          hint: `Make it yours alone: \`chmod go-w ${quote(path)}\`.`,
        })
      }
      if (secret && (info.mode & 0o044) !== 0) {
        throw new CertificateFileError(`${what} ${path} can be read by others than you (mode ${octal(info.mode)}): it holds a private key`, {
          hint: `Make it readable by you alone: \`chmod 600 ${quote(path)}\`.`,
        })
      }
    }
    return readFileSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * The path a file's symbolic links lead to, each link on the way (of the file, or of a folder
 * above it) checked as the config folder is: one owned by another user than you or root could be
 * pointed anywhere by them, and is refused (exit 3, naming it). A path that does not resolve is
 * answered as it is, for the open to say why.
 */
function checkedLinks(path: string, what: string): string {
  const uid = ownUid()
  let pending = resolve(path).split(sep).filter(Boolean)
  let current: string = sep
  let hops = 0
  while (pending.length > 0) {
    const part = pending.shift()!
    if (part === '.') continue
    if (part === '..') {
      current = dirname(current)
      continue
    }
    const next = join(current, part)
    let info: import('node:fs').Stats
    try {
      info = lstatSync(next)
    } catch {
      return path
    }
    if (!info.isSymbolicLink()) {
      current = next
      continue
    }
    if (++hops > 40) throw new CertificateFileError(`${what} ${path} cannot be read (too many symbolic links)`)
    if (uid !== undefined && info.uid !== uid && info.uid !== 0) {
      throw new CertificateFileError(`${what} ${path} goes through the symbolic link ${next}, which belongs to another user (uid ${info.uid}): they could point it anywhere`, {
        hint: `Name the file itself (\`realpath ${quote(path)}\`), or a link of your own.`,
      })
    }
    const target = readlinkSync(next)
    pending = [...target.split(sep).filter(Boolean), ...pending]
    if (isAbsolute(target)) current = sep
  }
  return current
}

/** The PEM certificates of a text, each whole. */
export function pemCertificates(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []
}

/** Where OpenSSL keeps the system's CAs on the common systems (Debian and Ubuntu first). */
const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/ca-bundle.pem', '/etc/ssl/cert.pem']

function readQuietly(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1')
  } catch {
    return undefined
  }
}

/** A PEM certificate's body alone: the same certificate reads the same, however its lines are cut. */
const body = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, '')

/**
 * The certificate authorities trusted for an https gateway beyond Node's bundle (which every TLS
 * context has, with NODE_EXTRA_CA_CERTS): the operating system's store (Node's own view of it where
 * it has one, else the file OpenSSL uses), NODE_EXTRA_CA_CERTS as this run's environment names it,
 * SSL_CERT_FILE and the certificates of SSL_CERT_DIR; each one once, and none that Node's bundle
 * has already. The profile's CA file comes on top (see connectOptions).
 */
export async function extraCertificates(env: NodeJS.ProcessEnv): Promise<string[]> {
  const tls = await import('node:tls')
  const found: string[] = []
  const getCACertificates = (tls as {getCACertificates?: (type: string) => string[]}).getCACertificates
  let systemRead = false
  if (typeof getCACertificates === 'function') {
    try {
      const system = getCACertificates('system')
      found.push(...system)
      systemRead = system.length > 0
    } catch {
      // No system store on this Node.
    }
  }
  if (!systemRead) {
    for (const path of SYSTEM_BUNDLES) {
      const text = readQuietly(path)
      if (text !== undefined) {
        found.push(...pemCertificates(text))
        break
      }
    }
  }
  // Node's own view of NODE_EXTRA_CA_CERTS is of its start; this run's environment may name another file.
  if (env.NODE_EXTRA_CA_CERTS) found.push(...pemCertificates(readQuietly(env.NODE_EXTRA_CA_CERTS) ?? ''))
  if (env.SSL_CERT_FILE) found.push(...pemCertificates(readQuietly(env.SSL_CERT_FILE) ?? ''))
  if (env.SSL_CERT_DIR) {
    for (const dir of env.SSL_CERT_DIR.split(':').filter(Boolean)) {
      let names: string[]
      try {
        names = readdirSync(dir)
      } catch {
        continue
      }
      for (const name of names) {
        if (!/\.(pem|crt)$|^[0-9a-f]{8}\.\d+$/i.test(name)) continue
        const path = join(dir, name)
        try {
          if (!statSync(path).isFile()) continue
        } catch {
          continue
        }
        found.push(...pemCertificates(readQuietly(path) ?? ''))
      }
    }
  }
  const seen = new Set(tls.rootCertificates.map(body))
  return found.filter((pem) => {
    const key = body(pem)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** What tls.connect is given for an https gateway. */
export interface TlsConnectOptions {
  /** One context for every connection to the gateway: the CAs, and the client certificate when there is one. */
  secureContext: import('node:tls').SecureContext
  /** A context of the same CAs without the client certificate, for a proxy reached over https. */
  proxyContext(): Promise<import('node:tls').SecureContext>
}

/**
 * A TLS context that trusts Node's bundle and `extra`: Node's bundle is shared by every context
 * and costs nothing; only the extra certificates are parsed (a context made from some three
 * hundred PEM certificates costs tens of milliseconds).
 */
async function contextWith(extra: string[], client: {pfx?: Buffer; cert?: Buffer; key?: Buffer; passphrase?: string}): Promise<import('node:tls').SecureContext> {
  const tls = await import('node:tls')
  if (extra.length === 0) return tls.createSecureContext(client)
  const context = tls.createSecureContext(client)
  const handle = (context as {context?: {addCACert?: (pem: string) => void}}).context
  if (typeof handle?.addCACert === 'function') {
    for (const pem of extra) handle.addCACert(pem)
    return context
  }
  return tls.createSecureContext({...client, ca: [...tls.rootCertificates, ...extra]})
}

/**
 * Loads the trusted CAs and the client certificate for an https gateway, into one TLS context made
 * once: files are checked and read, a .p12 or an encrypted key is opened with its passphrase (a
 * wrong or missing one is exit 3, naming the file).
 */
export async function connectOptions(settings: TlsSettings, env: NodeJS.ProcessEnv): Promise<TlsConnectOptions> {
  checkTlsSettings(settings)
  const extra = await extraCertificates(env)
  if (settings.caFile) {
    const own = pemCertificates(readCheckedFile(settings.caFile, 'ca', 'the CA file').toString('latin1'))
    if (own.length === 0) throw new ConfigError(`the CA file ${settings.caFile} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`)
    extra.push(...own)
  }
  const client: {pfx?: Buffer; cert?: Buffer; key?: Buffer; passphrase?: string} = {}
  if (settings.p12) {
    client.pfx = readCheckedFile(settings.p12, 'p12', 'the client certificate (.p12)')
  } else if (settings.cert && settings.key) {
    client.cert = readCheckedFile(settings.cert, 'cert', 'the client certificate')
    client.key = readCheckedFile(settings.key, 'key', 'the client key')
  }
  if (settings.passphrase && (client.pfx || client.key)) client.passphrase = settings.passphrase
  let secureContext: import('node:tls').SecureContext
  try {
    secureContext = await contextWith(extra, client)
  } catch (error) {
    if (!client.pfx && !client.key) throw error
    throw certificateError(error as Error, settings)
  }
  return {secureContext, proxyContext: () => contextWith(extra, {})}
}

/** Why the client certificate could not be opened, said so that it can be fixed. */
function certificateError(error: Error, settings: TlsSettings): CertificateFileError {
  const file = settings.p12 ?? settings.key!
  const {message} = error
  if (/mac verify failure|bad decrypt|passphrase|maybe wrong password|bad password/i.test(message)) {
    return new CertificateFileError(`${file} could not be opened: ${settings.passphrase ? 'the passphrase is wrong' : 'it needs a passphrase'}`, {
      hint: 'Give the passphrase in GATEWAY_CERT_PASSPHRASE, or on stdin to `gateway login --cert-passphrase-stdin`.',
    })
  }
  if (/key values mismatch/i.test(message)) {
    return new CertificateFileError(`the client key ${settings.key} is not the key of the certificate ${settings.cert}`)
  }
  return new CertificateFileError(`the client certificate ${file} could not be read: ${message.replace(/^error:[0-9A-F]+:/i, '')}`)
}

/** A handshake the gateway answered, failed for a reason the operator can fix: named by cause. */
export interface TlsFailure {
  /** `certificate-required` is exit 3; every other is exit 7. */
  kind: 'certificate-required' | 'untrusted' | 'expired' | 'not-yet-valid' | 'name-mismatch' | 'revoked' | 'handshake' | 'certificate-refused'
  message: string
  hint?: string
}

const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'INVALID_CA',
])

/**
 * The name of the TLS alert a code reports (`HANDSHAKE_FAILURE`, `BAD_CERTIFICATE`, …), or undefined
 * when the code is not an alert's. Node makes the code from OpenSSL's words for it, and OpenSSL 3.5
 * renamed the alerts it called `sslv3 alert …` to `ssl/tls alert …`: the same handshake failure is
 * ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE under one OpenSSL and ERR_SSL_SSL/TLS_ALERT_HANDSHAKE_FAILURE
 * under the other. Both are read alike, as are the `tlsv1` and `tlsv13` alerts.
 */
export function tlsAlert(code: string | undefined): string | undefined {
  return code === undefined ? undefined : /^ERR_SSL_(?:SSLV3|SSL\/TLS|TLSV1|TLSV13)_ALERT_([A-Z0-9_]+)$/.exec(code)?.[1]
}

/** The alerts by which a server refuses the client certificate it was shown. */
const REFUSING = new Set(['BAD_CERTIFICATE', 'UNKNOWN_CA', 'CERTIFICATE_UNKNOWN', 'UNSUPPORTED_CERTIFICATE', 'CERTIFICATE_EXPIRED', 'CERTIFICATE_REVOKED', 'ACCESS_DENIED', 'DECRYPT_ERROR'])

/** Every error along a chain of causes. */
function chain(error: unknown): Array<{code?: string; message?: string; reason?: string}> {
  const seen = new Set<unknown>()
  const list: Array<{code?: string; message?: string; reason?: string}> = []
  let current: unknown = error
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current)
    list.push(current as {code?: string; message?: string})
    current = (current as {cause?: unknown}).cause
  }
  return list
}

/**
 * What a failed TLS handshake means, or undefined when the error is not one. `alert` is a TLS
 * error seen on the connection while the request failed for another reason (a TLS 1.3 server's
 * "certificate required" alert arrives after the handshake, and the request sees only the
 * connection closing). `withCertificate` says whether a client certificate was shown; `asked`,
 * whether the server asks for one (asksForCertificate), when a TLS 1.2 handshake failure leaves it open.
 */
export function describeTlsFailure(error: unknown, origin: string, options: {alert?: unknown; withCertificate: boolean; asked?: boolean}): TlsFailure | undefined {
  const errors = [...chain(error), ...chain(options.alert)]
  const caHint = 'If the gateway uses a private CA, trust it with `gateway login --ca-file CA.pem` (or GATEWAY_CA_FILE, SSL_CERT_FILE); install it in the system store with update-ca-certificates.'
  const certHint = 'Log in with the client certificate the gateway issued: `gateway login --cert CERT.pem --key KEY.pem`, or `--p12 FILE.p12` (passphrase in GATEWAY_CERT_PASSPHRASE); GATEWAY_CERT, GATEWAY_KEY and GATEWAY_P12 work too.'
  for (const {code, message = ''} of errors) {
    if (!code) continue
    const alert = tlsAlert(code)
    if (alert === 'HANDSHAKE_FAILURE' && !options.withCertificate && options.asked !== true) {
      return {
        kind: 'handshake',
        message: `the gateway at ${origin} ended the TLS handshake (handshake failure)${options.asked === undefined ? ': it may want a client certificate, which none was given' : ''}`,
        ...(options.asked === undefined ? {hint: certHint} : {}),
      }
    }
    if (alert === 'CERTIFICATE_REQUIRED' || (!options.withCertificate && alert === 'HANDSHAKE_FAILURE')) {
      if (options.withCertificate) break
      return {
        kind: 'certificate-required',
        message: `the gateway at ${origin} asks for a client certificate (mutual TLS), and none was given`,
        hint: certHint,
      }
    }
    if (code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE') {
      // The gateway sent its certificate alone, and its issuer is not among the trusted CAs: either
      // the chain lacks its intermediate (the gateway's to fix), or the issuer is a CA not trusted here.
      return {
        kind: 'untrusted',
        message: `the gateway at ${origin} showed a certificate from an unknown issuer, alone: its certificate chain is incomplete (the intermediate certificate that issued it was not sent), or its issuer is a CA this machine does not trust`,
        hint:
          'An incomplete chain is for the gateway\'s operators to fix: they must send the intermediate certificate with their own. Meanwhile the intermediate may be added to the CA file (`gateway login --ca-file CHAIN.pem`, or GATEWAY_CA_FILE). A private CA: trust it with `--ca-file CA.pem`.',
      }
    }
    if (UNTRUSTED.has(code)) {
      const self = code.includes('SELF_SIGNED') ? 'a self-signed certificate' : 'a certificate from an unknown issuer'
      return {kind: 'untrusted', message: `the gateway at ${origin} showed ${self} (${withoutNodeAdvice(message)}): it is not trusted`, hint: caHint}
    }
    if (code === 'CERT_HAS_EXPIRED') {
      return {kind: 'expired', message: `the gateway at ${origin} showed an expired certificate`, hint: 'The gateway must renew its certificate; check this machine\'s clock too (`date`).'}
    }
    if (code === 'CERT_NOT_YET_VALID') {
      return {kind: 'not-yet-valid', message: `the gateway at ${origin} showed a certificate that is not valid yet`, hint: 'Check this machine\'s clock (`date`).'}
    }
    if (code === 'CERT_REVOKED') return {kind: 'revoked', message: `the gateway at ${origin} showed a revoked certificate`}
    if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
      return {
        kind: 'name-mismatch',
        message: `the gateway's certificate is not for ${new URL(origin).hostname} (${withoutNodeAdvice(message)})`,
        hint: 'Check the base URL: use the host name the certificate names (`gateway login --base-url https://NAME`).',
      }
    }
    if (alert !== undefined && REFUSING.has(alert) && options.withCertificate) {
      const what = alert.toLowerCase().replaceAll('_', ' ')
      return {
        kind: 'certificate-refused',
        message: `the gateway at ${origin} refused the client certificate (TLS alert: ${what})`,
        hint: 'Check that the certificate is the one the gateway issued for these credentials, and that it has not expired.',
      }
    }
  }
  return undefined
}

/** Node's words for a TLS failure without its advice to the runtime (a Node.js flag is no fix for a CLI's user). */
export function withoutNodeAdvice(message: string): string {
  return message
    .split(';')
    .filter((clause) => !/\bNode(?:\.js)?\b[\s\S]*--[a-z]/i.test(clause))
    .join(';')
    .trim()
}

/** An HTTP answer that is nginx's (or a like server's) page for a client certificate it wanted and did not get. */
export function certificatePage(status: number, text: string): 'missing' | 'refused' | undefined {
  if (status !== 400 && status !== 495 && status !== 496) return undefined
  if (status === 496 || /No required SSL certificate was sent/i.test(text)) return 'missing'
  if (status === 495 || /The SSL certificate error/i.test(text)) return 'refused'
  return undefined
}

/** An HTML page (an error page of a proxy or web server) in a few words: its title, else its first heading. */
export function htmlSummary(text: string): string | undefined {
  if (!/^\s*<(!doctype\s+html|html|head|body|title|h1)\b/i.test(text)) return undefined
  const pick = (pattern: RegExp) => pattern.exec(text)?.[1]?.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ').trim()
  const entities: Record<string, string> = {amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' '}
  const decode = (value: string | undefined) => value?.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => entities[name]).slice(0, 120)
  const title = decode(pick(/<title[^>]*>([\s\S]*?)<\/title>/i) || pick(/<h1[^>]*>([\s\S]*?)<\/h1>/i))
  if (title) return `an HTML page titled "${title}"`
  // No title: the first words of its text, without scripts and styles.
  const words = decode(
    text
      .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  )
  return `an HTML page${words ? ` reading "${words}"` : ''}`
}

/** Checks the settings and every file they name (readable, the user's, a key private), before anything is sent. */
export function checkTlsFiles(settings: TlsSettings): void {
  checkTlsSettings(settings)
  if (settings.caFile) readCheckedFile(settings.caFile, 'ca', 'the CA file')
  if (settings.p12) readCheckedFile(settings.p12, 'p12', 'the client certificate (.p12)')
  if (settings.cert) readCheckedFile(settings.cert, 'cert', 'the client certificate')
  if (settings.key) readCheckedFile(settings.key, 'key', 'the client key')
}

/**
 * Whether the server at host:port asks for a client certificate in a TLS 1.2 handshake: a
 * ClientHello offering TLS 1.2 alone is sent, and the server's handshake messages, in the clear
 * until it has said all (ServerHelloDone), are read for a CertificateRequest. Undefined when that
 * cannot be told (an alert, a timeout, something that is not TLS). Nothing of a request is sent.
 */
export async function asksForCertificate(
  host: string,
  port: number,
  servername: string | undefined,
  options: {proxy?: URL; timeoutMs?: number} = {},
): Promise<boolean | undefined> {
  const timeoutMs = options.timeoutMs ?? 5000
  const proxy = options.proxy
  const {connect, isIP} = await import('node:net')
  const {randomBytes} = await import('node:crypto')
  const u16 = (value: number) => Buffer.from([(value >> 8) & 0xff, value & 0xff])
  const u24 = (value: number) => Buffer.from([(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff])
  const list = (items: number[]) => Buffer.concat([u16(items.length * 2), ...items.map(u16)])
  const extension = (type: number, body: Buffer) => Buffer.concat([u16(type), u16(body.length), body])
  const extensions = [
    extension(10, list([0x001d, 0x0017, 0x0018, 0x0019])),
    extension(11, Buffer.from([1, 0])),
    extension(13, list([0x0403, 0x0503, 0x0603, 0x0804, 0x0805, 0x0806, 0x0401, 0x0501, 0x0601, 0x0203, 0x0201])),
    extension(23, Buffer.alloc(0)),
    extension(0xff01, Buffer.from([0])),
  ]
  if (servername && !isIP(servername)) {
    const name = Buffer.from(servername, 'ascii')
    const entry = Buffer.concat([Buffer.from([0]), u16(name.length), name])
    extensions.unshift(extension(0, Buffer.concat([u16(entry.length), entry])))
  }
  const ciphers = [0xc02b, 0xc02f, 0xc02c, 0xc030, 0xcca9, 0xcca8, 0xc009, 0xc013, 0xc00a, 0xc014, 0x009e, 0x009f, 0x009c, 0x009d, 0x002f, 0x0035, 0x003c, 0x003d]
  const extensionBytes = Buffer.concat(extensions)
  const body = Buffer.concat([Buffer.from([3, 3]), randomBytes(32), Buffer.from([0]), list(ciphers), Buffer.from([1, 0]), u16(extensionBytes.length), extensionBytes])
  const hello = Buffer.concat([Buffer.from([1]), u24(body.length), body])
  const record = Buffer.concat([Buffer.from([22, 3, 1]), u16(hello.length), hello])
  return new Promise((resolve) => {
    // Through an http:// proxy, the same CONNECT the client makes first.
    const socket = proxy ? connect({host: proxy.hostname.replace(/^\[|\]$/g, ''), port: Number(proxy.port || 80)}) : connect({host, port})
    let tunnelled = !proxy
    let answer = ''
    let received = Buffer.alloc(0)
    let handshake = Buffer.alloc(0)
    let settled = false
    const done = (answer: boolean | undefined) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(answer)
    }
    const timer = setTimeout(() => done(undefined), timeoutMs)
    socket.on('connect', () => {
      if (!proxy) return socket.write(record)
      const authority = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`
      const credentials = proxy.username || proxy.password ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}\r\n` : ''
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${credentials}\r\n`)
    })
    socket.on('error', () => done(undefined))
    socket.on('close', () => done(undefined))
    socket.on('data', (chunk: Buffer) => {
      if (!tunnelled) {
        answer += chunk.toString('latin1')
        const end = answer.indexOf('\r\n\r\n')
        if (end === -1) return answer.length > 16 * 1024 ? done(undefined) : undefined
        if (!/^HTTP\/1\.[01] 200/.test(answer)) return done(undefined)
        tunnelled = true
        chunk = Buffer.from(answer.slice(end + 4), 'latin1')
        socket.write(record)
      }
      received = Buffer.concat([received, chunk])
      if (received.length > 256 * 1024) return done(undefined)
      while (received.length >= 5) {
        const length = received.readUInt16BE(3)
        if (received.length < 5 + length) break
        const [type] = received
        const payload = received.subarray(5, 5 + length)
        received = received.subarray(5 + length)
        if (type !== 22) return done(undefined)
        handshake = Buffer.concat([handshake, payload])
        while (handshake.length >= 4) {
          const size = handshake.readUIntBE(1, 3)
          if (handshake.length < 4 + size) break
          const kind = handshake[0]
          handshake = handshake.subarray(4 + size)
          if (kind === 13) return done(true)
          if (kind === 14) return done(false)
        }
      }
    })
  })
}
