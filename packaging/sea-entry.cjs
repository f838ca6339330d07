// The entry of the single executable (Node's SEA support). The executable carries the CLI as
// assets: the bundles of dist/bundle (the main one, and the fast path's plan, command and vendor
// bundles) with their V8 code caches, package.json and the oclif manifest. It runs them from memory, as bin/run.js runs the same files in a checkout, and lays
// nothing out on disk: no folder, cache or temporary file is read, written or run, so there is
// nothing another user could plant or swap, and a read-only or missing home changes nothing.
//
// oclif is handed the package.json and the manifest in memory, and a root that names no folder:
// the executable's own path, a file, under which nothing can exist. oclif's requests for the
// commands and hooks (`./dist/bundle/gateway.cjs` under that root) are answered with the bundle
// evaluated here, never from disk.
'use strict'
const {getRawAsset} = require('node:sea')
const {join} = require('node:path')
const {setFlagsFromString} = require('node:v8')
const {Script} = require('node:vm')

// As bin/run.js: keep V8 from optimising undici's WebAssembly parser in short runs, and compile
// it whole on V8's background threads (set before compiling: the code cache is bound to the flags).
setFlagsFromString('--wasm-tiering-budget=50000000')
setFlagsFromString('--no-wasm-lazy-compilation')

const asset = (name) => Buffer.from(getRawAsset(name))
const argv = process.argv.slice(2)

// `gateway --version` (or -v) alone: oclif's line for it (as bin/version-line.cjs words it, which
// this single file cannot require), without evaluating the bundle. test/e2e/executable.test.ts
// holds it to oclif's own.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const {name, version} = JSON.parse(asset('package.json').toString('utf8'))
  const {arch, release} = require('node:os')
  const platform = process.platform === 'linux' && release().toLowerCase().includes('microsoft') ? 'wsl' : process.platform
  process.stdout.write(`${name}/${version} ${platform}-${arch() === 'ia32' ? 'x86' : arch()} node-${process.version}\n`)
  return
}
const root = process.execPath
const bundles = join(root, 'dist', 'bundle')

/** How a bundle the build wrapped already begins, as in bin/run.js: compiled as it is. */
const WRAPPED = '(function (exports, require, module, __filename, __dirname) { '

/**
 * Evaluates a bundle carried as an asset, compiled with its code cache (as bin/run.js does from
 * disk), as `module` with the require given. As in bin/run.js, the fast path's bundles get a
 * plain module object, and only the main bundle a CommonJS module of the path it has in a checkout.
 */
function loadBundle(name, bundleRequire, module = {exports: {}}, report = true) {
  const bundle = join(bundles, name)
  // The build makes every bundle ASCII (see bin/run.js).
  const source = asset(name).toString('latin1')
  const key = /\/\/# gateway-bundle ([0-9a-f]+)\n$/.exec(source.slice(-100))?.[1]
  let cache
  try {
    cache = asset(`${name}.cache`)
  } catch {
    // A bundle no hot path loads has no cache: compile.
  }
  // package.mjs checks that each cache was made for its bundle; checked again here, as bin/run.js does.
  const cachedData = key && cache && cache.subarray(0, key.length + 1).toString('latin1') === `${key}\n` ? cache.subarray(key.length + 1) : undefined
  const script = new Script(source.startsWith(WRAPPED) ? source : require('node:module').wrap(source), {filename: bundle, cachedData})
  if (report && process.env.GATEWAY_CODE_CACHE_REPORT) process.stderr.write(`code cache of ${name}: ${cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used'}\n`)
  script.runInThisContext()(module.exports, bundleRequire, module, bundle, bundles)
  module.loaded = true
  return module.exports
}

// The fast path, as in bin/run.js: a command line its plan reads whole runs from its command's
// fast bundle, which takes its packages from the vendor bundles and Node's built-ins from Node.
if (process.env.GATEWAY_FAST_PATH !== '0') {
  // The plan is small enough to compile at once: it has no code cache to report on. What the plan
  // and the fast bundles take from Node, they take with this entry's own require, which Node gives
  // its built-ins alone.
  const fast = loadBundle('plan.cjs', require, undefined, false)
  const planned = fast.plan(argv, process.env)
  if (planned) {
    const fastRequire = fast.fastRequire(loadBundle, require, asset)
    loadBundle(planned.bundle, fastRequire).run(planned, fast.bin)
    return
  }
}

const {createRequire, Module} = require('node:module')
const bundle = join(bundles, 'gateway.cjs')
const nodeRequire = createRequire(bundle)
// The main bundle's require: the bundle itself by its path (or the target the package.json
// names), Node's built-ins otherwise. The bundle requires nothing else from disk: the CLI runs
// built (oclif's TypeScript support, which would, is turned off in run()).
const cli = {exports: undefined}
const own = (id) => id === bundle || id === './dist/bundle/gateway.cjs'
const bundleRequire = (id) => (own(id) ? cli.exports : nodeRequire(id))
bundleRequire.resolve = (id, options) => (own(id) ? bundle : nodeRequire.resolve(id, options))
bundleRequire.cache = nodeRequire.cache
bundleRequire.main = undefined
const mainModule = new Module(bundle)
mainModule.filename = bundle
cli.exports = loadBundle('gateway.cjs', bundleRequire, mainModule)

const pjson = JSON.parse(asset('package.json').toString('utf8'))
const manifest = JSON.parse(asset('oclif.manifest.json').toString('utf8'))
const {commandNotFound, flush, handle, run} = cli.exports
run(root, argv, {pjson, manifest})
  .then(() => flush())
  .catch(async (error) => {
    // A mistyped command is a usage error (exit 2), said in one line with the closest command.
    const line = commandNotFound(error, argv, manifest, 'gateway')
    if (line === undefined) await handle(error)
    else {
      // Into a log (stderr not a terminal) the line says when, as every other error line does.
      process.stderr.write(`${process.stderr.isTTY ? '' : `${new Date().toISOString()} `}Error: ${line}\n`)
      process.exitCode = 2
    }
  })
