// The entry of the single executable (Node's SEA support). The executable carries the CLI as
// assets: the bundles of dist/bundle (the launcher, the main one, and the fast path's command and
// vendor bundles) with their V8 code caches, package.json and the oclif manifest. It starts the
// launcher that bin/run.js starts in a checkout (dist/bundle/launch.cjs, from src/fast/launch.ts),
// handing it these assets instead of files: everything runs from memory, and nothing is laid out on
// disk: no folder, cache or temporary file is read, written or run, so there is nothing another
// user could plant or swap, and a read-only or missing home changes nothing.
//
// oclif is handed the package.json and the manifest in memory, and a root that names no folder:
// the executable's own path, a file, under which nothing can exist. oclif's requests for the
// commands and hooks (`./dist/bundle/gateway.cjs` under that root) are answered with the bundle
// the launcher evaluated, never from disk.
'use strict'
const {getRawAsset} = require('node:sea')
const {join} = require('node:path')
const {Script} = require('node:vm')

const asset = (name) => Buffer.from(getRawAsset(name))
const root = process.execPath

// The launcher, as Node would run it from a file: a CommonJS module, whose require is this entry's
// (Node's built-ins alone, all the launcher and the bundles take from Node).
const launcher = {exports: {}}
const filename = join(root, 'dist', 'bundle', 'launch.cjs')
new Script(`(function (exports, require, module, __filename, __dirname) { ${asset('launch.cjs').toString('latin1')}\n})`, {filename})
  .runInThisContext()(launcher.exports, require, launcher, filename, join(root, 'dist', 'bundle'))

launcher.exports.launch({
  root,
  read: (name, encoding) => (encoding ? asset(name).toString(encoding) : asset(name)),
  packageJson: () => asset('package.json').toString('utf8'),
  manifest: () => JSON.parse(asset('oclif.manifest.json').toString('utf8')),
})
