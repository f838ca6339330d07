#!/usr/bin/env node
// Speed and memory of the built CLI against the embedded sandbox, measured in one run so the
// ratios compare like with like:
//   - start-up: bare `node`, then gateway commands, each the median of several runs, as a ratio;
//   - export: `deposits list --all` of 10,000 and 100,000 deposits, wall time and peak memory.
// Usage: npm run bench [-- --runs 15] [-- --sizes 10000,100000]
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`)
  return index === -1 ? fallback : process.argv[index + 1]
}
const runs = Number(option('runs', 15))
const sizes = String(option('sizes', '10000,100000')).split(',').map(Number)

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const {startSandbox} = await import(new URL('../dist/sandbox/server.js', import.meta.url).href)
const home = mkdtempSync(join(tmpdir(), 'gateway-bench-'))
const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GATEWAY_')))

/** Runs a command to completion; answers its wall time in ms and, with /usr/bin/time, its peak RSS in MiB. */
function measure(argv, env, {exitCode = 0} = {}) {
  return new Promise((resolve, reject) => {
    const command = timeBin ? [timeBin, '-f', '%M', ...argv] : argv
    const started = performance.now()
    const child = spawn(command[0], command.slice(1), {env, stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      const ms = performance.now() - started
      if (code !== exitCode) return reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr.trim()}`))
      const kb = timeBin ? Number(stderr.trim().split('\n').at(-1)) : Number.NaN
      resolve({ms, rssMiB: kb / 1024})
    })
  })
}

/** Runs the CLI and answers its stdout (async: the sandbox shares this process's event loop). */
function gateway(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {env, stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.stderr.on('data', (chunk) => (err += chunk))
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`gateway ${args[0]} exited ${code}: ${err.trim()}`))))
  })
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

async function startup(label, argv, env, exitCode = 0) {
  const times = []
  for (let index = 0; index < runs; index += 1) times.push((await measure(argv, env, {exitCode})).ms)
  return {label, ms: median(times)}
}

const rows = []
const sandbox = await startSandbox({host: '127.0.0.1', port: 0})
try {
  const env = {...baseEnv, GATEWAY_CONFIG_DIR: join(home, 'config')}
  await gateway(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox'], {...env, GATEWAY_CLIENT_SECRET: 'sandbox-secret'})
  const {id} = JSON.parse(await gateway(['tx', 'create', '--amount', '1000', '--json'], env))

  const floor = await startup('node -e ""', [process.execPath, '-e', ''], env)
  rows.push(floor)
  for (const [label, args, exitCode] of [
    ['gateway --version', ['--version']],
    ['gateway auth token (cached)', ['auth', 'token']],
    ['gateway tx get ID --json', ['tx', 'get', id, '--json']],
    ['gateway tx create --amount 0 (refused offline)', ['tx', 'create', '--amount', '0'], 2],
  ]) {
    rows.push(await startup(label, [process.execPath, bin, ...args], env, exitCode))
  }
  console.log(`Start-up, median of ${runs} runs (ratio to bare node):`)
  for (const row of rows) console.log(`  ${row.label.padEnd(48)} ${row.ms.toFixed(0).padStart(6)} ms  ${(row.ms / floor.ms).toFixed(2)}x`)
} finally {
  await sandbox.close()
}

console.log(`\nExport of every deposit, \`deposits list --all --output ndjson --per-page 100\`${timeBin ? '' : ' (no /usr/bin/time: memory not measured)'}:`)
for (const size of sizes) {
  const seeded = performance.now()
  const big = await startSandbox({host: '127.0.0.1', port: 0, seedDeposits: size})
  const seedMs = performance.now() - seeded
  try {
    const env = {...baseEnv, GATEWAY_CONFIG_DIR: join(home, `export-${size}`), GATEWAY_BASE_URL: big.baseUrl, GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'}
    for (const format of ['ndjson', 'csv']) {
      const result = await measure([process.execPath, bin, 'deposits', 'list', '--all', '--output', format, '--per-page', '100'], env)
      console.log(
        `  ${String(size).padStart(7)} deposits, ${format.padEnd(6)} ${(result.ms / 1000).toFixed(2).padStart(6)} s wall, peak RSS ${result.rssMiB.toFixed(0)} MiB  (sandbox seeded in ${(seedMs / 1000).toFixed(1)} s)`,
      )
    }
  } finally {
    await big.close()
  }
}
rmSync(home, {recursive: true, force: true})
