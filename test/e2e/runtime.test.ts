import {spawnSync} from 'node:child_process'
import {copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

/**
 * The runtime: the project's own Node (package.json devDependencies.node, scripts/runtime.mjs) runs
 * every npm script, the single executable carries it, and an older Node is told which it needs.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const BIN = join(ROOT, 'bin', 'run.js')
const EXECUTABLE = join(ROOT, 'dist', 'package', 'gateway')
const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {engines: {node: string}; devDependencies: Record<string, string>; allowScripts?: Record<string, boolean>}
const PINNED = `v${pjson.devDependencies.node}`
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GATEWAY_') && key !== 'NODE_OPTIONS')) as Record<string, string>

/** The Node binaries on this machine other than the pinned one (the machine's own, nvm's, …). */
function otherNodes(): {path: string; version: string}[] {
  const candidates = new Set(['/usr/bin/node', '/usr/local/bin/node', ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'node'))])
  const found = []
  const seen = new Set<string>()
  for (const path of candidates) {
    if (!existsSync(path) || path.includes('node_modules') || seen.has(realpathSync(path))) continue
    seen.add(realpathSync(path))
    const version = spawnSync(path, ['-p', 'process.versions.node'], {encoding: 'utf8', env}).stdout?.trim()
    if (version) found.push({path, version})
  }
  return found
}
const older = (version: string) => {
  const [major, minor] = version.split('.').map(Number)
  return major < 22 || (major === 22 && minor < 19)
}

describe('the runtime', () => {
  it('package.json pins one exact Node and asks for Node 22.19 or newer; npm may run the pinned package’s preinstall', () => {
    expect(pjson.devDependencies.node).toMatch(/^\d+\.\d+\.\d+$/)
    expect(Number(pjson.devDependencies.node.split('.')[0])).toBeGreaterThanOrEqual(24)
    expect(pjson.engines.node).toBe('>=22.19.0')
    expect(pjson.allowScripts?.node).toBe(true)
  })

  it('the tests run on the pinned Node, and `node` on an npm script’s PATH is that Node', () => {
    expect(process.version).toBe(PINNED)
    expect(spawnSync('node', ['-p', 'process.version'], {encoding: 'utf8', env}).stdout.trim()).toBe(PINNED)
  })

  it('bin/run.js checks the same Node version as package.json engines, before anything else', () => {
    const source = readFileSync(BIN, 'utf8')
    const [, major, minor] = /^>=(\d+)\.(\d+)\.0$/.exec(pjson.engines.node)!
    expect(source).toContain(`nodeMajor < ${major} || (nodeMajor === ${major} && nodeMinor < ${minor})`)
    expect(source).toContain(`needs Node.js ${major}.${minor} or newer`)
    // Nothing is required before the check: an older Node never loads the CLI.
    expect(source.indexOf('nodeMajor <')).toBeLessThan(source.indexOf('require('))
  })

  describe('an older Node', () => {
    const olderNodes = otherNodes().filter(({version}) => older(version))
    let work: string
    beforeAll(() => {
      work = mkdtempSync(join(tmpdir(), 'gateway-old-node-'))
    })
    afterAll(() => rmSync(work, {recursive: true, force: true}))

    it.skipIf(olderNodes.length === 0)('started from a checkout, runs the CLI again on the checkout’s own Node: the same output and exit code, whatever the command', () => {
      for (const {path} of olderNodes) {
        for (const args of [['--version'], ['tx', 'get', '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11', '--json'], ['tx', 'create', '--amount', '10.00']]) {
          const options = {encoding: 'utf8' as const, env: {...env, GATEWAY_CONFIG_DIR: join(work, 'config')}, timeout: 30_000}
          const old = spawnSync(path, [BIN, ...args], options)
          const pinned = spawnSync(process.execPath, [BIN, ...args], options)
          expect(old.status, `${path} ${args.join(' ')}: ${old.stderr}`).toBe(pinned.status)
          expect(old.stdout).toBe(pinned.stdout)
          const stamp = (text: string) => text.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z /gm, '')
          expect(stamp(old.stderr)).toBe(stamp(pinned.stderr))
        }
        expect(spawnSync(path, [BIN, '--version'], {encoding: 'utf8', env}).stdout).toMatch(new RegExp(` node-${PINNED.replaceAll('.', '\\.')}\\n$`))
      }
    })

    it.skipIf(olderNodes.length === 0)('a Ctrl-C reaches the CLI on the checkout’s own Node, and its exit code comes back', () => {
      const [{path}] = olderNodes
      const stop = (node: string) => spawnSync('/bin/sh', ['-c', `${node} ${BIN} sandbox start --port 0 --json & pid=$!; sleep 4; kill -INT $pid; wait $pid`], {encoding: 'utf8', env, timeout: 30_000})
      const [old, pinned] = [stop(path), stop(process.execPath)]
      // The sandbox was up (it printed where it listens), stopped on SIGINT as it does on the pinned Node, and the older Node's process ended as it ended.
      expect(old.stdout).toMatch(/"baseUrl":"http:\/\/127\.0\.0\.1:\d+"/)
      expect(old.status).toBe(pinned.status)
    })

    it.skipIf(olderNodes.length === 0)('without the checkout’s own Node, is told in one line which Node the CLI needs, and in a checkout the command that installs it; exit 1', () => {
      for (const {path, version} of olderNodes) {
        for (const checkout of [true, false]) {
          // bin/run.js alone, as in a checkout before `npm ci` (it has package-lock.json) or an installed package (it has none).
          const copy = mkdtempSync(join(work, 'copy-'))
          mkdirSync(join(copy, 'bin'))
          copyFileSync(BIN, join(copy, 'bin', 'run.js'))
          writeFileSync(join(copy, 'bin', 'package.json'), '{"type": "commonjs"}\n')
          if (checkout) writeFileSync(join(copy, 'package-lock.json'), '{}\n')
          for (const args of [['--version'], ['tx', 'get', '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11', '--json'], ['sandbox', 'start']]) {
            const run = spawnSync(path, [join(copy, 'bin', 'run.js'), ...args], {encoding: 'utf8', env: {...env, GATEWAY_CONFIG_DIR: join(work, 'config')}, timeout: 30_000})
            expect(run.status, `${path} ${args.join(' ')}`).toBe(1)
            expect(run.stdout).toBe('')
            const install = checkout ? `; \`npm ci\` in ${join(copy, 'bin', '..')} installs the checkout's own Node, which it then runs on` : ''
            expect(run.stderr).toBe(`gateway needs Node.js 22.19 or newer; this is Node.js v${version} (${realpathSync(path)})${install}\n`)
          }
        }
      }
    })

    it('a Node made to look older by its version alone is refused the same way (whatever this machine has)', () => {
      const preload = join(work, 'old.cjs')
      writeFileSync(preload, `Object.defineProperty(process.versions, 'node', {value: '22.18.9'}); Object.defineProperty(process, 'version', {value: 'v22.18.9'})\n`)
      const run = spawnSync(process.execPath, ['--require', preload, BIN, 'tx', 'list'], {encoding: 'utf8', env})
      expect(run.status).toBe(1)
      expect(run.stderr).toBe(`gateway needs Node.js 22.19 or newer; this is Node.js v22.18.9 (${process.execPath})\n`)
    })
  })

  describe('the single executable', () => {
    it('carries the pinned Node and says so in --version, as the checkout does', () => {
      expect(existsSync(EXECUTABLE), `${EXECUTABLE} is missing: run npm run package`).toBe(true)
      const run = spawnSync(EXECUTABLE, ['--version'], {encoding: 'utf8', env})
      expect(run.status).toBe(0)
      expect(run.stdout).toMatch(new RegExp(` node-${PINNED.replaceAll('.', '\\.')}\\n$`))
      expect(spawnSync(process.execPath, [BIN, '--version'], {encoding: 'utf8', env}).stdout).toBe(run.stdout)
    })

    it('takes no Node options from NODE_OPTIONS: a --require preload does not run', () => {
      const work = mkdtempSync(join(tmpdir(), 'gateway-exe-options-'))
      try {
        const marker = join(work, 'ran')
        writeFileSync(join(work, 'x.cjs'), `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran')\n`)
        const run = spawnSync(EXECUTABLE, ['--version'], {encoding: 'utf8', env: {...env, NODE_OPTIONS: `--require ${join(work, 'x.cjs')}`}})
        expect(run.status).toBe(0)
        expect(existsSync(marker)).toBe(false)
      } finally {
        rmSync(work, {recursive: true, force: true})
      }
    })
  })
})
