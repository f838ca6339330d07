#!/usr/bin/env node
// Packages the built CLI (run `npm run build` first; `npm run package` does) for the machine it
// runs on, around the project's own Node (package.json devDependencies.node, scripts/runtime.mjs),
// whatever Node runs this script:
//   dist/package/gateway: one executable that needs no Node on the machine, that Node's binary with
//     the CLI injected as a single executable application (SEA): package.json, the oclif manifest,
//     the bundle and its code cache travel inside it as assets, and run from memory
//     (packaging/sea-entry.cjs). It takes no Node options from NODE_OPTIONS or its command line (execArgvExtension "none");
//   dist/package/gateway_<version>_<arch>.deb: the executable, with a /usr/bin/gateway that starts it
//     without NODE_OPTIONS, a man page, bash and zsh completions, a copyright file and the bill of
//     materials (scripts/deb.mjs).
import {execFileSync} from 'node:child_process'
import {chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {onPinnedNode, pinnedNode} from './runtime.mjs'

onPinnedNode(import.meta.url)
const root = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const out = join(root, 'dist', 'package')
const bundle = join(root, 'dist', 'bundle', 'gateway.cjs')
const run = (command, args) => execFileSync(command, args, {cwd: root, stdio: ['ignore', 'ignore', 'inherit']})

if (!existsSync(bundle) || !existsSync(`${bundle}.cache`)) throw new Error('no build to package: run `npm run build` first (or `npm run package`)')
rmSync(out, {recursive: true, force: true})
mkdirSync(out, {recursive: true})

// 1. The single executable: the bundles, their code caches, package.json and the manifest, run
// from memory by packaging/sea-entry.cjs (nothing laid out on disk).
const key = /\/\/# gateway-bundle ([0-9a-f]+)\n$/.exec(readFileSync(bundle, 'latin1').slice(-100))?.[1]
if (!key) throw new Error('the bundle carries no content key: rebuild it')
if (readFileSync(`${bundle}.cache`).subarray(0, key.length + 1).toString('latin1') !== `${key}\n`) throw new Error('the code cache was made for another bundle: rebuild')
const assets = {
  'package.json': join(root, 'package.json'),
  'oclif.manifest.json': join(root, 'oclif.manifest.json'),
}
// Every bundle (the main one, the fast path's plan, its commands and the packages they load), each
// one's code cache, which must have been made for it, and the bytes the fast path reads as they are.
const bundles = join(root, 'dist', 'bundle')
for (const name of readdirSync(bundles).filter((file) => file.endsWith('.cjs') || file.endsWith('.wasm'))) {
  assets[name] = join(bundles, name)
  const cache = join(bundles, `${name}.cache`)
  if (!existsSync(cache)) continue
  const bundleKey = /\/\/# gateway-bundle ([0-9a-f]+)\n$/.exec(readFileSync(join(bundles, name), 'latin1').slice(-100))?.[1]
  if (!bundleKey || readFileSync(cache).subarray(0, bundleKey.length + 1).toString('latin1') !== `${bundleKey}\n`) throw new Error(`the code cache of ${name} was made for another bundle: rebuild`)
  assets[`${name}.cache`] = cache
}
// The executable is the project's own Node (scripts/runtime.mjs), whatever Node runs this script,
// which the code caches were made by (the build runs on it too).
const runtime = pinnedNode()
const blob = join(out, 'gateway.blob')
writeFileSync(
  join(out, 'sea-config.json'),
    // execArgvExtension "none": the executable takes no Node options from NODE_OPTIONS (an operator's
  // --require preload or --inspect, meant for their own Node programs) nor from its command line.
  JSON.stringify({main: join(root, 'packaging', 'sea-entry.cjs'), output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, execArgvExtension: 'none', assets}, null, 2),
)
run(runtime.binary, ['--experimental-sea-config', join(out, 'sea-config.json')])
const executable = join(out, 'gateway')
copyFileSync(runtime.binary, executable)
chmodSync(executable, 0o755)
const postject = join(root, 'node_modules', 'postject', require('postject/package.json').bin.postject)
run(runtime.binary, [postject, executable, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'])
rmSync(blob)
rmSync(join(out, 'sea-config.json'))
console.log(`wrote ${join('dist', 'package', 'gateway')}, on Node v${runtime.version}`)

// 2. The Debian package, around the executable (scripts/deb.mjs).
console.log(`wrote ${(await (await import('./deb.mjs')).buildDeb({executable, out})).slice(root.length)}`)
