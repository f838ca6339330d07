#!/usr/bin/env node
// `deposits reconcile` at scale: 100,000 expected rows against about 100,000 deposits, side by side
// with `deposits list --all --output ndjson` over the same deposits (the plain export an operator
// would otherwise join by hand), in turns, one sandbox for both. Wall time (median of the runs) and
// peak RSS (/usr/bin/time) of each; the target is reconcile within 1.2x the export's time.
// Usage: node scripts/bench-reconcile.mjs [--reconcile-rows 100000] [--reconcile-runs 3]
// (also run by `npm run bench`, which passes its arguments on).
import {appendFileSync, createReadStream, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'

import {baseEnv, bin, measure, median, startSandbox, timeBin} from './bench-tools.mjs'

const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`)
  return index === -1 ? fallback : process.argv[index + 1]
}
const ROWS = Number(option('reconcile-rows', 100_000))
const RUNS = Math.max(1, Number(option('reconcile-runs', 3)))
const TARGET = 1.2
/** Of every 20 seeded codes, the sandbox makes 22 deposits (see `sandbox start --seed-reconcile`). */
const SEEDED = Math.round((ROWS * 20) / 22)

const work = mkdtempSync(join(tmpdir(), 'gateway-bench-reconcile-'))
const progress = (text) => process.stderr.write(`${text}\n`)
const count = (n) => n.toLocaleString('en-US')

async function lines(file) {
  let total = 0
  const classes = {}
  for await (const line of createInterface({input: createReadStream(file)})) {
    if (!line) continue
    total += 1
    const match = /"class":"([a-z-]+)"/.exec(line)
    if (match) classes[match[1]] = (classes[match[1]] ?? 0) + 1
  }
  return {total, classes}
}

progress(`reconcile: seeding ${count(SEEDED)} expected charges and their deposits`)
const expectedFile = join(work, 'expected.csv')
const sandbox = await startSandbox(['--seed-reconcile', String(SEEDED), '--expected-file', expectedFile])
let failures = 0
const rows = []
try {
  // Rows no deposit matches, up to ROWS: the file is ROWS long.
  let padding = ''
  for (let index = SEEDED + 1; index <= ROWS; index += 1) padding += `REC-PAD-${String(index).padStart(7, '0')},1000,\n`
  appendFileSync(expectedFile, padding)
  const env = {...baseEnv, GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret', GATEWAY_BASE_URL: sandbox.baseUrl}
  const runners = [
    {label: '`deposits list --all --output ndjson`', argv: [process.execPath, bin, 'deposits', 'list', '--all', '--output', 'ndjson'], exit: 0, times: [], rss: [], cpu: []},
    {label: `\`deposits reconcile --output ndjson\`, ${count(ROWS)} rows`, argv: [process.execPath, bin, 'deposits', 'reconcile', '--expected', expectedFile, '--output', 'ndjson'], exit: 10, times: [], rss: [], cpu: []},
  ]
  let deposits
  let result
  // Untimed, once: the sandbox makes each seeded deposit's BR Code when it is first read, a cost
  // that would otherwise fall on whichever command runs first.
  progress('reconcile: warm-up export (untimed)')
  await measure(runners[0].argv, {env: {...env, GATEWAY_CONFIG_DIR: join(work, 'config-warm')}, exitCode: null, stdoutFile: join(work, 'warm.ndjson')})
  rmSync(join(work, 'warm.ndjson'), {force: true})
  for (let run = 0; run < RUNS; run += 1) {
    // In turns, the order swapped each run, so neither always meets the machine in the same state.
    const order = run % 2 === 0 ? [0, 1] : [1, 0]
    for (const index of order) {
      const runner = runners[index]
      progress(`reconcile: run ${run + 1} of ${RUNS}, ${runner.label}`)
      const file = join(work, 'out.ndjson')
      const measured = await measure(runner.argv, {env: {...env, GATEWAY_CONFIG_DIR: join(work, `config-${index}`)}, exitCode: null, stdoutFile: file})
      if (measured.code !== runner.exit) {
        runner.problem = `exited ${measured.code}, not ${runner.exit}: ${measured.stderr.trim().slice(0, 300)}`
      } else if (run === 0) {
        const seen = await lines(file)
        if (index === 0) deposits = seen.total
        else result = seen
      }
      rmSync(file, {force: true})
      runner.times.push(measured.ms)
      runner.rss.push(measured.rssMiB)
      runner.cpu.push(measured.cpuMs)
    }
  }
  // Every expected row once, and every deposit of no row as unknown.
  if (result && deposits !== undefined) {
    const expectedLines = ROWS + Math.round(SEEDED / 20)
    if (result.total !== expectedLines) runners[1].problem = `${count(result.total)} lines, expected ${count(expectedLines)}`
  }
  // Each run's pair gives a ratio; the median of those is the figure (the machine's load moves both of a pair alike).
  const pairs = runners[1].times.map((ms, run) => ms / runners[0].times[run])
  for (const runner of runners) {
    if (runner.problem) failures += 1
    const wall = median(runner.times)
    const ratio = runner === runners[0] ? 1 : median(pairs)
    const met = runner === runners[0] ? '' : ratio <= TARGET ? 'met' : 'not met'
    rows.push([runner.label, `${(wall / 1000).toFixed(2)} s (CPU ${(median(runner.cpu) / 1000).toFixed(2)} s), ${Math.max(...runner.rss).toFixed(0)} MiB`, runner.problem ? `WRONG: ${runner.problem}` : runner === runners[0] ? '1.00x' : `${ratio.toFixed(2)}x (pairs: ${pairs.map((value) => value.toFixed(2)).join(', ')})`, runner === runners[0] ? '' : `≤ ${TARGET}x the export: ${met}`])
  }
  const classes = result ? Object.entries(result.classes).map(([name, n]) => `${name} ${count(n)}`).join(', ') : ''
  console.log(
    [
      '',
      `Reconcile at scale: ${count(ROWS)} expected rows against ${count(deposits ?? 0)} deposits, median wall time (and user + system CPU) of ${RUNS} runs in turns, the ratio the median of each run's pair, peak RSS${timeBin ? '' : ' (no /usr/bin/time: not measured)'}.`,
      classes ? `Classes found: ${classes}.` : '',
      '',
      '| Measure | Result | Ratio | Target |',
      '| --- | --- | --- | --- |',
      ...rows.map((cells) => `| ${cells.join(' | ')} |`),
    ].join('\n'),
  )
} finally {
  await sandbox.close()
  rmSync(work, {recursive: true, force: true})
}
if (failures > 0) {
  progress(`${failures} reconcile measure(s) went wrong`)
  process.exitCode = 1
}
