#!/usr/bin/env node
// The export's speed and memory: every deposit of a seeded sandbox written by `deposits list --all`
// (NDJSON, CSV, and at 0 ms a workbook, xlsx, held to the NDJSON export: at most 1.25x its peak
// memory, 3x its time), against the plainest export a script could write with Node alone
// (scripts/bench-plain-export.mjs: one `fetch` per page, in turn). At 0 ms per answer, each
// runner's median wall time of --export-runs runs, taken in turns so that a busy moment of the
// machine falls on all of them alike, and its highest peak RSS; at --latency ms per answer, one run
// each. Every record of every run is checked to come exactly once and in the loop's order.
//
// NODE_EXTRA_CA_CERTS is unset for every process measured: an operator's machine does not set it,
// and Node reads that file before any JavaScript runs.
//
// Run alone it prints its own table (Markdown) on stdout; scripts/bench.mjs calls `exportSection`.
// Usage: node scripts/bench-export.mjs [--sizes 10000,100000] [--export-runs 3] [--latency 50]
import {createReadStream, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

import {unzipSync} from 'fflate'

import {baseEnv, bin, measure, median, startSandbox, timeBin} from './bench-tools.mjs'

const PER_PAGE = 100
const plainExport = fileURLToPath(new URL('bench-plain-export.mjs', import.meta.url))
const CLIENT = {GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'}

const seconds = (value) => `${(value / 1000).toFixed(2)} s`
const mib = (value) => (Number.isFinite(value) ? `${value.toFixed(0)} MiB` : 'RSS n/a')
const ratio = (value) => `${value.toFixed(2)}x`
const count = (value) => value.toLocaleString('en-US')
const met = (ok) => (ok ? 'met' : 'NOT met')

/** The ids of an export, in order: NDJSON lines, the first column of a CSV after its header, or the first cell of a workbook's rows after its header. */
async function idsOf(file, format) {
  const ids = []
  if (format === 'xlsx') {
    const sheet = Buffer.from(unzipSync(readFileSync(file), {filter: (entry) => entry.name === 'xl/worksheets/sheet1.xml'})['xl/worksheets/sheet1.xml']).toString('utf8')
    for (const match of sheet.matchAll(/<row>(?:<c [^>]*><is><t>([^<]*)<\/t>)?/g)) ids.push(match[1])
    return ids
  }
  let header = format === 'csv'
  for await (const line of createInterface({input: createReadStream(file), crlfDelay: Infinity})) {
    if (!line) continue
    if (header) {
      header = false
      continue
    }
    ids.push(format === 'csv' ? line.slice(0, line.indexOf(',')) : JSON.parse(line).id)
  }
  return ids
}

/** Checks an export against the expected ids: every record exactly once, in order. Answers a problem or undefined. */
function checkExport(ids, expected) {
  const seen = new Set()
  for (const [index, id] of ids.entries()) {
    if (seen.has(id)) return `record ${id} twice`
    seen.add(id)
    if (id !== expected[index]) return `record ${index + 1} is ${id}, expected ${expected[index]}`
  }
  if (ids.length !== expected.length) return `${count(ids.length)} records, expected ${count(expected.length)}`
  return undefined
}

/**
 * The export rows, handed to `row(measure, result, ratio, target)` and `section(title)` (and how
 * long each sandbox took to seed, to `seeded(size, ms)`); answers how many measures went wrong (a
 * record missing, repeated or out of order).
 * @param {{row: (...cells: string[]) => void, section: (title: string) => void, progress?: (text: string) => void, sizes?: number[], runs?: number, latency?: number, seeded?: (size: number, ms: number) => void}} options
 */
export async function exportSection({row, section, progress = () => {}, sizes = [10_000, 100_000], runs = 3, latency = 50, seeded = () => {}}) {
  const work = mkdtempSync(join(tmpdir(), 'gateway-bench-export-'))
  let failures = 0
  /** Peak RSS and median time of the CLI and of the loop at 0 ms, by size and format. */
  const at0 = {}
  try {
    for (const delay of latency > 0 ? [0, latency] : [0]) {
      section(
        `Export of every deposit, ${PER_PAGE} per page, ${delay} ms per answer (NODE_EXTRA_CA_CERTS unset): ${delay === 0 ? `median wall time of ${runs} runs in turns, highest peak RSS` : 'wall time of one run, peak RSS'}`,
      )
      for (const size of sizes) {
        progress(`export: ${count(size)} deposits at ${delay} ms`)
        const sandbox = await startSandbox(['--seed-deposits', String(size), ...(delay > 0 ? ['--latency', String(delay)] : [])])
        if (delay === 0) seeded(size, sandbox.readyMs)
        try {
          const env = {...baseEnv, ...CLIENT, GATEWAY_BASE_URL: sandbox.baseUrl}
          /** @type {Array<{label: string, format: string, argv: string[], env: NodeJS.ProcessEnv, [more: string]: any}>} */
          const runners = [{label: 'plain `fetch` loop (NDJSON)', format: 'ndjson', argv: [process.execPath, plainExport, sandbox.baseUrl, String(PER_PAGE)], env}]
          for (const format of delay === 0 ? ['ndjson', 'csv', 'xlsx'] : ['ndjson']) {
            runners.push({
              label: `\`deposits list --all --output ${format}\``,
              format,
              argv: [process.execPath, bin, 'deposits', 'list', '--all', '--output', format, '--per-page', String(PER_PAGE)],
              env: {...env, GATEWAY_CONFIG_DIR: join(work, `config-${size}-${delay}-${format}`)},
            })
          }
          for (const runner of runners) Object.assign(runner, {times: [], rss: []})
          let expected
          for (let run = 0; run < (delay === 0 ? runs : 1); run += 1) {
            for (const runner of runners) {
              const file = join(work, 'export.out')
              const result = await measure(runner.argv, {env: runner.env, stdoutFile: file})
              const ids = await idsOf(file, runner.format)
              rmSync(file, {force: true})
              if (!expected) {
                expected = ids
                runner.problem = ids.length === size ? checkExport(ids, [...new Set(ids)]) : `${count(ids.length)} records, expected ${count(size)}`
              } else runner.problem ??= checkExport(ids, expected)
              runner.times.push(result.ms)
              runner.rss.push(result.rssMiB)
            }
          }
          const loopMs = median(runners[0].times)
          for (const runner of runners) {
            const wall = median(runner.times)
            const peak = Math.max(...runner.rss)
            if (runner.problem) failures += 1
            const cli = runner !== runners[0]
            let versus = cli ? ratio(wall / loopMs) : '1.00x'
            let target = ''
            if (cli && delay === 0 && runner.format === 'xlsx') {
              at0[size] = {...at0[size], xlsx: {peak, wall, loopMs}}
              target = 'against NDJSON: see the goals'
            } else if (cli && delay === 0) {
              at0[size] = {...at0[size], [runner.format]: {peak, wall, loopMs}}
              target = `≤ 1.00x the loop (time): ${met(wall <= loopMs)}`
            } else if (cli) {
              versus = `${ratio(loopMs / wall)} faster`
              target = `≥ 3x faster than the loop: ${met(loopMs / wall >= 3)}`
            } else if (delay === 0) {
              at0[size] = {...at0[size], loop: {peak}}
            }
            row(`${count(size)}: ${runner.label}`, `${seconds(wall)}, ${mib(peak)}`, runner.problem ? `WRONG: ${runner.problem}` : versus, target)
          }
        } finally {
          await sandbox.close()
        }
      }
    }
    const [small, large] = [Math.min(...sizes), Math.max(...sizes)]
    section('Export goals (at 0 ms per answer)')
    for (const format of ['ndjson', 'csv']) {
      const big = at0[large]?.[format]
      const little = at0[small]?.[format]
      if (!big) continue
      row(`Peak RSS, ${count(large)} as ${format.toUpperCase()}`, mib(big.peak), `loop ${mib(at0[large].loop.peak)}`, `≤ 100 MiB: ${met(big.peak <= 100)}`)
      if (little && small !== large) {
        const growth = big.peak - little.peak
        row(`Peak RSS, ${count(large)} against ${count(small)}, ${format.toUpperCase()}`, `${mib(big.peak)} against ${mib(little.peak)}`, `${growth >= 0 ? '+' : '-'}${mib(Math.abs(growth))}`, `within 10 MiB: ${met(Math.abs(growth) <= 10)}`)
      }
      for (const size of sizes) {
        const figures = at0[size]?.[format]
        if (figures) row(`Time, ${count(size)} as ${format.toUpperCase()}, against the loop`, `${seconds(figures.wall)} against ${seconds(figures.loopMs)}`, ratio(figures.wall / figures.loopMs), `≤ 1.00x: ${met(figures.wall <= figures.loopMs)}`)
      }
    }
    section('Workbook goals (at 0 ms per answer): the xlsx export against the NDJSON export')
    for (const size of sizes) {
      const {xlsx, ndjson} = at0[size] ?? {}
      if (!xlsx || !ndjson) continue
      row(`Peak RSS, ${count(size)} as XLSX against NDJSON`, `${mib(xlsx.peak)} against ${mib(ndjson.peak)}`, ratio(xlsx.peak / ndjson.peak), `≤ 1.25x: ${met(xlsx.peak <= 1.25 * ndjson.peak)}`)
      row(`Time, ${count(size)} as XLSX against NDJSON`, `${seconds(xlsx.wall)} against ${seconds(ndjson.wall)}`, ratio(xlsx.wall / ndjson.wall), `≤ 3.00x: ${met(xlsx.wall <= 3 * ndjson.wall)}`)
    }
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
  return failures
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const option = (name, fallback) => {
    const index = process.argv.indexOf(`--${name}`)
    return index === -1 ? fallback : process.argv[index + 1]
  }
  const rows = []
  const started = Date.now()
  const failures = await exportSection({
    row: (measure, result, versus = '', target = '') => rows.push([measure, result, versus, target]),
    section: (title) => rows.push([`**${title}**`, '', '', '']),
    progress: (text) => process.stderr.write(`${text}\n`),
    sizes: String(option('sizes', '10000,100000')).split(',').map(Number),
    runs: Number(option('export-runs', 3)),
    latency: Number(option('latency', 50)),
  })
  const cells = (values) => `| ${values.join(' | ')} |`
  console.log(
    [
      `Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, in ${((Date.now() - started) / 1000).toFixed(0)} s${timeBin ? '' : ' (no /usr/bin/time: peak RSS not measured)'}.`,
      '',
      cells(['Measure', 'Result', 'Ratio', 'Target']),
      cells(['---', '---', '---', '---']),
      ...rows.map(cells),
    ].join('\n'),
  )
  if (failures > 0) process.exitCode = 1
}
