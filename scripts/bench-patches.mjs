#!/usr/bin/env node
// What each speed patch of a dependency (scripts/build.mjs: PATCHES and the stand-ins) buys on the
// command it serves, counted in instructions with valgrind's callgrind, which the machine's load
// does not move (wall time does): the CLI is built with every patch, then once without each one
// (build.mjs --without-patches NAME), and each command the patch serves is counted from the
// checkout (`node bin/run.js`) and from the single executable. A patch is worth keeping when it
// buys at least 3% of its command on either path.
//
// Node spends a varying number of instructions before any JavaScript runs (a random prime test,
// `detail::sprp`, 4 to 14 million of them): they are left out of every count, which then varies by
// about 0.5% from run to run. Counts include every thread (V8 compiles and collects on its own).
// The build in dist/ is rebuilt with every patch at the end.
// Usage: node scripts/bench-patches.mjs [--runs 1] [--only NAME,NAME] [--no-executable]
// Prints a Markdown table on stdout; progress goes to stderr. Takes some 20 minutes.
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {baseEnv, bin, median, startSandbox} from './bench-tools.mjs'
import {onPinnedNode} from './runtime.mjs'

onPinnedNode(import.meta.url)

const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`)
  return index === -1 ? fallback : process.argv[index + 1]
}
/** Runs of each count without a patch (the median); the counts with every patch take at least 3. */
const RUNS = Number(option('runs', 1))
const ONLY = option('only', '') ? new Set(String(option('only', '')).split(',')) : undefined
const EXECUTABLE_TOO = !process.argv.includes('--no-executable')
const root = fileURLToPath(new URL('..', import.meta.url))
const executable = join(root, 'dist', 'package', 'gateway')
const progress = (text) => process.stderr.write(`${text}\n`)

const PIX_CODE = '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D'
/** The commands patches serve: a refused charge and a lookup (the fast path), and an offline command through oclif. */
const COMMANDS = {
  refused: {label: '`tx create --amount 10.00` (refused)', args: () => ['tx', 'create', '--amount', '10.00'], exitCode: 2},
  lookup: {label: '`tx get ID --json`', args: (id) => ['tx', 'get', id, '--json'], exitCode: 0},
  oclif: {label: '`pix decode CODE --json` (through oclif)', args: () => ['pix', 'decode', PIX_CODE, '--json'], exitCode: 0},
}
/**
 * Each patch (by its name in scripts/build.mjs) and the commands it serves: oclif's on the commands
 * oclif runs, and on the refused charge where the fast bundles carry the patched module (oclif's
 * parser, its file helpers, its CLIError and logger); undici's on the lookup.
 */
const PATCHES = {
  'ascii-sort': ['oclif'],
  'child-process-on-demand': ['oclif'],
  'readline-on-demand': ['oclif', 'refused'],
  'perf_hooks-on-demand': ['oclif'],
  'fs-promises-on-demand': ['oclif', 'refused'],
  'debug-on-demand': ['oclif', 'refused'],
  'no-node-http': ['lookup'],
  'h2-client-on-demand': ['lookup'],
  'assert-on-demand': ['lookup'],
}

/** Instructions a run of argv takes, less Node's random prime test; refuses a run that exits otherwise than expected. */
function instructions(argv, env, exitCode) {
  const work = mkdtempSync(join(tmpdir(), 'gateway-callgrind-'))
  try {
    const out = join(work, 'callgrind.out')
    const run = spawnSync('setarch', ['-R', 'valgrind', '--tool=callgrind', `--callgrind-out-file=${out}`, `--log-file=${join(work, 'log')}`, ...argv], {env, encoding: 'utf8', timeout: 300_000})
    if (run.status !== exitCode) throw new Error(`${argv.join(' ')} exited ${run.status}, not ${exitCode}: ${run.stderr.trim().slice(0, 400)}`)
    const total = Number(/Collected : (\d+)/.exec(readFileSync(join(work, 'log'), 'utf8'))?.[1])
    const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', out], {encoding: 'utf8', maxBuffer: 256 * 1024 * 1024})
    const prime = annotated.split('\n').find((line) => line.includes('detail::sprp'))
    return total - (prime ? Number(prime.trim().split(/\s+/)[0].replaceAll(',', '')) : 0)
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}

const node = (args) => execFileSync(process.execPath, args, {cwd: root, stdio: ['ignore', 'ignore', 'inherit']})
function build(without) {
  node([join(root, 'scripts', 'build.mjs'), '--no-manifest', ...(without ? ['--without-patches', without] : [])])
  if (EXECUTABLE_TOO) node([join(root, 'scripts', 'package.mjs')])
}

/** Counts of each command asked for, on both paths, of the build in dist/. */
async function count(keys, runs) {
  const sandbox = await startSandbox()
  const work = mkdtempSync(join(tmpdir(), 'gateway-patches-'))
  try {
    const env = {...baseEnv, GATEWAY_CONFIG_DIR: join(work, 'config'), GATEWAY_BASE_URL: sandbox.baseUrl}
    execFileSync(process.execPath, [bin, 'login', '--client-id', 'sandbox'], {env: {...env, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}, stdio: 'ignore'})
    const {id} = JSON.parse(execFileSync(process.execPath, [bin, 'tx', 'create', '--amount', '1000', '--json'], {env, encoding: 'utf8'}))
    const result = {}
    for (const key of keys) {
      const {args, exitCode} = COMMANDS[key]
      const sides = {checkout: [process.execPath, bin], ...(EXECUTABLE_TOO ? {executable: [executable]} : {})}
      for (const [side, start] of Object.entries(sides)) {
        const counts = Array.from({length: runs}, () => instructions([...start, ...args(id)], env, exitCode))
        result[`${key} ${side}`] = median(counts)
      }
    }
    return result
  } finally {
    await sandbox.close()
    rmSync(work, {recursive: true, force: true})
  }
}

const names = Object.keys(PATCHES).filter((name) => !ONLY || ONLY.has(name))
const rows = []
const millions = (value) => `${(value / 1e6).toFixed(1)} M`
try {
  progress('building with every patch')
  build()
  const all = await count(Object.keys(COMMANDS), Math.max(3, RUNS))
  for (const name of names) {
    progress(`building without ${name}`)
    build(name)
    const without = await count(PATCHES[name], RUNS)
    for (const key of PATCHES[name]) {
      for (const side of EXECUTABLE_TOO ? ['checkout', 'executable'] : ['checkout']) {
        const [withPatch, withoutPatch] = [all[`${key} ${side}`], without[`${key} ${side}`]]
        const buys = (withoutPatch - withPatch) / withoutPatch
        rows.push([name, COMMANDS[key].label, side, millions(withPatch), millions(withoutPatch), `${(buys * 100).toFixed(1)}%`])
        progress(`  ${name} on ${key} (${side}): ${(buys * 100).toFixed(1)}%`)
      }
    }
  }
} finally {
  progress('building with every patch again')
  build()
}
const cells = (values) => `| ${values.join(' | ')} |`
console.log(
  [
    `Instructions counted with callgrind (median of ${Math.max(3, RUNS)} runs with every patch, ${RUNS} without each, Node's random prime test left out), Node ${process.version}, NODE_EXTRA_CA_CERTS unset.`,
    '',
    cells(['Patch', 'Command', 'Path', 'With', 'Without', 'Buys']),
    cells(['---', '---', '---', '---', '---', '---']),
    ...rows.map(cells),
  ].join('\n'),
)
