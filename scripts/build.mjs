#!/usr/bin/env node
// Builds the CLI in four steps:
//   1. tsc: type-checks src/ and writes dist/ module by module (the library in dist/api, and
//      declarations);
//   2. esbuild: bundles @oclif/core and every command into one file, dist/bundle/gateway.cjs,
//      which bin/run.js starts. The commands are found here, at build time, from
//      src/commands/**/*.ts (topic/verb.ts is `topic verb`, topic/index.ts is `topic`), and handed
//      to oclif as one object under its `explicit` command-discovery strategy (package.json
//      oclif.commands). What a command loads with `await import()` is in the file too, but runs
//      only when reached;
//   3. oclif manifest: oclif.manifest.json, from the bundle, so help and command lookup never
//      load a command;
//   4. a V8 code cache of the bundle (dist/bundle/gateway.cjs.cache), made by running the CLI's
//      hot paths against a sandbox: bin/run.js hands it to V8, which then skips most compiling.
// Usage: node scripts/build.mjs [--no-manifest] [--no-minify] [--no-code-cache] [--metafile FILE]
//   [--without-patches undici,oclif]
// (FILE: esbuild's account of the main bundle, for size studies, and FILE.fast-*.cjs.json of each
// fast bundle; --without-patches: a build with that package's PATCHES and stand-ins left out, to
// measure what they buy)
import {execFileSync, spawn} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {dirname, join, relative, sep} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath, pathToFileURL} from 'node:url'

import {build as esbuild, version as esbuildVersion} from 'esbuild'

import {contractShapesSource} from './contract-shapes.mjs'
import {FAST_COMMANDS, fastBundleName, fastCommandProblems, vendorBundleName} from './fast-table.mjs'
import {onPinnedNode, pinnedNode} from './runtime.mjs'
import {writeSbom} from './sbom.mjs'

// The code caches are Node's own (V8 refuses them from another Node): built on the project's Node.
onPinnedNode(import.meta.url)

const root = fileURLToPath(new URL('..', import.meta.url))
/** esbuild's account of every bundle written (what went into each), for the bill of materials. */
const metafiles = []
const build = async (options) => {
  const result = await esbuild({...options, metafile: true})
  metafiles.push(result.metafile)
  return result
}
const require = createRequire(import.meta.url)
const commandsDir = join(root, 'src', 'commands')
const bundle = join(root, 'dist', 'bundle', 'gateway.cjs')
const bin = join(root, 'bin', 'run.js')

/** Every command file under src/commands, with its oclif id. */
function discoverCommands(dir = commandsDir) {
  return readdirSync(dir, {withFileTypes: true})
    .flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return discoverCommands(path)
      if (!entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) return []
      const parts = relative(commandsDir, path).slice(0, -'.ts'.length).split(sep)
      if (parts.at(-1) === 'index') parts.pop()
      return [{id: parts.join(':'), path}]
    })
    .sort((a, b) => a.id.localeCompare(b.id))
}

/**
 * Plugins that ship inside the bundle, as parts of the CLI itself: oclif then loads no plugin at
 * start-up (reading each one's package.json and manifest took ~10 ms of every run). Their commands
 * are found from the manifest each plugin publishes, and their hooks from its package.json; the
 * CLI's package.json names each hook (oclif.hooks), and the build checks that it does.
 */
const BUNDLED_PLUGINS = ['@oclif/plugin-help']
/**
 * Hooks of the CLI's own, bundled and declared as the plugins' are. command_not_found: a mistyped
 * command is never run, nor offered to be run (the not-found plugin asks in a terminal whether to
 * run the closest command, and Enter runs it); bin/run.js says it in one line, with the closest
 * command, and exits 2.
 */
const OWN_HOOKS = [{event: 'command_not_found', path: join(root, 'src', 'cli', 'not-found.ts'), identifier: 'notFoundHook'}]
/** Events that never happen here: the CLI has no plugin installer. */
const NO_SUCH_EVENTS = new Set(['plugins:preinstall', 'plugins:postinstall', 'plugins:preuninstall', 'plugins:postuninstall'])

/** A file of a plugin, as oclif finds it: the path itself, with .js, or a folder's index.js. */
function pluginFile(dir, target) {
  const path = join(dir, target)
  for (const candidate of [path, `${path}.js`, join(path, 'index.js')]) {
    try {
      if (statSync(candidate).isFile()) return candidate
    } catch {
      // Try the next.
    }
  }
  throw new Error(`${dir}: no file for ${target}`)
}

function pluginParts(name) {
  const dir = join(root, 'node_modules', ...name.split('/'))
  const pjson = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  let manifest = {commands: {}}
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'oclif.manifest.json'), 'utf8'))
  } catch (error) {
    if (error.code !== 'ENOENT') throw error
  }
  const commands = Object.entries(manifest.commands).map(([id, command]) => ({id, path: join(dir, ...command.relativePath)}))
  const hooks = Object.entries(pjson.oclif?.hooks ?? {})
    .filter(([event]) => !NO_SUCH_EVENTS.has(event))
    .flatMap(([event, targets]) =>
    [targets].flat().map((target) => ({event, path: pluginFile(dir, typeof target === 'string' ? target : target.target), identifier: target.identifier ?? 'default'})),
  )
  return {commands, hooks}
}

/** The identifier the bundle exports a plugin's hook under. */
const hookIdentifier = (event) => `HOOK_${event.replace(/\W/g, '_')}`

/** The source name of a vendor bundle's entry, and how the fast bundles name what it offers. */
const VENDOR_ENTRY = 'gateway-vendor-entry.js'
const VENDOR_PREFIX = 'gateway-vendor:'

/** Where the entry puts an oclif manifest handed over in memory, for the root plugin to take (PATCHES). */
const MANIFEST_KEY = 'gateway:manifest'

/** The bundle's entry: oclif's runner, the command index for the explicit strategy, the hooks. */
function entrySource(commands, hooks) {
  const lines = [
    // First: a uid with no passwd entry must not stop oclif from loading.
    `import ${JSON.stringify(join(root, 'src', 'cli', 'no-passwd.ts'))}`,
    `import {readFileSync} from 'node:fs'`,
    `import {join} from 'node:path'`,
    `import {flush, handle, run as runOclif, settings} from '@oclif/core'`,
    `export {flush, handle}`,
    `/**`,
    ` * Runs the CLI whose package is in root. The single executable hands over its package.json and`,
    ` * oclif manifest (inMemory) from its own assets, and root names no folder: oclif then reads neither`,
    ` * from disk (a patch below), and finds its commands and hooks in the bundle the loader registered.`,
    ` */`,
    `export function run(root, argv, inMemory) {`,
    // A built CLI: never look for TypeScript sources to transpile (oclif would load typescript).
    `  settings.enableAutoTranspile = false`,
    // The package.json, read here at once, spares oclif its search for the package's root.
    `  const pjson = inMemory?.pjson ?? JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))`,
    `  if (inMemory?.manifest) Object.defineProperty(pjson, ${JSON.stringify(MANIFEST_KEY)}, {value: inMemory.manifest})`,
    // Global flags before the command (gateway --profile prod tx get ID) go after it, where oclif reads them.
    `  if (/^--[a-z]/.test(argv[0] ?? '') && !/^--(version|help)$/.test(argv[0])) {`,
    `    const manifest = inMemory?.manifest ?? JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))`,
    `    argv = require(${JSON.stringify(join(root, 'src', 'cli', 'argv.ts'))}).commandFirst(argv, manifest)`,
    `  }`,
    // Only the code the CLI carries: no user plugins (oclif reads them from a package.json under the
  // home's data folder, the temporary folder when there is no home), and no dev plugins.
  `  return runOclif(argv, {root, pjson, userPlugins: false, devPlugins: false})`,
    `}`,
    // bin/run.js words a mistyped command itself.
    `export function commandNotFound(...args) {`,
    `  return require(${JSON.stringify(join(root, 'src', 'cli', 'not-found.ts'))}).commandNotFound(...args)`,
    `}`,
  ]
  for (const {event, path, identifier} of hooks) {
    lines.push(`export function ${hookIdentifier(event)}(options) {`)
    lines.push(`  return require(${JSON.stringify(path)})[${JSON.stringify(identifier)}].call(this, options)`)
    lines.push(`}`)
  }
  // Each command's module (and what it imports) is evaluated when oclif asks for that command,
  // never at start-up: `--version` evaluates none, `tx get` only its own.
  lines.push('export const COMMANDS = Object.defineProperties({}, {')
  for (const {id, path} of commands) lines.push(`  ${JSON.stringify(id)}: {enumerable: true, get: () => require(${JSON.stringify(path)}).default},`)
  lines.push('})')
  return `${lines.join('\n')}\n`
}

/**
 * undici's index loads all of undici (fetch, WebSocket, caches, mocks: ~30 ms), and its cookie
 * module reads globalThis.Headers, which makes Node load its own copy of undici too (~25 ms more).
 * The CLI needs only the agent, the retry interceptor and each dispatcher's own request() (undici's
 * Dispatcher API, the origin and path given apart), so the bundle takes them from undici's own
 * modules, six of them, and puts undici's API on every dispatcher as its index does.
 * The names offered are listed here; the build fails if the sources ask undici for another one.
 */
const UNDICI_SLIM = `
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js'
import apiRequest from 'undici/lib/api/api-request.js'
export {default as Agent} from 'undici/lib/dispatcher/agent.js'
export {default as Pool} from 'undici/lib/dispatcher/pool.js'
export {default as buildConnector} from 'undici/lib/core/connect.js'
export {Dispatcher}
// Loaded only for a gateway reached through a proxy (src/api/transport.ts).
export function ProxyAgent(options) {
  const Real = require('undici/lib/dispatcher/proxy-agent.js')
  return new Real(options)
}
// The global dispatcher (an agent undici makes when its module is first loaded), when first asked for.
export const getGlobalDispatcher = () => require('undici/lib/global.js').getGlobalDispatcher()
// The interceptors the sources use, each loaded when first asked for.
export const interceptors = {
  get retry() { return require('undici/lib/interceptor/retry.js') },
}

// undici's index puts its API (lib/api) on Dispatcher.prototype: request(), stream(), pipeline(),
// upgrade() and connect(). The CLI calls request() alone, so the other four are read from that
// same module only when first called (loading them all costs some 2 to 6 ms of a request's start-up).
Object.assign(Dispatcher.prototype, {
  request: apiRequest,
  stream(...args) { return require('undici/lib/api/index.js').stream.apply(this, args) },
  pipeline(...args) { return require('undici/lib/api/index.js').pipeline.apply(this, args) },
  upgrade(...args) { return require('undici/lib/api/index.js').upgrade.apply(this, args) },
  connect(...args) { return require('undici/lib/api/index.js').connect.apply(this, args) },
})
`
const UNDICI_SLIM_NAMES = new Set(['Agent', 'Pool', 'ProxyAgent', 'buildConnector', 'Dispatcher', 'getGlobalDispatcher', 'interceptors'])
const UNDICI_INTERCEPTORS = new Set(['retry'])

/** The names a source file takes from undici: `import {a, b as c} from 'undici'`, `const {a} = await import('undici')`. */
function undiciNames(source) {
  const lists = [
    ...source.matchAll(/import\s*\{([^{}]*)\}\s*from\s*['"]undici['"]/g),
    ...source.matchAll(/\{([^{}]*)\}\s*=\s*await\s+import\(\s*['"]undici['"]\s*\)/g),
  ]
  // Any other use (a namespace, a default import, an import() kept whole) takes all of it.
  const uses = source.match(/from\s*['"]undici['"]|import\(\s*['"]undici['"]\s*\)/g)?.length ?? 0
  const whole = uses > lists.length
  return {names: lists.flatMap(([, list]) => list.split(',').map((item) => item.split(/\s+as\s+|:/)[0].trim()).filter(Boolean)), whole}
}

/**
 * Changes to dependencies' code on the start-up path, each found verbatim or the build fails.
 */
const PATCHES = [
  // The single executable hands the root plugin its manifest in memory (see run() in the entry):
  // nothing is read from a folder another user could have written to.
  {
    name: 'manifest-in-memory',
    file: 'node_modules/@oclif/core/lib/config/plugin.js',
    find: 'const manifest = await (0, fs_1.readJson)(p);',
    replace: `const manifest = (!dotfile && this.options.isRoot && this.pjson[${JSON.stringify(MANIFEST_KEY)}]) || await (0, fs_1.readJson)(p);`,
  },
  // oclif reads a theme from the config folder under the home (the temporary folder when there is
  // none), which another user may have written: the CLI paints with its own colours only.
  {
    file: 'node_modules/@oclif/core/lib/config/config.js',
    find: '(0, fs_1.safeReadJson)(userThemeFile),',
    replace: 'undefined,',
  },
  // oclif sorts a plugin's commands with localeCompare, whose first call loads ICU's collation
  // (10 to 40 ms); the ids are ASCII, where comparing code units gives the same order.
  {
    name: 'ascii-sort',
    file: 'node_modules/@oclif/core/lib/config/plugin.js',
    find: '.sort((a, b) => a.id.localeCompare(b.id));',
    replace: '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));',
  },
  // oclif loads node:child_process at start (~6 ms, with node:net) for a shell it looks for on
  // Windows only, and asks wsl-utils, which loads it too, whether it runs under WSL: load it when
  // used, and ask is-wsl (whose answer wsl-utils passes on).
  {
    name: 'child-process-on-demand',
    file: 'node_modules/@oclif/core/lib/util/os.js',
    find: 'const node_child_process_1 = require("node:child_process");',
    replace: 'const node_child_process_1 = {execSync: (...args) => require("node:child_process").execSync(...args)};',
  },
  {
    name: 'child-process-on-demand',
    file: 'node_modules/@oclif/core/lib/util/os.js',
    find: "return (await import('wsl-utils')).isWsl ? 'wsl' : (0, node_os_1.platform)();",
    replace: "return (await import('is-wsl')).default ? 'wsl' : (0, node_os_1.platform)();",
  },
]

// undici reads node:http at load for one class to compare against (when it destroys a stream)
// and for the default largest header block, which the CLI sets itself (src/api/client.ts): some
// 2.5 ms of every request's start-up. Read it when used.
PATCHES.push(
  {
    name: 'no-node-http',
    file: 'node_modules/undici/lib/core/util.js',
    find: "const { IncomingMessage } = require('node:http')",
    replace: '',
  },
  {
    name: 'no-node-http',
    file: 'node_modules/undici/lib/core/util.js',
    find: 'if (Object.getPrototypeOf(stream).constructor === IncomingMessage) {',
    replace: "if (Object.getPrototypeOf(stream).constructor === require('node:http').IncomingMessage) {",
  },
  {
    name: 'no-node-http',
    file: 'node_modules/undici/lib/dispatcher/client.js',
    find: "const http = require('node:http')",
    replace: "const http = {get maxHeaderSize () { return require('node:http').maxHeaderSize }}",
  },
  {
    name: 'no-node-http',
    file: 'node_modules/undici/lib/dispatcher/client.js',
    find: `const getDefaultNodeMaxHeaderSize = http &&
  http.maxHeaderSize &&
  Number.isInteger(http.maxHeaderSize) &&
  http.maxHeaderSize > 0
  ? () => http.maxHeaderSize
  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }`,
    replace: `const getDefaultNodeMaxHeaderSize = () => {
  const size = http.maxHeaderSize
  if (Number.isInteger(size) && size > 0) return size
  throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid')
}`,
  },
)

// undici's HTTP/2 client, evaluated only for a connection that speaks HTTP/2 (which the CLI never
// asks for): evaluated, it loads node:http2, which nearly doubles a lookup's instructions.
PATCHES.push({
  name: 'h2-client-on-demand',
  file: 'node_modules/undici/lib/dispatcher/client.js',
  find: "const connectH2 = require('./client-h2.js')",
  replace: "const connectH2 = (...args) => require('./client-h2.js')(...args)",
})

/**
 * A module (a Node built-in or a package) that a dependency requires at the top of a module and
 * uses only inside functions, loaded on first use instead: each is found verbatim or the build
 * fails. esbuild still bundles the module; only its evaluation waits.
 */
const lazyRequire = (file, variable, module) => ({
  name: `${module.replace(/^node:/, '').replace('/', '-')}-on-demand`,
  file,
  find: `const ${variable} = require("${module}");`,
  replace: `const ${variable} = new Proxy({}, {get: (_, name) => require("${module}")[name]});`,
})
const oclif = (path) => `node_modules/@oclif/core/lib/${path}`
PATCHES.push(
  // oclif's parser reads flags from stdin only for flags that ask to (none here).
  lazyRequire(oclif('parser/parse.js'), 'node_readline_1', 'node:readline'),
  // oclif's performance marks, made only under OCLIF_PERFORMANCE.
  lazyRequire(oclif('performance.js'), 'node_perf_hooks_1', 'node:perf_hooks'),
  // oclif reads files (the manifest in a checkout) with these; the single executable reads none.
  lazyRequire(oclif('util/fs.js'), 'promises_1', 'node:fs/promises'),
)

/**
 * oclif's logger makes its `debug` loggers at start-up, and the debug library loads node:tty and
 * reads the environment for its colours. This stands in for the library, every logger off whatever
 * DEBUG says: the fast path has no oclif loggers, and DEBUG changes nothing on either path (nor
 * loads a module from outside the bundle; test/e2e/carried-code.test.ts). Not a speed patch: what
 * it buys in instructions is under 1%, and it stays for what it keeps out.
 */
const DEBUG_ON_DEMAND = `
function createDebug(namespace) {
  const off = () => {}
  off.enabled = false
  off.namespace = namespace
  off.log = () => {}
  off.extend = (name, delimiter = ':') => createDebug(namespace + delimiter + name)
  off.destroy = () => false
  return off
}
createDebug.enable = () => {}
createDebug.disable = () => ''
createDebug.enabled = () => false
module.exports = createDebug
module.exports.default = createDebug
`

/**
 * undici asserts its invariants with node:assert (some 2.5 ms to load): this stands in, and loads
 * node:assert only when an assertion fails or another of its functions is asked for, so that a
 * failure throws node:assert's own error.
 */
const ASSERT_ON_DEMAND = `
const real = () => require('node:assert')
function assert(value, message) {
  if (!value) real()(value, message)
}
module.exports = new Proxy(assert, {get: (target, name) => (name === 'ok' ? assert : name in target ? target[name] : real()[name])})
`

/**
 * The patches and stand-ins this build leaves out (--without-patches), for studies: a package's
 * (undici, oclif) or one patch by its name (a PATCHES entry's, or a stand-in's: debug-on-demand,
 * assert-on-demand). scripts/bench-patches.mjs counts what each buys.
 */
const withoutPatches = new Set(process.argv.includes('--without-patches') ? process.argv[process.argv.indexOf('--without-patches') + 1].split(',') : [])
const patchedPackage = (path) => (/[\\/]@oclif[\\/]core[\\/]/.test(path) ? 'oclif' : /[\\/]undici[\\/]/.test(path) ? 'undici' : undefined)
const knownPatches = new Set(['undici', 'oclif', 'debug-on-demand', 'assert-on-demand', ...PATCHES.map(({name}) => name)])
for (const name of withoutPatches) if (!knownPatches.has(name)) throw new Error(`--without-patches: no patch or package named ${name}`)
const leftOut = (path, name) => withoutPatches.has(patchedPackage(path)) || withoutPatches.has(name)

const onDemand = {
  name: 'on-demand',
  setup(builder) {
    builder.onResolve({filter: /^debug$/}, ({importer}) => (/[\\/]@oclif[\\/]core[\\/]/.test(importer) && !leftOut(importer, 'debug-on-demand') ? {path: 'debug', namespace: 'debug-on-demand'} : undefined))
    builder.onLoad({filter: /.*/, namespace: 'debug-on-demand'}, () => ({contents: DEBUG_ON_DEMAND, resolveDir: root, loader: 'js'}))
  },
}

const patches = {
  name: 'patches',
  setup(builder) {
    const files = new Map(PATCHES.map(({file}) => [join(root, file), PATCHES.filter((patch) => patch.file === file)]))
    builder.onLoad({filter: /[\\/]node_modules[\\/]/}, ({path}) => {
      const patchesOfFile = files.get(path)?.filter((patch) => !leftOut(path, patch.name))
      if (!patchesOfFile?.length) return undefined
      let source = readFileSync(path, 'utf8')
      for (const patch of patchesOfFile) {
        if (!source.includes(patch.find)) return {errors: [{text: `${patch.file} no longer has \`${patch.find}\`: review PATCHES in scripts/build.mjs`}]}
        source = source.replace(patch.find, patch.replace)
      }
      return {contents: source, loader: 'js'}
    })
  },
}

const slimUndici = {
  name: 'slim-undici',
  setup(builder) {
    builder.onResolve({filter: /^undici$/}, ({importer}) => {
      // A vendor bundle's entry (below) offers what src/ takes, which the main build has checked.
      if (importer === join(root, VENDOR_ENTRY)) return {path: 'undici', namespace: 'slim-undici'}
      const source = readFileSync(importer, 'utf8').replace(/import\s+type\s*\{[^}]*\}\s*from\s*['"]undici['"]/g, '')
      const {names, whole} = undiciNames(source)
      const missing = names.filter((name) => !UNDICI_SLIM_NAMES.has(name))
      // The interceptors offered: those the sources use.
      for (const [, name] of source.matchAll(/\binterceptors\.(\w+)/g)) if (!UNDICI_INTERCEPTORS.has(name)) missing.push(`interceptors.${name}`)
      if (whole || missing.length > 0) {
        const what = whole ? 'undici as a whole' : `${missing.join(', ')} from undici`
        return {errors: [{text: `${relative(root, importer)} takes ${what}: name each export it uses, and offer it in UNDICI_SLIM (scripts/build.mjs)`}]}
      }
      return {path: 'undici', namespace: 'slim-undici'}
    })
    builder.onLoad({filter: /.*/, namespace: 'slim-undici'}, () => ({contents: UNDICI_SLIM, resolveDir: root, loader: 'js'}))
    builder.onResolve({filter: /^node:assert$/}, ({importer}) =>
      /[\\/]node_modules[\\/]undici[\\/]/.test(importer) && !leftOut(importer, 'assert-on-demand') ? {path: 'node:assert', namespace: 'assert-on-demand'} : undefined,
    )
    builder.onLoad({filter: /.*/, namespace: 'assert-on-demand'}, () => ({contents: ASSERT_ON_DEMAND, loader: 'js'}))
  },
}

/**
 * How the fast path's bundles begin (`wrapped` below): as the function Node wraps a CommonJS module
 * in, which bin/run.js then compiles as it is read, where Module.wrap() would join the text into a
 * copy of it first (a copy of every bundle's text, in the young generation, on every run). The main
 * bundle stays a plain module: Node may require it.
 */
const BUNDLE_WRAPPER = '(function (exports, require, module, __filename, __dirname) { '

/**
 * Makes a bundle ASCII and ends it with its key. bin/run.js reads a bundle as Latin-1, some 3 ms
 * faster than decoding UTF-8, so it must be ASCII: esbuild escapes strings and identifiers, not
 * what is left in regular expressions and comments, which \u escapes mean the same in. Only
 * String.raw would see the difference. The key, of the content, lets bin/run.js offer V8 only a
 * code cache made for this very bundle (file times say nothing once npm has copied the files).
 */
function finishBundle(path, {wrapped = false} = {}) {
  const code = readFileSync(path, 'utf8')
  for (const [raw] of code.matchAll(/String\.raw`[^`]*`/g)) {
    if (/[^\0-\x7f]/.test(raw)) throw new Error(`${relative(root, path)} has a String.raw template with characters outside ASCII: ${raw.slice(0, 80)}`)
  }
  const escape = (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
  const escaped = code.replace(/[^\0-\x7f]/g, (char) => escape(char))
  const ascii = wrapped ? `${BUNDLE_WRAPPER}${escaped}\n})` : escaped
  writeFileSync(path, `${ascii}\n//# gateway-bundle ${createHash('sha256').update(ascii).digest('hex').slice(0, 32)}\n`, 'ascii')
}

const run = (command, args, env = {}) => execFileSync(command, args, {cwd: root, stdio: 'inherit', env: {...process.env, ...env}})
const binOf = (pkg, name) => join(root, 'node_modules', pkg, require(`${pkg}/package.json`).bin[name])

rmSync(join(root, 'dist'), {recursive: true, force: true})
run(process.execPath, [binOf('typescript', 'tsc'), '-p', 'tsconfig.json'])

// The answer contracts' shapes, which the client reads answers with before loading zod: written from
// the contracts tsc just built, and tsc run again when they changed (see scripts/contract-shapes.mjs).
// The source must hold the file for tsc to build at all: the committed one is what the last build wrote.
const shapesFile = join(root, 'src', 'schemas', 'contract-shapes.json')
const shapesSource = await contractShapesSource(join(root, 'dist'))
if (!existsSync(shapesFile) || readFileSync(shapesFile, 'utf8') !== shapesSource) {
  writeFileSync(shapesFile, shapesSource)
  run(process.execPath, [binOf('typescript', 'tsc'), '-p', 'tsconfig.json'])
}

const ownCommands = discoverCommands()
if (ownCommands.length === 0) throw new Error(`no command found under ${commandsDir}`)
const plugins = BUNDLED_PLUGINS.map(pluginParts)
const commands = [...ownCommands, ...plugins.flatMap((plugin) => plugin.commands)]
const clash = commands.find(({id}, index) => commands.findIndex((other) => other.id === id) !== index)
if (clash) throw new Error(`two commands have the id "${clash.id}"`)
const hooks = [...plugins.flatMap((plugin) => plugin.hooks), ...OWN_HOOKS]
const declared = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).oclif?.hooks ?? {}
for (const {event} of hooks) {
  if (hooks.filter((hook) => hook.event === event).length > 1) throw new Error(`two bundled hooks of "${event}": give each its own export`)
  const entry = [declared[event]].flat().find((hook) => hook?.identifier === hookIdentifier(event))
  if (!entry || entry.target !== './dist/bundle/gateway.cjs') {
    throw new Error(`package.json oclif.hooks must name the bundled "${event}" hook: {"target": "./dist/bundle/gateway.cjs", "identifier": "${hookIdentifier(event)}"}`)
  }
}
/** How every bundle of the CLI is built: the main one, and the fast path's plan, commands and vendor bundles. @type {import('esbuild').BuildOptions} */
const cliBuild = {
  bundle: true,
  // CommonJS: compiled by bin/run.js with vm.Script, from a V8 code cache made at build time.
  format: 'cjs',
  // `await import()` of a bundled module becomes a call of its initialiser, run when first reached.
  supported: {'dynamic-import': false},
  platform: 'node',
  target: 'node22',
  // Only oclif's development mode loads these, and a built CLI turns it off (see run above).
  external: ['typescript', 'ts-node', 'tsx'],
  // oclif checks that Node satisfies its own engines at every start (loading semver, ~5 ms);
  // npm checks the CLI's engines, which are stricter, at install.
  define: {'process.env.OCLIF_DISABLE_ENGINE_WARNING': '"1"'},
  plugins: [slimUndici, onDemand, patches],
  minify: !process.argv.includes('--no-minify'),
  keepNames: true,
  logLevel: 'warning',
}
const result = await build({
  ...cliBuild,
  stdin: {contents: entrySource(commands, hooks), resolveDir: root, sourcefile: 'gateway-entry.js', loader: 'js'},
  outfile: bundle,
  metafile: true,
})
finishBundle(bundle)

// The fast path (src/fast): each command it knows in a bundle of its own with its own code cache,
// which reads the line with oclif's parser and the definitions the command's class declares (the
// build checks that they are the same objects: scripts/fast-table.mjs), and the launcher
// (dist/bundle/launch.cjs) that bin/run.js and the executable both start: it runs a line from the
// command's bundle when that bundle's reading takes it, and oclif otherwise.

/**
 * Packages the fast bundles load from bundles of their own (dist/bundle/vendor-*.cjs, each with
 * its code cache), only when a command reaches them: a refused charge reads none of them, a lookup
 * only the HTTP client and the contracts. bin/run.js answers the fast bundles' requires of
 * `gateway-vendor:SPECIFIER` from them. The main bundle keeps its own copy of each.
 */
const VENDORS = ['zod', 'undici', 'conf', 'cli-table3', 'ora', 'qrcode-terminal', 'csv-parse', 'csv-stringify', 'fflate']
/**
 * Modules whose exports are bytes, which the fast path reads from a file of dist/bundle as they
 * are, with nothing to compile: undici's HTTP parsers as WebAssembly (with SIMD, and without),
 * which undici's vendor bundle would otherwise carry as 145 KB of base64 text. bin/run.js hands
 * over the file's bytes.
 */
const RAW_VENDORS = {'undici/lib/llhttp/llhttp_simd-wasm.js': 'llhttp_simd.wasm', 'undici/lib/llhttp/llhttp-wasm.js': 'llhttp.wasm'}
const vendorOf = (specifier) => VENDORS.find((name) => specifier === name || specifier.startsWith(`${name}/`))
const rawVendor = (specifier) => {
  if (!vendorSpecifiers.has(specifier)) vendorSpecifiers.set(specifier, new Set([specifier]))
  return {path: `${VENDOR_PREFIX}${specifier}`, external: true}
}

const declaredHooks = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).oclif?.hooks ?? {}
for (const {id, entry} of FAST_COMMANDS) {
  const {default: command} = await import(pathToFileURL(join(root, 'dist', 'commands', ...id.split(':')) + '.js').href)
  const {command: fast} = await import(pathToFileURL(join(root, 'dist', entry.replace(/^src\//, '').replace(/\.ts$/, '.js'))).href)
  const problems = fastCommandProblems(id, command, fast, declaredHooks)
  if (problems.length > 0) throw new Error(`the fast path cannot run \`${id.replaceAll(':', ' ')}\`: ${problems.join('; ')}`)
}
const vendorSpecifiers = new Map()
/** A fast bundle's packages, from vendor bundles, but for those it carries itself (FAST_COMMANDS). */
const vendorExternal = (carries) => ({
  name: 'vendor-external',
  setup(builder) {
    builder.onResolve({filter: /^[^./]/}, ({path, importer}) => {
      if (path.startsWith(VENDOR_PREFIX)) return {path, external: true}
      const name = vendorOf(path)
      if (!name || carries.includes(name) || /[\\/]node_modules[\\/]/.test(importer)) return undefined
      if (!vendorSpecifiers.has(name)) vendorSpecifiers.set(name, new Set())
      vendorSpecifiers.get(name).add(path)
      return {path, namespace: 'gateway-vendor'}
    })
    // The package as an ES module that takes its names and its default from the vendor bundle's
    // copy, as the package itself would give them (an import of it from src/ is not CommonJS).
    builder.onLoad({filter: /.*/, namespace: 'gateway-vendor'}, ({path}) => {
      const external = JSON.stringify(`${VENDOR_PREFIX}${path}`)
      return {contents: `import * as all from ${external}\nexport * from ${external}\nexport default all.default\n`, loader: 'js', resolveDir: root}
    })
  },
})
// undici's own requires of its parsers' bytes go to the files beside the bundles, from a vendor
// bundle or a fast bundle that carries undici.
const rawParsers = {
  name: 'raw-parsers',
  setup(builder) {
    builder.onResolve({filter: /^\.\.\/llhttp\/llhttp(_simd)?-wasm\.js$/}, ({path, importer}) =>
      /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]/.test(importer) ? rawVendor(`undici/lib/llhttp/${path.slice('../llhttp/'.length)}`) : undefined,
    )
  },
}
/**
 * oclif's parser and flag builders, for the fast bundles, without the rest of oclif. They take oclif's
 * errors from its errors index, which loads its error handler and with it oclif's help, config and
 * module loader (most of oclif): the fast bundles get the one class they use, CLIError, from its own
 * module. The flag builders and the parser's index also require oclif's help, for `Flags.help`'s
 * reading and for the usage text: the fast path never reads a help flag (it leaves every line with
 * one to oclif), and the stand-in says so if it were ever asked.
 */
const oclifLib = join(root, 'node_modules', '@oclif', 'core', 'lib')
const OCLIF_ERRORS_ALONE = `module.exports = {CLIError: require(${JSON.stringify(join(oclifLib, 'errors', 'errors', 'cli.js'))}).CLIError}\n`
const OCLIF_NO_HELP = `const none = () => { throw new Error('oclif help is not part of the fast path') }
module.exports = {loadHelpClass: none, flagUsages: none}
`
/**
 * What oclif's parser errors and CLIError use only when an error is made or shown: the theme (with
 * ansis and supports-color, which look at the terminal when loaded), the list layout, and the
 * screen's widths, which make process.stdout and process.stderr when loaded (a lookup into a pipe
 * never makes the stderr it writes nothing to). In the fast bundles each is loaded when first used.
 */
const OCLIF_ON_DEMAND = {
  'parser/errors.js': ['../ux/theme', '../ux/list'],
  'errors/errors/cli.js': ['../../ux/theme', '../../screen'],
}
const onDemandModule = (file) => `let real
const load = () => (real ??= require(${JSON.stringify(file)}))
module.exports = new Proxy({}, {get: (_, name) => (name === '__esModule' ? true : load()[name])})
`
const oclifParserAlone = {
  name: 'oclif-parser-alone',
  setup(builder) {
    builder.onResolve({filter: /^\.\.?\//}, ({path, importer}) => {
      if (!importer.startsWith(oclifLib)) return undefined
      const from = relative(oclifLib, importer).split(sep).join('/')
      if (path === '../errors' && from === 'parser/errors.js') return {path: 'errors', namespace: 'oclif-alone'}
      if (path === './errors' && from === 'flags.js') return {path: 'errors', namespace: 'oclif-alone'}
      if (path === './help' && (from === 'flags.js' || from === 'parser/index.js')) return {path: 'help', namespace: 'oclif-alone'}
      if (OCLIF_ON_DEMAND[from]?.includes(path)) return {path: join(dirname(importer), `${path}.js`), namespace: 'oclif-on-demand'}
      return undefined
    })
    builder.onLoad({filter: /.*/, namespace: 'oclif-alone'}, ({path}) => ({contents: path === 'errors' ? OCLIF_ERRORS_ALONE : OCLIF_NO_HELP, resolveDir: root, loader: 'js'}))
    builder.onLoad({filter: /.*/, namespace: 'oclif-on-demand'}, ({path}) => ({contents: onDemandModule(path), resolveDir: root, loader: 'js'}))
  },
}
for (const {id, entry, carries} of FAST_COMMANDS) {
  const outfile = join(dirname(bundle), fastBundleName(id))
  await build({...cliBuild, plugins: [oclifParserAlone, vendorExternal(carries), rawParsers, ...cliBuild.plugins], entryPoints: [join(root, entry)], outfile, metafile: true}).then(({metafile}) => {
    // Nothing else of oclif: its index, config, help or command class would mean the fast path loads oclif after all.
    const oclif = Object.keys(metafile.inputs).filter((input) => input.includes('@oclif/core/lib/') && !/@oclif\/core\/lib\/(parser\/(index|parse|validate|errors)|flags|args|errors\/errors\/cli|util\/(util|fs)|cache|logger|screen|settings|ux\/(list|theme|supports-color)|interfaces\/theme)\.js$/.test(input))
    if (oclif.length > 0) throw new Error(`${fastBundleName(id)} takes more of oclif than its parser: ${oclif.join(', ')}`)
    const metafileOption = process.argv.indexOf('--metafile')
    if (metafileOption !== -1) writeFileSync(`${process.argv[metafileOption + 1]}.${fastBundleName(id)}.json`, JSON.stringify(metafile))
  })
  finishBundle(outfile, {wrapped: true})
}
for (const [name, specifiers] of [...vendorSpecifiers]) {
  if (Object.hasOwn(RAW_VENDORS, name)) continue
  const outfile = join(dirname(bundle), vendorBundleName(name))
  // Imported as ES modules, as the main bundle imports them (the same files), each offered as a
  // module object marked as one, so that src/ gets its names and its default as from the package
  // itself (see vendor-external above).
  const contents = [...specifiers]
    .flatMap((specifier, index) => [`import * as m${index} from ${JSON.stringify(specifier)}`, `const e${index} = {__esModule: true, ...m${index}}`, `export {e${index} as ${JSON.stringify(`${VENDOR_PREFIX}${specifier}`)}}`])
    .join('\n')
  // Without esbuild's keepNames: a package's names are its own business (undici's and zod's errors
  // name themselves), and the calls that would give every function its name back cost some 0.2 ms
  // of undici's evaluation.
  await build({...cliBuild, keepNames: false, plugins: [rawParsers, ...cliBuild.plugins], stdin: {contents, resolveDir: root, sourcefile: VENDOR_ENTRY, loader: 'js'}, outfile})
  finishBundle(outfile, {wrapped: true})
}
for (const specifier of Object.keys(RAW_VENDORS)) {
  if (vendorSpecifiers.has(specifier)) writeFileSync(join(dirname(bundle), RAW_VENDORS[specifier]), require(specifier))
}

const {oclif: oclifSettings} = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
// Which vendor bundle offers each package the fast bundles take, by the id they require it as.
const vendors = Object.fromEntries([...vendorSpecifiers].flatMap(([name, specifiers]) => [...specifiers].map((specifier) => [`${VENDOR_PREFIX}${specifier}`, RAW_VENDORS[name] ?? vendorBundleName(name)])))
const launchTable = {
  bin: oclifSettings.bin,
  // As oclif reads them from package.json: its help flags, looked for anywhere before `--`, and its
  // version flags, answered as the first word.
  helpFlags: [...new Set(['--help', ...(oclifSettings.additionalHelpFlags ?? [])])],
  versionFlags: [...new Set(['--version', ...(oclifSettings.additionalVersionFlags ?? [])])],
  commands: FAST_COMMANDS.map(({id}) => ({id, words: id.split(':'), bundle: fastBundleName(id)})),
  vendors,
}
const launchEntry = [
  `const launcher = require(${JSON.stringify(join(root, 'src', 'fast', 'launch.ts'))})`,
  `const TABLE = ${JSON.stringify(launchTable)}`,
  `exports.launch = (host, argv, env) => launcher.launch(TABLE, host, argv, env)`,
  `exports.fastReading = (host, argv, env) => launcher.fastReading(TABLE, host, argv, env)`,
].join('\n')
await build({...cliBuild, stdin: {contents: launchEntry, resolveDir: root, sourcefile: 'launch-entry.js', loader: 'js'}, outfile: join(dirname(bundle), 'launch.cjs')})
finishBundle(join(dirname(bundle), 'launch.cjs'))

/**
 * The library entry (package.json main): src/api bundled with what it uses (undici, zod), as one
 * ES module, so that the published package needs no dependencies installed beside it; with the
 * same patches of undici as the CLI (no node:http, the HTTP/2 client on demand).
 */
await build({
  entryPoints: [join(root, 'src', 'api', 'index.ts')],
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  outfile: join(root, 'dist', 'library', 'index.js'),
  plugins: [patches],
  // A bundled CommonJS module's require of a Node built-in, in an ES module.
  banner: {js: "import {createRequire as gatewayCreateRequire} from 'node:module'; const require = gatewayCreateRequire(import.meta.url);"},
  logLevel: 'warning',
})

// The bill of materials (scripts/sbom.mjs): every package the bundles carry, and the Node the
// single executable embeds.
const patchedFolders = new Map()
for (const {file} of PATCHES) {
  const folder = file.split('/').slice(0, file.split('/')[1].startsWith('@') ? 3 : 2).join('/')
  patchedFolders.set(folder, (patchedFolders.get(folder) ?? 0) + 1)
}
const bom = writeSbom(join(root, 'dist', 'sbom.cdx.json'), {root, metafiles, patched: patchedFolders, runtime: pinnedNode(), esbuildVersion})
console.log(`wrote dist/sbom.cdx.json: ${bom.components} components`)

const metafile = process.argv.indexOf('--metafile')
if (metafile !== -1) writeFileSync(process.argv[metafile + 1], JSON.stringify(result.metafile))
console.log(`bundled ${ownCommands.length} commands and ${OWN_HOOKS.length} hooks, and ${commands.length - ownCommands.length} commands and ${hooks.length - OWN_HOOKS.length} hooks of plugins, into ${relative(root, bundle)}`)

/**
 * Runs the CLI's hot paths with bin/run.js told to write the code cache as it exits: each run
 * starts from the cache the last one wrote, and adds what it compiled.
 */
async function makeCodeCache() {
  const work = mkdtempSync(join(tmpdir(), 'gateway-build-'))
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GATEWAY_') && key !== 'NODE_OPTIONS'))
  // Deposits enough for a page of them (the listing's bundle is cached from one).
  const sandbox = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--json', '--seed-deposits', '100'], {env: base, stdio: ['ignore', 'pipe', 'inherit']})
  try {
    const {baseUrl} = JSON.parse(await new Promise((resolve) => createInterface({input: sandbox.stdout}).once('line', resolve)))
    /** @type {NodeJS.ProcessEnv} */
    const env = {
      ...base,
      GATEWAY_CODE_CACHE_WRITE: '1',
      GATEWAY_CONFIG_DIR: join(work, 'config'),
      GATEWAY_BASE_URL: baseUrl,
      GATEWAY_CLIENT_ID: 'sandbox',
      GATEWAY_CLIENT_SECRET: 'sandbox-secret',
    }
    const gateway = (args, status = 0) => {
      try {
        return execFileSync(process.execPath, [bin, ...args], {env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore']})
      } catch (error) {
        if (error.status !== status) throw error
        return error.stdout
      }
    }
    // Through the fast path (its own bundle), then the same through oclif (the main bundle).
    for (const fast of ['1', '0']) {
      env.GATEWAY_FAST_PATH = fast
      const {id} = JSON.parse(gateway(['tx', 'create', '--amount', '1000', '--json']))
      gateway(['tx', 'get', id, '--json'])
      gateway(['tx', 'get', id])
      gateway(['tx', 'create', '--amount', '10.00'], 2)
    }
    // A page of deposits, through the fast path only (the main bundle's cache would grow by what
    // every command of oclif then reads at start). Not an export: it sets V8's heap flags as it
    // starts walking, and a cache written after that is refused by every run that does not.
    env.GATEWAY_FAST_PATH = '1'
    gateway(['deposits', 'list', '--per-page', '100', '--output', 'ndjson'])
    gateway(['--version', '--json'])
  } finally {
    sandbox.kill('SIGTERM')
    rmSync(work, {recursive: true, force: true})
  }
}

// (oclif, the tool, would otherwise look up its own newer versions on the registry at each build.)
if (!process.argv.includes('--no-manifest')) run(process.execPath, [binOf('oclif', 'oclif'), 'manifest'], {OCLIF_SKIP_NEW_VERSION_CHECK: 'true'})
if (!process.argv.includes('--no-code-cache')) {
  await makeCodeCache()
  console.log(`wrote the code caches of ${relative(root, bundle)} and of the fast path's ${FAST_COMMANDS.map(({id}) => fastBundleName(id)).join(', ')}`)
}
