#!/usr/bin/env node
// Starts the CLI from its bundle, dist/bundle/gateway.cjs (see scripts/build.mjs), or a command the
// fast path reads whole from that command's fast bundle, dist/bundle/fast-*.cjs; each compiled with the
// V8 code cache the build made for it: most of the compiling, and the garbage it leaves, is then
// skipped on every run. V8 refuses a cache made by another Node or under other flags, and one
// made for another bundle is not offered: the bundle is then compiled as usual.
// CommonJS (bin/package.json), so that Node need not start its ES module loader.
'use strict'
// Before anything else: an older Node is told, in one line, which Node the CLI needs (package.json
// engines; test/e2e/old-node.test.ts holds the two to each other).
const [nodeMajor, nodeMinor] = process.versions.node.split('.').map(Number)
if (nodeMajor < 22 || (nodeMajor === 22 && nodeMinor < 19)) {
  process.stderr.write(`gateway needs Node.js 22.19 or newer; this is Node.js ${process.version} (${process.execPath})\n`)
  process.exit(1)
}
const {readFileSync, writeFileSync} = require('node:fs')
const {dirname, join} = require('node:path')

const root = join(__dirname, '..')
const argv = process.argv.slice(2)

// `gateway --version` (or -v) alone is answered with the line oclif prints for it, without reading
// or evaluating the bundle: nothing else on the command line is read here. test/e2e/startup.test.ts
// holds this line to oclif's own.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const {name, version} = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  process.stdout.write(`${require('./version-line.cjs')(name, version)}\n`)
  return
}

const {setFlagsFromString} = require('node:v8')
const {Script} = require('node:vm')

// undici parses HTTP with WebAssembly. By default V8 soon recompiles it with its optimising
// compiler on background threads, and the process cannot exit before that work ends: some 80 ms
// at the end of every short command. Optimise only code that runs long (an export). And compile
// all of it when the module is compiled, on V8's background threads (src/api/http-parser.ts),
// rather than each function on the main thread when first called, mid-request. Set before
// compiling: the code cache is bound to the flags.
setFlagsFromString('--wasm-tiering-budget=50000000')
setFlagsFromString('--no-wasm-lazy-compilation')

/** How a bundle the build wrapped already begins: it is compiled as it was read (scripts/build.mjs). */
const WRAPPED = '(function (exports, require, module, __filename, __dirname) { '

/**
 * Evaluates a bundle of dist/bundle, compiled with its code cache, as `module` with `bundleRequire`
 * as its require. The fast path's bundles get a plain module object: nothing looks them up, and
 * the fast path then never loads node:module (some 0.3 ms, for the 15 modules it brings).
 */
function loadBundle(name, bundleRequire, module = {exports: {}}) {
  const bundle = join(root, 'dist', 'bundle', name)
  const cacheFile = `${bundle}.cache`
  // The build makes the bundle ASCII, and Latin-1 is the fastest way to read it (UTF-8 checks every byte).
  const source = readFileSync(bundle, 'latin1')
  // The cache is offered only when it was made for this bundle's content: its first line is the
  // bundle's key, which the build wrote at the bundle's end. File times say nothing once npm copied them.
  const key = /\/\/# gateway-bundle ([0-9a-f]+)\n$/.exec(source.slice(-100))?.[1]
  let cachedData
  try {
    const cache = key && readFileSync(cacheFile)
    if (cache && cache.subarray(0, key.length + 1).toString('latin1') === `${key}\n`) cachedData = cache.subarray(key.length + 1)
  } catch {
    // No cache: compile.
  }
  const script = new Script(source.startsWith(WRAPPED) ? source : require('node:module').wrap(source), {filename: bundle, cachedData})
  // For the tests and the bench: which bundle ran, and whether V8 took its cache.
  if (process.env.GATEWAY_CODE_CACHE_REPORT) process.stderr.write(`code cache of ${name}: ${cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used'}\n`)
  script.runInThisContext()(module.exports, bundleRequire, module, bundle, dirname(bundle))
  module.loaded = true
  // The build runs the hot paths with this set, each run adding what it compiled to the cache.
  if (process.env.GATEWAY_CODE_CACHE_WRITE && key) process.once('exit', () => writeFileSync(cacheFile, Buffer.concat([Buffer.from(`${key}\n`, 'latin1'), script.createCachedData()])))
  return module.exports
}

// The fast path: a command line its plan reads whole (every word as oclif would read it) runs from
// the fast path's own bundle, through the same command logic, without loading oclif. Anything else,
// or GATEWAY_FAST_PATH=0, goes to oclif below. See src/fast/plan.ts.
if (process.env.GATEWAY_FAST_PATH !== '0') {
  const fast = require('../dist/bundle/plan.cjs')
  const planned = fast.plan(argv, process.env)
  if (planned) {
    // The fast bundles take the packages they load from bundles of their own, each when first
    // required, and bytes (the HTTP parser's) from files beside them (see src/fast/plan.ts), and
    // Node's built-ins from Node.
    const fastRequire = fast.fastRequire(loadBundle, require, (name) => readFileSync(join(root, 'dist', 'bundle', name)))
    loadBundle(planned.bundle, fastRequire).run(planned, fast.bin)
    return
  }
}

// The main bundle is a CommonJS module of its own path, in require's cache: oclif, loading its
// commands and hooks from that path, finds this one instance.
const {createRequire, Module} = require('node:module')
const {pathToFileURL} = require('node:url')
const main = join(root, 'dist', 'bundle', 'gateway.cjs')
const mainModule = new Module(main)
mainModule.filename = main
const mainRequire = createRequire(main)
const cli = loadBundle('gateway.cjs', mainRequire, mainModule)
mainRequire.cache[main] = mainModule
const {commandNotFound, flush, handle, run} = cli
run(root, argv)
  .then(() => flush())
  .catch(async (error) => {
    // A mistyped command is a usage error (exit 2), said in one line with the closest command.
    const line = commandNotFound(error, argv, pathToFileURL(join(root, 'oclif.manifest.json')), 'gateway')
    if (line === undefined) await handle(error)
    else {
      // Into a log (stderr not a terminal) the line says when, as every other error line does.
      process.stderr.write(`${process.stderr.isTTY ? '' : `${new Date().toISOString()} `}Error: ${line}\n`)
      process.exitCode = 2
    }
  })
