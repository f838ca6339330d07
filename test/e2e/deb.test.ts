import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {gunzipSync} from 'node:zlib'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {unstamped} from '../helpers/cli.js'

import {bashCompletes} from '../helpers/completion.js'

/**
 * The Debian package (`npm run package` makes it; `npm test` does before the tests), unpacked with
 * dpkg-deb -x into a temporary folder and run from there: /usr/bin/gateway finds the executable
 * beside it, as it does once installed.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PACKAGE = join(ROOT, 'dist', 'package')

describe('the .deb', () => {
  let dir: string
  let deb: string
  let unpacked: string
  let wrapper: string
  let executable: string
  let man: string
  let env: Record<string, string>

  const run = (command: string, args: string[], extra: Record<string, string> = {}) => {
    const result = spawnSync(command, args, {env: {...env, ...extra}, encoding: 'utf8', timeout: 30_000})
    return {code: result.status, stdout: result.stdout, stderr: result.stderr}
  }

  beforeAll(() => {
    const name = readdirSync(PACKAGE).find((file) => /^gateway_\d+\.\d+\.\d+_[a-z0-9]+\.deb$/.test(file))
    // Built by `npm test` before the suite runs: its absence is a failure, never a skip.
    expect(name, `no .deb in ${PACKAGE}: run npm run package`).toBeDefined()
    deb = join(PACKAGE, name!)
    dir = mkdtempSync(join(tmpdir(), 'gateway-deb-'))
    unpacked = join(dir, 'root')
    expect(spawnSync('dpkg-deb', ['-x', deb, unpacked]).status).toBe(0)
    wrapper = join(unpacked, 'usr', 'bin', 'gateway')
    executable = join(unpacked, 'usr', 'lib', 'gateway', 'gateway')
    man = gunzipSync(readFileSync(join(unpacked, 'usr', 'share', 'man', 'man1', 'gateway.1.gz'))).toString('utf8')
    env = {HOME: dir, PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', GATEWAY_CONFIG_DIR: join(dir, 'config')}
  })
  afterAll(() => rmSync(dir, {recursive: true, force: true}))

  describe('/usr/bin/gateway leaves the operator’s NODE_OPTIONS out', () => {
    let preload: string
    let marker: string
    beforeAll(() => {
      marker = join(dir, 'preload-ran')
      preload = join(dir, 'x.js')
      writeFileSync(preload, `require('node:fs').appendFileSync(${JSON.stringify(marker)}, 'ran\\n')\n`)
    })

    it('is a small sh script that unsets NODE_OPTIONS and execs /usr/lib/gateway/gateway', () => {
      const script = readFileSync(wrapper, 'utf8')
      expect(script).toMatch(/^#!\/bin\/sh\n/)
      expect(script).toMatch(/^unset NODE_OPTIONS$/m)
      expect(script).toMatch(/^exec "\$real" "\$@"$/m)
      expect(script.length).toBeLessThan(1024)
    })

    it('NODE_OPTIONS=--require x.js: x.js does not run, and the output is as without it', () => {
      const plain = run(wrapper, ['--version'])
      rmSync(marker, {force: true})
      const withPreload = run(wrapper, ['--version'], {NODE_OPTIONS: `--require ${preload}`})
      expect(withPreload).toEqual(plain)
      expect(plain.code).toBe(0)
      expect(existsSync(marker)).toBe(false)
    })

    it('the executable run directly ignores NODE_OPTIONS too, as the man page and README say', () => {
      rmSync(marker, {force: true})
      expect(run(executable, ['--version'], {NODE_OPTIONS: `--require ${preload}`})).toEqual(run(executable, ['--version']))
      expect(existsSync(marker)).toBe(false)
    })

    it('NODE_OPTIONS=--inspect-brk=0 changes nothing: a command without a login still exits 3 with its own message', () => {
      const args = ['tx', 'get', '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11']
      const plain = run(wrapper, args)
      expect(plain.code).toBe(3)
      expect(plain.stderr).toMatch(/not logged in/)
      const inspected = run(wrapper, args, {NODE_OPTIONS: '--inspect-brk=0'})
      expect({...inspected, stderr: unstamped(inspected.stderr)}).toEqual({...plain, stderr: unstamped(plain.stderr)})
      // Run bare, the executable takes no Node option from NODE_OPTIONS either.
      const bare = run(executable, args, {NODE_OPTIONS: '--inspect-brk=0'})
      expect({...bare, stderr: unstamped(bare.stderr)}).toEqual({...plain, stderr: unstamped(plain.stderr)})
    })

    it('finds the executable under /usr/lib/gateway when started through a link elsewhere', () => {
      // A link's folder has no ../lib/gateway beside it: the wrapper falls back to the installed path,
      // which this machine does not have, and says so through sh.
      const link = join(dir, 'elsewhere', 'gateway')
      spawnSync('mkdir', ['-p', join(dir, 'elsewhere')])
      spawnSync('ln', ['-s', wrapper, link])
      const result = run(link, ['--version'])
      if (existsSync('/usr/lib/gateway/gateway')) expect(result.code).toBe(0)
      else expect(result.stderr).toMatch(/\/usr\/lib\/gateway\/gateway/)
    })
  })

  it('Recommends: bash-completion, whose loader reads the bash completion it installs (a fresh Debian may lack it)', () => {
    expect(spawnSync('dpkg-deb', ['-f', deb, 'Recommends'], {encoding: 'utf8'}).stdout.trim()).toBe('bash-completion')
  })

  it('Depends: the packages of the libraries the executable links, each with a lowest version', () => {
    const depends = spawnSync('dpkg-deb', ['-f', deb, 'Depends'], {encoding: 'utf8'}).stdout.trim().split(', ')
    for (const entry of depends) expect(entry).toMatch(/^[a-z0-9.+-]+ \(>= [0-9][0-9.~+-]*\)$/)
    const packages = depends.map((entry) => entry.split(' ')[0])
    // Every library ldd resolves belongs to one of them.
    const libraries = [...spawnSync('ldd', [executable], {encoding: 'utf8'}).stdout.matchAll(/=> (\/\S+)/g)].map((match) => match[1])
    expect(libraries.length).toBeGreaterThan(0)
    const owners = new Set(
      libraries.map((path) => {
        for (const candidate of [path, path.startsWith('/usr/') ? path.slice(4) : `/usr${path}`]) {
          const search = spawnSync('dpkg', ['-S', candidate], {encoding: 'utf8'})
          if (search.status === 0) return search.stdout.split(':')[0]
        }
        throw new Error(`no package holds ${path}`)
      }),
    )
    expect([...owners].sort()).toEqual([...packages].sort())
    expect(packages).toEqual(expect.arrayContaining(['libc6', 'libstdc++6', 'libgcc-s1']))
    // The installed versions satisfy them, as dpkg would check.
    for (const entry of depends) {
      const [name, version] = /^(\S+) \(>= (\S+)\)$/.exec(entry)!.slice(1)
      const installed = spawnSync('dpkg-query', ['-W', '-f', '${Version}', name], {encoding: 'utf8'}).stdout
      expect(spawnSync('dpkg', ['--compare-versions', installed, 'ge', version]).status, `${name} ${installed} >= ${version}`).toBe(0)
    }
    // The highest GLIBC symbol version the executable asks for is what libc6's minimum says.
    const glibc = [...spawnSync('objdump', ['-p', executable], {encoding: 'utf8', maxBuffer: 64 << 20}).stdout.matchAll(/ GLIBC_(\d+)\.(\d+)/g)]
      .map((match) => [Number(match[1]), Number(match[2])])
      .sort((a, b) => a[0] - b[0] || a[1] - b[1])
      .at(-1)!
    expect(depends).toContain(`libc6 (>= ${glibc.join('.')})`)
  })

  describe('the man page', () => {
    const section = (name: string) => {
      const start = man.indexOf(`.SH ${name}\n`)
      expect(start, `no ${name} section`).toBeGreaterThanOrEqual(0)
      const end = man.indexOf('\n.SH ', start + 1)
      return man.slice(start, end < 0 ? undefined : end).replace(/\\-/g, '-').replace(/\\f[BIR]/g, '')
    }

    it('ENVIRONMENT names every GATEWAY_ variable the CLI reads, NO_COLOR, XDG_CONFIG_HOME, HOME and NODE_OPTIONS', () => {
      const read = new Set<string>()
      const walk = (folder: string) => {
        for (const entry of readdirSync(folder, {withFileTypes: true})) {
          const path = join(folder, entry.name)
          if (entry.isDirectory()) walk(path)
          else if (path.endsWith('.ts')) for (const match of readFileSync(path, 'utf8').matchAll(/env\.(GATEWAY_[A-Z_]+)|env: '(GATEWAY_[A-Z_]+)'/g)) read.add(match[1] ?? match[2])
        }
      }
      walk(join(ROOT, 'src'))
      expect(read.size).toBeGreaterThanOrEqual(7)
      const environment = section('ENVIRONMENT')
      for (const variable of [...read, 'NO_COLOR', 'XDG_CONFIG_HOME', 'HOME', 'NODE_OPTIONS']) expect(environment, variable).toContain(variable)
      expect(environment).toMatch(/executable run directly ignores NODE_OPTIONS too/)
    })

    it('EXIT STATUS has a row for each code of the README’s table', () => {
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
      const codes = [...readme.slice(readme.indexOf('| Exit code |')).split('\n\n')[0].matchAll(/^\| (\d+) \|/gm)].map((match) => match[1])
      expect(codes).toEqual(expect.arrayContaining(['0', '2', '3', '9', '130']))
      const rows = [...section('EXIT STATUS').matchAll(/^\.TP\n\.B (\d+)$/gm)].map((match) => match[1])
      expect(rows).toEqual(codes)
    })

    it('FILES lists the config folder and its files; REMOVING says dpkg -r leaves them, credentials included, and how to remove them', () => {
      const files = section('FILES')
      for (const name of ['$GATEWAY_CONFIG_DIR', '$XDG_CONFIG_HOME/gateway', '~/.config/gateway', 'config.json', 'credentials.json', 'tokens.json', 'journal.jsonl']) expect(files).toContain(name)
      const removing = section('REMOVING')
      expect(removing).toMatch(/dpkg -r gateway/)
      expect(removing).toMatch(/credentials\.json/)
      expect(removing).toMatch(/journal list --pending/)
      expect(removing).toContain('rm -rf -- "${GATEWAY_CONFIG_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/gateway}"')
    })

    it('EXAMPLES holds every example of every command\'s --help, filled as the help shows it, and no Markdown link', () => {
      const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {hidden?: boolean; examples?: Array<string | {command: string}>}>}
      const examples = section('EXAMPLES').replace(/\\e/g, '\\').replace(/\\\[u([0-9A-F]{4})\]/g, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
      let count = 0
      for (const [id, command] of Object.entries(manifest.commands)) {
        if (command.hidden) continue
        for (const example of command.examples ?? []) {
          const text = (typeof example === 'string' ? example : example.command).replaceAll('<%= config.bin %>', 'gateway').replaceAll('<%= command.id %>', id.replaceAll(':', ' '))
          expect(examples, `${id}: ${text}`).toContain(`\n${text.replace(/^([.'])/, '\\&$1')}\n`)
          count++
        }
      }
      expect(count).toBeGreaterThan(50)
      expect(man).not.toMatch(/\]\(/)
    })

    it('renders without warnings', () => {
      const render = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z'], {input: man, encoding: 'utf8'})
      if (render.error) return expect.soft(render.error.message, 'groff is not installed: the man page is not rendered here').toBe('')
      expect(render.stderr).toBe('')
    })
  })

  it('the README says what the man page says about NODE_OPTIONS and removal', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const installing = readme.slice(readme.indexOf('## Installing'), readme.indexOf('\n## ', readme.indexOf('## Installing') + 1))
    expect(installing).toMatch(/NODE_OPTIONS/)
    expect(installing).toMatch(/run directly[^.]*ignores `NODE_OPTIONS` too/)
    expect(installing).toMatch(/`sudo dpkg -r gateway`[^.]*leaves/)
    expect(installing).toContain('rm -rf -- "${GATEWAY_CONFIG_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/gateway}"')
    expect(installing).toMatch(/Depends/)
  })

  it('ships the bill of materials the build wrote, as /usr/share/doc/gateway/sbom.cdx.json', () => {
    const shipped = readFileSync(join(unpacked, 'usr', 'share', 'doc', 'gateway', 'sbom.cdx.json'), 'utf8')
    expect(shipped).toBe(readFileSync(join(ROOT, 'dist', 'sbom.cdx.json'), 'utf8'))
  })

  it('installs the completion scripts gateway completion prints, bound with complete -F', () => {
    const bash = join(unpacked, 'usr', 'share', 'bash-completion', 'completions', 'gateway')
    const zsh = join(unpacked, 'usr', 'share', 'zsh', 'vendor-completions', '_gateway')
    expect(readFileSync(bash, 'utf8')).toBe(run(wrapper, ['completion', 'bash']).stdout)
    expect(readFileSync(zsh, 'utf8')).toBe(run(wrapper, ['completion', 'zsh']).stdout)
    expect(bashCompletes(bash, ['gateway', 'tx', 'create', '--amount', '1000', '--qr'])).toEqual(['--qr', '--qr-png'])
    expect(bashCompletes(bash, ['gateway', 'deposits', 'list', '--status', 'PAID', '--out'])).toEqual(['--output', '--output-file'])
    expect(bashCompletes(bash, ['gateway', '--profile', 'prod', 'tx', ''])).toEqual(['create', 'get'])
  })
})
