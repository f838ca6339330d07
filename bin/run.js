#!/usr/bin/env node
// Starts the CLI from a checkout or an installed package. Everything but where the files are is
// dist/bundle/launch.cjs (src/fast/launch.ts), which the single executable starts as well
// (packaging/sea-entry.cjs), handing it its own assets instead of this folder's files.
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
const {join} = require('node:path')

const root = join(__dirname, '..')
const bundles = join(root, 'dist', 'bundle')

require('../dist/bundle/launch.cjs').launch({
  root,
  read: (name, encoding) => readFileSync(join(bundles, name), encoding),
  packageJson: () => readFileSync(join(root, 'package.json'), 'utf8'),
  writeCache: (name, data) => writeFileSync(join(bundles, name), data),
})
