// The entry of the single executable (Node's SEA support): the executable carries the CLI's
// package (package.json, the oclif manifest, the bundle, its code cache and bin/run.js) as assets.
// On first run it lays them out once in a folder of its own, named by the bundle's content key,
// and hands over to bin/run.js there, so that the executable runs exactly what `bin/run.js` runs.
'use strict'
const {getAsset} = require('node:sea')
const {chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync} = require('node:fs')
const {createRequire} = require('node:module')
const {homedir, tmpdir, userInfo} = require('node:os')
const {join} = require('node:path')

const FILES = ['package.json', 'oclif.manifest.json', 'bin/run.js', 'bin/package.json', 'dist/bundle/gateway.cjs', 'dist/bundle/gateway.cjs.cache']
const key = Buffer.from(getAsset('key')).toString('latin1').trim()

/** Where the package is laid out: the user's cache folder, else the temporary one. */
function homes() {
  const user = (() => {
    try {
      return userInfo().username
    } catch {
      return String(process.getuid?.() ?? 'user')
    }
  })()
  const cache = process.env.XDG_CACHE_HOME || (homedir() ? join(homedir(), '.cache') : undefined)
  return [cache && join(cache, 'gateway'), join(tmpdir(), `gateway-${user}`)].filter(Boolean)
}

function layOut(base) {
  const root = join(base, key)
  if (existsSync(join(root, 'bin', 'run.js'))) return root
  mkdirSync(base, {recursive: true, mode: 0o700})
  // Written aside, then renamed into place whole: a process killed half-way leaves no half package.
  const aside = `${root}.tmp-${process.pid}`
  rmSync(aside, {recursive: true, force: true})
  for (const file of FILES) {
    const path = join(aside, file)
    mkdirSync(join(path, '..'), {recursive: true, mode: 0o700})
    writeFileSync(path, Buffer.from(getAsset(file)), {mode: 0o600})
  }
  chmodSync(join(aside, 'bin', 'run.js'), 0o700)
  try {
    renameSync(aside, root)
  } catch (error) {
    // Another process laid it out first: theirs is the same.
    rmSync(aside, {recursive: true, force: true})
    if (!existsSync(join(root, 'bin', 'run.js'))) throw error
  }
  return root
}

let root
let failure
for (const base of homes()) {
  try {
    root = layOut(base)
    break
  } catch (error) {
    failure = error
  }
}
if (!root) {
  process.stderr.write(`Error: cannot unpack the gateway executable: ${failure && failure.message}\n`)
  process.exit(1)
}
createRequire(join(root, 'bin', 'run.js'))(join(root, 'bin', 'run.js'))
