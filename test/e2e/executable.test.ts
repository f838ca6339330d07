import {spawn, spawnSync} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {unstamped} from '../helpers/cli.js'

/**
 * The single executable (`npm run package` makes it; `npm test` does before the tests) and the
 * Debian package, run as an operator would: PATH holding no `node`, HOME a fresh folder. A
 * representative set of what bin/run.js does: every command family, the sandbox it embeds,
 * `webhooks listen`, a real terminal, exit codes.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PACKAGE = join(ROOT, 'dist', 'package')
const EXECUTABLE = join(PACKAGE, 'gateway')

describe('the single executable and the .deb', () => {
  let home: string
  let env: Record<string, string>
  let sandbox: ReturnType<typeof spawn>
  let baseUrl: string

  const gateway = (args: string[], extra: Record<string, string> = {}, input?: string) => {
    const run = spawnSync(EXECUTABLE, args, {env: {...env, ...extra}, encoding: 'utf8', input, timeout: 30_000})
    return {code: run.status, stdout: run.stdout, stderr: run.stderr}
  }

  beforeAll(async () => {
    // Built by `npm test` before the suite runs: its absence is a failure, never a skip.
    expect(existsSync(EXECUTABLE), `${EXECUTABLE} is missing: run npm run package`).toBe(true)
    home = mkdtempSync(join(tmpdir(), 'gateway-exe-'))
    env = {HOME: home, PATH: '/usr/sbin:/sbin', LANG: 'C.UTF-8', GATEWAY_CONFIG_DIR: join(home, 'config')}
    expect(spawnSync('sh', ['-c', 'command -v node'], {env}).status).not.toBe(0)
    sandbox = spawn(EXECUTABLE, ['sandbox', 'start', '--port', '0', '--json'], {env, stdio: ['ignore', 'pipe', 'pipe']})
    baseUrl = await new Promise<string>((resolve, reject) => {
      let text = ''
      sandbox.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk
        if (text.includes('\n')) resolve((JSON.parse(text.split('\n')[0]) as {baseUrl: string}).baseUrl)
      })
      sandbox.on('close', (code) => reject(new Error(`the sandbox exited ${code}`)))
    })
    env.GATEWAY_BASE_URL = baseUrl
  }, 60_000)
  afterAll(() => {
    sandbox?.kill('SIGTERM')
    rmSync(home, {recursive: true, force: true})
  })

  describe('runs from its own assets, with nothing laid out on disk', () => {
    // The bundle's content key: the name an earlier executable laid its copy out under.
    const key = /\/\/# gateway-bundle ([0-9a-f]+)\n$/.exec(readFileSync(join(ROOT, 'dist', 'bundle', 'gateway.cjs'), 'latin1').slice(-100))![1]
    const isRoot = process.getuid?.() === 0
    const NOBODY = 65534
    let scratch: string
    beforeAll(() => {
      scratch = mkdtempSync(join(tmpdir(), 'gateway-exe-assets-'))
      chmodSync(scratch, 0o755)
    })
    afterAll(() => rmSync(scratch, {recursive: true, force: true}))

    /** A fresh folder under the scratch one, with the mode given. */
    let folders = 0
    const folder = (mode = 0o700) => {
      const path = join(scratch, `f${(folders += 1)}`)
      mkdirSync(path, {mode})
      chmodSync(path, mode)
      return path
    }
    /** Every path under a folder, relative to it. */
    const contents = (path: string): string[] => readdirSync(path, {recursive: true}).map(String).sort()
    /** The runs that must behave as ever: a version, a refusal, an offline decode. */
    const sample = (run: (args: string[]) => {code: number | null; stdout: string; stderr: string}) => {
      const version = run(['--version'])
      expect(version.code, version.stderr).toBe(0)
      expect(version.stdout).toMatch(/^gateway-cli\/\d+\.\d+\.\d+ /)
      expect(version.stderr).toBe('')
      const refused = run(['tx', 'create', '--amount', '10.00'])
      expect(refused.code).toBe(2)
      expect(unstamped(refused.stderr)).toBe('Error: --amount takes integer cents, not a decimal: 10.00 is --amount 1000\n')
      const decoded = run(['pix', 'decode', '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D', '--json'])
      expect(decoded.code, decoded.stderr).toBe(0)
      expect(JSON.parse(decoded.stdout)).toMatchObject({merchantName: 'Fulano de Tal'})
    }
    /** Code planted where an earlier executable looked for its laid-out copy: it leaves a mark if run. */
    const plant = (base: string, marker: string) => {
      const bin = join(base, key, 'bin')
      mkdirSync(bin, {recursive: true, mode: 0o777})
      writeFileSync(join(bin, 'run.js'), `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'planted code ran'); console.log('planted')\n`)
      writeFileSync(join(bin, 'package.json'), '{"type": "commonjs"}\n')
      for (let path = bin; path !== base && path.startsWith(scratch); path = join(path, '..')) chmodSync(path, 0o777)
    }
    const spawnAs = (args: string[], environment: Record<string, string | undefined>, options: {uid?: number; cwd?: string} = {}) => {
      const argv = options.uid === undefined ? [EXECUTABLE, ...args] : ['/usr/bin/setpriv', `--reuid=${options.uid}`, `--regid=${options.uid}`, '--clear-groups', EXECUTABLE, ...args]
      const clean = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== undefined)) as Record<string, string>
      const run = spawnSync(argv[0], argv.slice(1), {env: clean, cwd: options.cwd ?? scratch, encoding: 'utf8', timeout: 30_000})
      return {code: run.status, stdout: run.stdout, stderr: run.stderr}
    }

    it('writes nothing to its home, the cache folder or the temporary folder, and reads nothing there', () => {
      const [home, cache, temporary] = [folder(), folder(), folder()]
      const environment = {PATH: '/usr/sbin:/sbin', LANG: 'C.UTF-8', HOME: home, XDG_CACHE_HOME: cache, TMPDIR: temporary, GATEWAY_CONFIG_DIR: join(folder(), 'config')}
      sample((args) => spawnAs(args, environment))
      const lookup = spawnAs(['tx', 'get', '00000000-0000-4000-8000-000000000000', '--json'], {...environment, GATEWAY_BASE_URL: baseUrl, GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'})
      expect(lookup.code, lookup.stderr).toBe(4)
      expect([contents(home), contents(cache), contents(temporary)]).toEqual([[], [], []])
    })

    it('a relative XDG_CACHE_HOME lays nothing out under the current folder, and nothing crashes', () => {
      const here = folder()
      sample((args) => spawnAs(args, {PATH: '/usr/sbin:/sbin', LANG: 'C.UTF-8', HOME: folder(), XDG_CACHE_HOME: 'cache', GATEWAY_CONFIG_DIR: join(folder(), 'config')}, {cwd: here}))
      expect(contents(here)).toEqual([])
    })

    it('never runs code planted in the cache folder or in $TMPDIR/gateway-<user>/<key>, with HOME set, empty or unset', () => {
      const [cache, temporary, marks] = [folder(0o777), folder(0o777), folder(0o777)]
      const marker = join(marks, 'ran')
      plant(join(cache, 'gateway'), marker)
      for (const user of ['root', 'nobody', String(NOBODY)]) plant(join(temporary, `gateway-${user}`), marker)
      const base = {PATH: '/usr/sbin:/sbin', LANG: 'C.UTF-8', XDG_CACHE_HOME: cache, TMPDIR: temporary, GATEWAY_CONFIG_DIR: join(folder(), 'config')}
      for (const HOME of [folder(), '', undefined]) {
        sample((args) => spawnAs(args, {...base, HOME}))
        sample((args) => spawnAs(args, {...base, HOME, XDG_CACHE_HOME: undefined}))
      }
      expect(existsSync(marker)).toBe(false)
    })

    it('run by another user, with HOME missing, read-only or unset: still runs, and runs nothing another user planted', (context) => {
      if (!isRoot) {
        console.log('skipped: running as another user (setpriv) needs root')
        context.skip()
      }
      const [temporary, marks] = [folder(0o777), folder(0o777)]
      const marker = join(marks, 'ran')
      // Made first by someone else (root here), with mode 0777, as the victim's fallback would be named.
      for (const user of ['nobody', String(NOBODY)]) plant(join(temporary, `gateway-${user}`), marker)
      const readOnlyHome = folder(0o755)
      const base = {PATH: '/usr/sbin:/sbin', LANG: 'C.UTF-8', TMPDIR: temporary}
      for (const HOME of ['/nonexistent', readOnlyHome, '', undefined]) sample((args) => spawnAs(args, {...base, HOME}, {uid: NOBODY}))
      expect(existsSync(marker)).toBe(false)
      expect(contents(readOnlyHome)).toEqual([])
    })
  })

  it('starts with no node on PATH: --version, and the code cache bin/run.js uses', () => {
    // --version alone is answered before the bundle is evaluated, with oclif's own line (which it
    // prints when anything else follows the flag).
    const byOclif = gateway(['--version', '--json'], {GATEWAY_CODE_CACHE_REPORT: '1'})
    expect(byOclif.code).toBe(0)
    expect(byOclif.stdout).toMatch(/^gateway-cli\/\d+\.\d+\.\d+ /)
    expect(byOclif.stderr).toBe('code cache of gateway.cjs: used\n')
    for (const flag of ['--version', '-v']) expect(gateway([flag], {GATEWAY_CODE_CACHE_REPORT: '1'})).toEqual({code: 0, stdout: byOclif.stdout, stderr: ''})
    // A command line the fast path reads runs from its own bundle and code cache, carried as assets.
    const refused = gateway(['tx', 'create', '--amount', '10.00'], {GATEWAY_CODE_CACHE_REPORT: '1'})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/^code cache of fast-tx-create\.cjs: used\n.*Error: --amount takes integer cents/)
  })

  it('logs in, creates, looks up, pays, lists and exports against the sandbox it embeds', () => {
    expect(gateway(['login', '--client-id', 'sandbox', '--client-secret-stdin'], {}, 'sandbox-secret').code).toBe(0)
    const created = gateway(['tx', 'create', '--amount', '1000', '--external-code', 'exe-order-0001', '--json'])
    expect(created.code, created.stderr).toBe(0)
    const {id} = JSON.parse(created.stdout) as {id: string}
    expect(gateway(['sandbox', 'pay', id]).code).toBe(0)
    expect(JSON.parse(gateway(['tx', 'get', id, '--json']).stdout)).toMatchObject({status: 'PAID'})
    const exported = gateway(['deposits', 'list', '--all', '--output', 'csv'])
    expect(exported.code).toBe(0)
    expect(exported.stdout).toContain(id)
    expect(gateway(['deposits', 'summary', '--chart', 'none', '--json']).code).toBe(0)
    // The repeat guard and the journal, as from bin/run.js.
    expect(gateway(['tx', 'create', '--amount', '1000', '--external-code', 'exe-order-0001']).code).toBe(2)
    expect(gateway(['journal', 'list', '--json']).code).toBe(0)
  })

  it('an export or a QR image that cannot be written: exit 1, one line naming the file and the cause (and the charge made)', () => {
    expect(gateway(['login', '--client-id', 'sandbox', '--client-secret-stdin'], {}, 'sandbox-secret').code).toBe(0)
    const exported = gateway(['deposits', 'list', '--all', '--output', 'csv', '--output-file', '/dev/full'])
    expect(exported.code).toBe(1)
    expect(unstamped(exported.stderr)).toBe('Error: cannot write --output-file /dev/full: the disk is full\n')
    const charged = gateway(['tx', 'create', '--amount', '1000', '--qr-png', '/dev/full'])
    expect(charged.code).toBe(1)
    const error = unstamped(charged.stderr).split('\n').filter((line) => line.startsWith('Error:'))
    expect(error).toHaveLength(1)
    expect(error[0]).toMatch(/^Error: the charge (\S+) was created, but --qr-png \/dev\/full could not be written \(the disk is full\)\. Get its image without a new charge: gateway tx get \1 --qr-png \/dev\/full$/)
  })

  it('refuses bad input with exit 2, one line, nothing sent; a mistyped command likewise', () => {
    const refused = gateway(['tx', 'create', '--amount', '10.00'])
    expect(refused.code).toBe(2)
    // stderr is a pipe here: the line starts with the time.
    expect(refused.stderr).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z Error: --amount takes integer cents, not a decimal: 10.00 is --amount 1000\n$/)
    expect(gateway(['withdraw', '--amount', '100', '--pix-key', 'maria@example.com']).code).toBe(2)
    expect(gateway(['tx', 'creat']).stderr).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z Error: tx creat is not a gateway command; did you mean tx create\?/)
  })

  it('decodes a PIX code offline, and receives a notification with webhooks listen until SIGINT', async () => {
    const decoded = gateway(['pix', 'decode', '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D', '--json'])
    expect(JSON.parse(decoded.stdout)).toMatchObject({kind: 'static', merchantName: 'Fulano de Tal'})
    const listener = spawn(EXECUTABLE, ['webhooks', 'listen', '--port', '0', '--output', 'ndjson'], {env, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    listener.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    const url = await new Promise<string>((resolve) => {
      let text = ''
      listener.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk
        const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(text)
        if (match) resolve(match[1])
      })
    })
    const answer = await fetch(url, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({id: 'exe-1', status: 'SENT'})})
    expect(answer.status).toBe(200)
    listener.kill('SIGINT')
    expect(await new Promise((resolve) => listener.on('close', resolve))).toBe(0)
    expect(stdout).toContain('"type":"received"')
  })

  it('draws the pager in a real terminal, and quits with q', () => {
    for (const amount of ['2000', '3000']) expect(gateway(['tx', 'create', '--amount', amount]).code).toBe(0)
    const spec = {argv: [EXECUTABLE, 'deposits', 'list', '--per-page', '1'], env: {...env, TERM: 'xterm-256color'}, steps: [{expect: 'Page 1 of', send: 'q'}], cols: 120, rows: 40, timeout: 20}
    const run = spawnSync('python3', [join(ROOT, 'test', 'helpers', 'pty_run.py')], {input: JSON.stringify(spec), encoding: 'utf8'})
    const result = JSON.parse(run.stdout) as {output: string; code: number}
    expect(result.code).toBe(0)
    expect(result.output).toContain('[q] quit')
  })

  it('the .deb holds the binary, the man page, the completions and a copyright file, and its binary runs', () => {
    const deb = readdirSync(PACKAGE).find((name) => /^gateway_\d+\.\d+\.\d+_[a-z0-9]+\.deb$/.test(name))
    expect(deb).toBeDefined()
    const listing = spawnSync('dpkg-deb', ['-c', join(PACKAGE, deb!)], {encoding: 'utf8'}).stdout
    for (const path of ['./usr/bin/gateway', './usr/share/man/man1/gateway.1.gz', './usr/share/bash-completion/completions/gateway', './usr/share/zsh/vendor-completions/_gateway', './usr/share/doc/gateway/copyright']) {
      expect(listing).toContain(path)
    }
    const unpacked = join(home, 'deb')
    expect(spawnSync('dpkg-deb', ['-x', join(PACKAGE, deb!), unpacked]).status).toBe(0)
    const run = spawnSync(join(unpacked, 'usr', 'bin', 'gateway'), ['--version'], {env, encoding: 'utf8'})
    expect(run.status).toBe(0)
    expect(run.stdout).toMatch(/^gateway-cli\//)
    const control = spawnSync('dpkg-deb', ['-f', join(PACKAGE, deb!), 'Package', 'Version', 'Recommends'], {encoding: 'utf8'}).stdout
    // The bash completion it installs is loaded by bash-completion, which a fresh Debian may lack.
    expect(control).toMatch(/^Package: gateway\nVersion: \d+\.\d+\.\d+\nRecommends: bash-completion\n$/)
  })
})
