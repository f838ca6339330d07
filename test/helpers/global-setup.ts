import {spawnSync} from 'node:child_process'
import {existsSync, readdirSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** What `npm run build` reads: the sources, the build's own scripts, and what decides the packages and the compiler. */
const INPUTS = ['src', 'scripts/build.mjs', 'scripts/fast-table.mjs', 'scripts/contract-shapes.mjs', 'scripts/sbom.mjs', 'scripts/runtime.mjs', 'package.json', 'package-lock.json', 'tsconfig.json']
/** What it writes, the last of them at its end: a build that stopped half-way leaves one of them older than the rest. */
const OUTPUTS = ['dist/bundle/gateway.cjs', 'dist/bundle/launch.cjs', 'dist/sbom.cdx.json']

/**
 * Why the build in `root` cannot be used as it is: an output missing, or the input changed since the
 * build (the newest input, when it is newer than the oldest output). Undefined when it is up to date.
 */
export function staleBuild(root: string): string | undefined {
  let built = Infinity
  for (const output of OUTPUTS) {
    const path = join(root, output)
    if (!existsSync(path)) return `${output} is missing`
    built = Math.min(built, statSync(path).mtimeMs)
  }
  let newest: {path: string; time: number} | undefined
  const visit = (path: string) => {
    if (!existsSync(path)) return
    const stat = statSync(path)
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path)) visit(join(path, entry))
    } else if (!newest || stat.mtimeMs > newest.time) newest = {path, time: stat.mtimeMs}
  }
  for (const input of INPUTS) visit(join(root, input))
  if (newest && newest.time > built) return `${relative(root, newest.path)} changed after the last build (${new Date(newest.time).toISOString()}, the build ${new Date(built).toISOString()})`
  return undefined
}

/**
 * The e2e project (vitest.config.ts) drives the built CLI: a build older than what it is built from
 * would test yesterday's CLI, so it is built again first (on the pinned Node this runs on), and a
 * build that fails stops the run.
 */
export default function setup(): void {
  const stale = staleBuild(ROOT)
  if (!stale) return
  // The build empties dist/, the single executable and the .deb included: they are made again from the new build when they were there.
  const packaged = existsSync(join(ROOT, 'dist', 'package', 'gateway'))
  process.stderr.write(`The build is stale (${stale}): running npm run build${packaged ? ' and npm run package' : ''} first.\n`)
  for (const script of packaged ? ['build.mjs', 'package.mjs'] : ['build.mjs']) {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts', script)], {cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit']})
    if (run.status !== 0) throw new Error(`node scripts/${script} failed (exit ${run.status ?? run.signal}): the tests that run the built CLI cannot run`)
  }
  const still = staleBuild(ROOT)
  if (still) throw new Error(`the build is still stale after npm run build: ${still}`)
}
