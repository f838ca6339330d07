#!/usr/bin/env node
// Speed and memory of the built CLI and of the sandbox, measured side by side in one run so that
// every ratio compares like with like on this machine, printed as one table (Markdown) on stdout;
// progress goes to stderr. Nothing here asserts: the targets are shown next to the figures.
//
//   start-up     bare `node -e 0`, then gateway commands from the checkout and from the single
//                executable, each the median of --runs runs, taken
//                in turns so that a busy moment of the machine falls on all of them alike;
//   export       scripts/bench-export.mjs: every deposit of a seeded sandbox as NDJSON and CSV
//                (`deposits list --all`), against a plain sequential `fetch` paging loop
//                (scripts/bench-plain-export.mjs), at 0 ms (median of --export-runs runs, in turns)
//                and at --latency ms per answer (one run): wall time and peak RSS, every record
//                checked to come exactly once and in the loop's order;
//   cron loop    100 sequential `tx create` runs with the credentials in the environment: how long,
//                and how many token requests the sandbox saw;
//   guard        scripts/bench-guard.mjs: `withdraw --external-code` against a journal of 100,000
//                entries (most in the repeat guard's index), beside an empty journal, and the
//                repeat check alone, timed in-process;
//   sandbox      deposit paging under autocannon against a bare node:http server answering a static
//                body of the same size, create throughput, and the time to seed 100,000 deposits.
//
// Rows that need a flag the CLI does not have yet (see its --help) say so instead of failing.
// Every process measured runs with NODE_EXTRA_CA_CERTS unset, and the output says so.
// Usage: npm run bench [-- --only startup] [--runs 21] [--sizes 10000,100000] [--export-runs 3] [--latency 50] [--cron 100] [--duration 5]
import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

import autocannon from 'autocannon'

import {baseEnv, bin, measure, median, startSandbox, timeBin} from './bench-tools.mjs'
import {onPinnedNode} from './runtime.mjs'

// Bare Node, the floor of every ratio, is the project's own Node, which the CLI is built for.
onPinnedNode(import.meta.url)

const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`)
  return index === -1 ? fallback : process.argv[index + 1]
}
const RUNS = Math.max(20, Number(option('runs', 21)))
const SIZES = String(option('sizes', '10000,100000')).split(',').map(Number)
const LATENCY = Number(option('latency', 50))
const CRON_RUNS = Number(option('cron', 100))
const DURATION = Number(option('duration', 5))
const EXPORT_RUNS = Number(option('export-runs', 3))
const PER_PAGE = 100

const root = fileURLToPath(new URL('..', import.meta.url))
const executable = join(root, 'dist', 'package', 'gateway')
const work = mkdtempSync(join(tmpdir(), 'gateway-bench-'))
// Every process the bench starts runs without NODE_EXTRA_CA_CERTS (baseEnv, scripts/bench-tools.mjs):
// Node reads that file before any JavaScript runs (50 to 70 ms a process where it is set), which no
// operator's machine pays and which would hide the CLI's own start-up in the floor it is measured against.
const CA_NOTE = process.env.NODE_EXTRA_CA_CERTS ? 'NODE_EXTRA_CA_CERTS is set here and unset for every process measured' : ''
// --only startup: the start-up goals alone.
const ONLY_STARTUP = option('only', '') === 'startup'
const CLIENT = {GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'}
const progress = (text) => process.stderr.write(`${text}\n`)

/** The table: one row per measure. */
const rows = []
const row = (measure, result, versus = '', target = '') => rows.push({measure, result, versus, target})
const section = (title) => rows.push({section: title})
let failures = 0
/** Start-up goals missed. */
let missed = 0

// ---------------------------------------------------------------------------------------------
// Helpers

/** Runs the CLI and answers its stdout. */
function gateway(args, env) {
  const result = spawnSync(process.execPath, [bin, ...args], {env, encoding: 'utf8'})
  if (result.status !== 0) throw new Error(`gateway ${args.join(' ')} exited ${result.status}: ${result.stderr.trim()}`)
  return result.stdout
}

async function tokenFor(baseUrl) {
  const response = await fetch(`${baseUrl}/auth/token`, {
    method: 'POST',
    headers: {'content-type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams({grant_type: 'client_credentials', client_id: CLIENT.GATEWAY_CLIENT_ID, client_secret: CLIENT.GATEWAY_CLIENT_SECRET}),
  })
  if (!response.ok) throw new Error(`token request: ${response.status}`)
  return /** @type {{access_token: string}} */ (await response.json()).access_token
}

/** How long `sandbox start --seed-deposits N` took to listen, by N. */
const seedTimes = new Map()

const stats = async (baseUrl) => /** @type {{tokenRequests: number}} */ (await (await fetch(`${baseUrl}/_sandbox/stats`)).json())
const ms = (value) => `${value.toFixed(0)} ms`
const seconds = (value) => `${(value / 1000).toFixed(2)} s`
const ratio = (value) => `${value.toFixed(2)}x`
const count = (value) => value.toLocaleString('en-US')

// ---------------------------------------------------------------------------------------------
// Start-up

/**
 * The start-up goals, each a ratio to bare `node -e 0` measured in the same run, for the checkout
 * (`node bin/run.js`) and the single executable, each with its own target (the executable, which
 * reads no file to start, is held to more).
 */
const GOALS = [
  {key: 'version', label: '`gateway --version`', target: {checkout: 1.3, executable: 1.3}},
  {key: 'refused', label: '`gateway tx create --amount 10.00` (bad flag, refused)', target: {checkout: 1.6, executable: 1.4}},
  {key: 'get', label: '`gateway tx get ID --json` (cached token)', target: {checkout: 2.0, executable: 1.6}},
]
/** The goals' table, printed after the main one. */
const goalRows = []
/**
 * Bare Node's start-up above which the ratios flatter the CLI: the goals were set where `node -e 0`
 * takes about 24 ms, and a loaded or slow machine stretches that floor more than the CLI's own work.
 */
const SLOW_FLOOR_MS = 40
/** Bare Node's median in this run (ms), once measured (0 until then). */
let floorMs = 0

async function startup() {
  progress(`start-up: ${RUNS} runs of each command, in turns${CA_NOTE ? `; ${CA_NOTE}` : ''}`)
  const sandbox = await startSandbox()
  try {
    const env = {...baseEnv, GATEWAY_CONFIG_DIR: join(work, 'startup'), GATEWAY_BASE_URL: sandbox.baseUrl}
    gateway(['login', '--client-id', 'sandbox'], {...env, GATEWAY_CLIENT_SECRET: CLIENT.GATEWAY_CLIENT_SECRET})
    const {id} = JSON.parse(gateway(['tx', 'create', '--amount', '1000', '--json'], env))
    const goalArgs = {version: [['--version']], refused: [['tx', 'create', '--amount', '10.00'], 2], get: [['tx', 'get', id, '--json']]}
    const hasExecutable = existsSync(executable)
    const commands = [{label: '`node -e 0`', argv: [process.execPath, '-e', '0']}]
    for (const goal of GOALS) {
      const [args, exitCode] = goalArgs[goal.key]
      commands.push({label: goal.label, argv: [process.execPath, bin, ...args], exitCode, target: goal.target.checkout, goal: goal.key, side: 'checkout'})
      // The single executable (npm run package), if it was built.
      if (hasExecutable) commands.push({label: `executable ${goal.label}`, argv: [executable, ...args], exitCode, target: goal.target.executable, goal: goal.key, side: 'executable'})
    }
    commands.push({label: '`gateway tx create --amount 0` (refused by the rules)', argv: [process.execPath, bin, 'tx', 'create', '--amount', '0'], exitCode: 2})
    if (!ONLY_STARTUP) {
      // The package as npm installs it (npm pack, then a global install into a folder of its own).
      const installed = installPackage()
      commands.push({label: '`gateway --version`, the package as npm installs it', argv: [join(installed, 'bin', 'gateway'), '--version'], target: 1.3})
    }
    for (const command of commands) command.times = []
    for (let run = 0; run < RUNS; run += 1) {
      for (const command of commands) command.times.push((await measure(command.argv, {env, exitCode: command.exitCode ?? 0})).ms)
    }
    const floor = median(commands[0].times)
    floorMs = floor
    if (floor > SLOW_FLOOR_MS) progress(`bare Node took ${ms(floor)}, over ${SLOW_FLOOR_MS} ms: the machine is loaded or slow, and the ratios flatter the CLI`)
    section(`Start-up: median wall time of ${RUNS} runs each, against bare Node, NODE_EXTRA_CA_CERTS unset`)
    for (const command of commands) {
      const value = median(command.times)
      command.ratio = value / floor
      // Each ratio with the floor it was taken against: a ratio means little without it.
      row(command.label, ms(value), command === commands[0] ? `1.00x (bare Node ${ms(floor)})` : `${ratio(command.ratio)} of ${ms(floor)}`, command.target ? `≤ ${command.target}x` : '')
    }
    for (const goal of GOALS) {
      const verdict = (side) => {
        const command = commands.find((entry) => entry.goal === goal.key && entry.side === side)
        if (!command) return 'not built (npm run package)'
        if (command.ratio > command.target) missed += 1
        return `${ratio(command.ratio)} (≤ ${command.target}x) ${command.ratio <= command.target ? 'met' : 'MISSED'}`
      }
      goalRows.push([goal.label, ms(floor), verdict('checkout'), verdict('executable')])
    }
  } finally {
    await sandbox.close()
  }
}

/** Packs the built checkout and installs it globally into a folder of the bench's own; answers that prefix. */
function installPackage() {
  const folder = join(work, 'installed')
  mkdirSync(folder, {recursive: true})
  const tarball = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', folder, root], {encoding: 'utf8'}).trim().split('\n').at(-1)
  execFileSync('npm', ['install', '--global', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', folder, join(folder, tarball)], {stdio: 'ignore'})
  return folder
}

// ---------------------------------------------------------------------------------------------
// Export

/** The export's rows: scripts/bench-export.mjs (NDJSON and CSV against the plain loop, each goal with its target). */
async function exportRuns() {
  failures += await (await import('./bench-export.mjs')).exportSection({row, section, progress, sizes: SIZES, runs: EXPORT_RUNS, latency: LATENCY, seeded: (size, ms) => seedTimes.set(size, ms)})
}

// ---------------------------------------------------------------------------------------------
// Cron loop

async function cronLoop() {
  progress(`cron loop: ${CRON_RUNS} sequential tx create runs`)
  const sandbox = await startSandbox()
  try {
    const env = {...baseEnv, ...CLIENT, GATEWAY_BASE_URL: sandbox.baseUrl, GATEWAY_CONFIG_DIR: join(work, 'cron')}
    const before = await stats(sandbox.baseUrl)
    const started = performance.now()
    for (let run = 0; run < CRON_RUNS; run += 1) await measure([process.execPath, bin, 'tx', 'create', '--amount', '1000', '--json'], {env})
    const total = performance.now() - started
    const after = await stats(sandbox.baseUrl)
    const tokens = after.tokenRequests - before.tokenRequests
    section(`Cron loop: ${CRON_RUNS} sequential \`tx create --amount 1000 --json\`, credentials in the environment, no login`)
    row('Total time', `${seconds(total)} (${ms(total / CRON_RUNS)} a run)`)
    row('Token requests seen by the sandbox', String(tokens), '', 'exactly 1')
  } finally {
    await sandbox.close()
  }
}

// ---------------------------------------------------------------------------------------------
// Sandbox throughput

function cannon(options) {
  return new Promise((resolve, reject) => {
    autocannon({connections: 10, duration: DURATION, ...options}, (error, result) => (error ? reject(error) : resolve(result)))
  })
}

/** A bare node:http server in a child process, answering every request with one static body. */
async function startBareServer(body, contentType) {
  const bodyFile = join(work, 'bare-body')
  writeFileSync(bodyFile, body)
  const source = `
    const body = require('node:fs').readFileSync(${JSON.stringify(bodyFile)})
    const server = require('node:http').createServer((request, response) => {
      request.resume()
      response.writeHead(200, {'content-type': ${JSON.stringify(contentType)}, 'content-length': body.length})
      response.end(body)
    })
    server.listen(0, '127.0.0.1', () => console.log(server.address().port))
    process.on('SIGTERM', () => server.close(() => process.exit(0)))`
  const child = spawn(process.execPath, ['-e', source], {stdio: ['ignore', 'pipe', 'inherit']})
  const port = await new Promise((resolve) => createInterface({input: child.stdout}).once('line', resolve))
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}

async function sandboxThroughput() {
  const seedSize = 100_000
  if (!seedTimes.has(seedSize)) {
    progress(`sandbox: seeding ${count(seedSize)} deposits`)
    const seeded = await startSandbox(['--seed-deposits', String(seedSize)])
    seedTimes.set(seedSize, seeded.readyMs)
    await seeded.close()
  }

  progress(`sandbox: autocannon, 10 connections, ${DURATION} s a run`)
  const sandbox = await startSandbox(['--seed-deposits', '10000'])
  try {
    const token = await tokenFor(sandbox.baseUrl)
    const headers = {authorization: `Bearer ${token}`, accept: 'application/json'}
    const first = /** @type {{snapshot: string, totalPages: number}} */ (await (await fetch(`${sandbox.baseUrl}/core/deposit?page=1&perPage=${PER_PAGE}`, {headers})).json())
    const pagePath = (page) => `/core/deposit?page=${page}&perPage=${PER_PAGE}&snapshot=${encodeURIComponent(first.snapshot)}`
    const sample = await fetch(`${sandbox.baseUrl}${pagePath(2)}`, {headers})
    const sampleBody = Buffer.from(await sample.arrayBuffer())
    let page = 0
    const paging = await cannon({
      url: sandbox.baseUrl,
      requests: [{method: 'GET', headers, setupRequest: (request) => ({...request, path: pagePath((page++ % first.totalPages) + 1)})}],
    })
    const bare = await startBareServer(sampleBody, sample.headers.get('content-type') ?? 'application/json')
    let bareResult
    try {
      bareResult = await cannon({url: `${bare.url}${pagePath(2)}`})
    } finally {
      await bare.close()
    }
    let key = 0
    const create = await cannon({
      url: sandbox.baseUrl,
      requests: [
        {
          method: 'POST',
          path: '/core/transaction',
          headers: {...headers, 'content-type': 'application/json'},
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({amount: 1000, paymentMethod: 'PIX', pix: {}, idempotencyKey: `bench-${process.pid}-${key++}`}),
          }),
        },
      ],
    })
    const rate = (result) => `${count(Math.round(result.requests.average))} req/s${result.non2xx || result.errors ? ` (${result.non2xx} non-2xx, ${result.errors} errors)` : ''}`
    if (paging.non2xx || paging.errors || create.non2xx || create.errors) failures += 1
    section(`Sandbox: autocannon, 10 connections, ${DURATION} s each`)
    row(`Deposit paging (GET /core/deposit, ${PER_PAGE} per page, ${count(sampleBody.length)} bytes)`, rate(paging), ratio(paging.requests.average / bareResult.requests.average), '≥ 0.5x the bare server')
    row('Bare node:http server, the same body', rate(bareResult), '1.00x')
    row('Create (POST /core/transaction, QR code PNG included)', rate(create))
    row(`Seeding ${count(seedSize)} deposits (\`sandbox start\` until it listens)`, seconds(seedTimes.get(seedSize)), '', '< 2 s')
  } finally {
    await sandbox.close()
  }
}

// ---------------------------------------------------------------------------------------------

const started = Date.now()
// The machine's load, before and after: start-up ratios mean what they say only on a machine that
// is not busy with other work.
const {cpus, loadavg} = await import('node:os')
const loadBefore = loadavg()[0]
try {
  await startup()
  if (!ONLY_STARTUP) {
    await exportRuns()
    await cronLoop()
    await (await import('./bench-guard.mjs')).guardSection({row, section, progress})
    await sandboxThroughput()
  }
} finally {
  rmSync(work, {recursive: true, force: true})
}

const cells = (values) => `| ${values.join(' | ')} |`
const cores = cpus().length
const loadAfter = loadavg()[0]
const busy = Math.max(loadBefore, loadAfter) > cores
const lines = [
  `Measured ${new Date().toISOString().slice(0, 10)} on ${cores} cores (load average ${loadBefore.toFixed(1)} at the start, ${loadAfter.toFixed(1)} at the end${busy ? ': the machine was busy with other work, and the figures show it' : ''}), Node ${process.version}, in ${((Date.now() - started) / 1000).toFixed(0)} s, NODE_EXTRA_CA_CERTS unset for every process measured${timeBin ? '' : ' (no /usr/bin/time: peak RSS not measured)'}.`,
  '',
  cells(['Measure', 'Result', 'Ratio', 'Target']),
  cells(['---', '---', '---', '---']),
]
for (const entry of rows) lines.push(entry.section ? cells([`**${entry.section}**`, '', '', '']) : cells([entry.measure, entry.result, entry.versus, entry.target]))
lines.push('', `Start-up goals, as ratios to bare \`node -e 0\` in this run, NODE_EXTRA_CA_CERTS unset${CA_NOTE ? ' (the machine sets it)' : ''}:`, '')
lines.push(cells(['Goal', 'Bare Node', 'Checkout (`node bin/run.js`)', 'Executable']), cells(['---', '---', '---', '---']))
for (const goal of goalRows) lines.push(cells(goal))
lines.push('', missed === 0 ? 'Every start-up goal is met.' : `${missed} start-up goal(s) missed.`)
if (floorMs > SLOW_FLOOR_MS) {
  lines.push(
    '',
    `Bare Node took ${ms(floorMs)} here, over ${SLOW_FLOOR_MS} ms: the machine is loaded or slow, which stretches Node's own start more than the CLI's work, and the ratios flatter the CLI. The goals hold where bare Node starts in about 24 ms.`,
  )
}
console.log(lines.join('\n'))
if (!ONLY_STARTUP && spawnSync(process.execPath, [fileURLToPath(new URL('bench-reconcile.mjs', import.meta.url)), ...process.argv.slice(2)], {stdio: 'inherit'}).status !== 0) process.exitCode = 1
if (failures > 0) {
  progress(`${failures} measure(s) went wrong: see the rows marked WRONG or with errors`)
  process.exitCode = 1
}
