#!/usr/bin/env node
// Starts the CLI from a checkout or an installed package. Everything but where the files are is
// dist/bundle/launch.cjs (src/fast/launch.ts), which the single executable starts as well
// (packaging/sea-entry.cjs), handing it its own assets instead of this folder's files.
// CommonJS (bin/package.json), so that Node need not start its ES module loader.
'use strict'
// Before anything else: an older Node (package.json engines; test/e2e/runtime.test.ts holds the two
// to each other) runs the CLI again on the checkout's own Node, the pinned one `npm ci` installs as
// node_modules/node/bin/node (as scripts/runtime.mjs does for the build), when there is one; else it
// is told, in one line, which Node the CLI needs and, in a checkout, the command that installs it.
const [nodeMajor, nodeMinor] = process.versions.node.split('.').map(Number)
if (nodeMajor < 22 || (nodeMajor === 22 && nodeMinor < 19)) {
  const {existsSync, realpathSync} = require('node:fs')
  const path = require('node:path')
  const checkout = path.join(__dirname, '..')
  const own = path.join(checkout, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node')
  if (existsSync(own) && realpathSync(own) !== realpathSync(process.execPath)) {
    // The child has the terminal and the signals (a Ctrl-C reaches both); this process waits, and ends as it ended.
    const child = require('node:child_process').spawn(own, [__filename, ...process.argv.slice(2)], {stdio: 'inherit'})
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT']) process.on(signal, () => child.kill(signal))
    child.on('error', (error) => {
      process.stderr.write(`gateway needs Node.js 22.19 or newer; this is Node.js ${process.version} (${process.execPath}), and ${own} could not be started: ${error.message}\n`)
      process.exit(1)
    })
    child.on('exit', (code, signal) => {
      if (!signal) process.exit(code ?? 1)
      process.removeAllListeners(signal)
      process.kill(process.pid, signal)
    })
    return
  }
  // A checkout (it has package-lock.json, which no installed package has) can install its own Node.
  const install = !existsSync(own) && existsSync(path.join(checkout, 'package-lock.json')) ? `; \`npm ci\` in ${checkout} installs the checkout's own Node, which it then runs on` : ''
  process.stderr.write(`gateway needs Node.js 22.19 or newer; this is Node.js ${process.version} (${process.execPath})${install}\n`)
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
