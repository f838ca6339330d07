#!/usr/bin/env node
// Starts the CLI from its bundle, dist/bundle/gateway.cjs (see scripts/build.mjs), compiled with the
// V8 code cache the build made for it: most of the compiling, and the garbage it leaves, is then
// skipped on every run. V8 refuses a cache made by another Node or under other flags, and one
// older than the bundle is not offered: the bundle is then compiled as usual.
// CommonJS (bin/package.json), so that Node need not start its ES module loader.
'use strict'
const {readFileSync, statSync, writeFileSync} = require('node:fs')
const {createRequire, Module} = require('node:module')
const {dirname, join} = require('node:path')
const {pathToFileURL} = require('node:url')
const {setFlagsFromString} = require('node:v8')
const {Script} = require('node:vm')

// undici parses HTTP with WebAssembly. By default V8 soon recompiles it with its optimising
// compiler on background threads, and the process cannot exit before that work ends: some 80 ms
// at the end of every short command. Optimise only code that runs long (an export). Set before
// compiling: the code cache is bound to the flags.
setFlagsFromString('--wasm-tiering-budget=50000000')

const root = join(__dirname, '..')
const bundle = join(root, 'dist', 'bundle', 'gateway.cjs')
const cacheFile = `${bundle}.cache`
let cachedData
try {
  if (statSync(cacheFile).mtimeMs >= statSync(bundle).mtimeMs) cachedData = readFileSync(cacheFile)
} catch {
  // No cache: compile.
}
// The build makes the bundle ASCII, and Latin-1 is the fastest way to read it (UTF-8 checks every byte).
const script = new Script(Module.wrap(readFileSync(bundle, 'latin1')), {filename: bundle, cachedData})
// The bundle as a CommonJS module of its own path, so that oclif, loading its commands and hooks
// from it, finds this one instance.
const bundleRequire = createRequire(bundle)
const cli = new Module(bundle)
cli.filename = bundle
script.runInThisContext()(cli.exports, bundleRequire, cli, bundle, dirname(bundle))
cli.loaded = true
bundleRequire.cache[bundle] = cli
// The build runs the hot paths with this set, each run adding what it compiled to the cache.
if (process.env.GATEWAY_CODE_CACHE_WRITE) process.once('exit', () => writeFileSync(cacheFile, script.createCachedData()))

const {commandNotFound, flush, handle, run} = cli.exports
const argv = process.argv.slice(2)
run(root, argv)
  .then(() => flush())
  .catch(async (error) => {
    // A mistyped command is a usage error (exit 2), said in one line with the closest command.
    const line = commandNotFound(error, argv, pathToFileURL(join(root, 'oclif.manifest.json')), 'gateway')
    if (line === undefined) await handle(error)
    else {
      process.stderr.write(`Error: ${line}\n`)
      process.exitCode = 2
    }
  })
