#!/usr/bin/env node
// The repeat guard's cost with a year of entries: `withdraw --external-code` against a config folder
// whose journal holds 100,000 entries (a full 1 MiB journal.jsonl, the rest rotated away into
// the index journal-index-<digits>.jsonl, as a year of rotations leaves them), beside the same command with an empty
// journal. Each the median wall time of --guard-runs runs, taken in turns; a new code each run (sent,
// exit 0), and a code of the oldest entry (refused as a repeat, exit 2, nothing sent).
//
// Run alone it prints its own table (Markdown) on stdout; scripts/bench.mjs calls `guardSection`.
// Usage: node scripts/bench-guard.mjs [--entries 100000] [--guard-runs 9]
import {execFileSync} from 'node:child_process'
import {createHash, randomUUID} from 'node:crypto'
import {mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {baseEnv, bin, measure, median, startSandbox} from './bench-tools.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The repeat check of one request, timed in a process of its own: `check(code)` answers its ms and whether it found a repeat. */
async function checker(work, baseUrl, dir) {
  const {build} = await import('esbuild')
  const bundle = join(work, 'guard.mjs')
  await build({
    stdin: {contents: "export {Journal} from './src/journal/journal.ts'\nexport {findRepeats} from './src/send/repeats.ts'\n", resolveDir: root, loader: 'ts'},
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'warning',
  })
  const script = join(work, 'check.mjs')
  writeFileSync(
    script,
    `import {mkdtempSync} from 'node:fs'
import {join} from 'node:path'
const {Journal, findRepeats} = await import(${JSON.stringify(bundle)})
const [dir, code] = process.argv.slice(2)
const target = {profile: 'default', baseUrl: ${JSON.stringify(baseUrl)}, clientId: 'sandbox'}
const body = (externalCode, idempotencyKey) => ({amount: 100, pixKey: 'maria@example.com', pixKeyType: 'EMAIL', externalCode, idempotencyKey})
await findRepeats(new Journal(mkdtempSync(join(${JSON.stringify(work)}, 'warm-'))), target, 'withdraw', [{body: body('warm-up', 'k0')}])
const start = performance.now()
const found = await findRepeats(new Journal(dir), target, 'withdraw', [{body: body(code, 'k1')}])
process.stdout.write(JSON.stringify({ms: performance.now() - start, repeat: found.length > 0}))
`,
  )
  return (code) => JSON.parse(execFileSync(process.execPath, [script, dir, code], {env: baseEnv, encoding: 'utf8'}))
}

const CLIENT = {GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'}
const ms = (value) => `${value.toFixed(0)} ms`
const signed = (value) => `${value < 0 ? '−' : '+'}${Math.abs(value).toFixed(0)} ms`

/** One settled payout entry as the journal writes it: its request and its outcome. */
function entryLines(baseUrl, index, at) {
  const entry = randomUUID()
  const key = randomUUID()
  const code = `year-${String(index).padStart(6, '0')}`
  const body = {amount: 100 + (index % 5000), pixKey: `payee-${index}@example.com`, pixKeyType: 'EMAIL', externalCode: code, idempotencyKey: key}
  const request = {type: 'request', entry, at, profile: 'default', baseUrl, clientId: 'sandbox', command: 'withdraw', idempotencyKey: key, amount: body.amount, externalCode: code, destination: `*************${index}`.slice(-17), request: {method: 'POST', path: '/core/withdraw', body}}
  const outcome = {type: 'outcome', entry, at, state: 'done', by: 'withdraw', id: randomUUID(), status: 'PROCESSING'}
  const {idempotencyKey: _key, ...fields} = body
  const hash = createHash('sha256').update(JSON.stringify(Object.fromEntries(Object.entries(fields).sort()))).digest('hex').slice(0, 32)
  const index_ = {c: code, g: baseUrl, i: 'client:sandbox', f: 'withdraw', h: hash, k: request.destination, at, key, amount: body.amount, s: 'done', e: entry}
  return {journal: `${JSON.stringify(request)}\n${JSON.stringify(outcome)}\n`, index: `${JSON.stringify(index_)}\n`}
}

/** A config folder whose journal holds `entries` settled payouts: a 1 MiB journal.jsonl, the rest in the index. */
export function yearOfEntries(dir, baseUrl, entries) {
  mkdirSync(dir, {recursive: true, mode: 0o700})
  const start = Date.parse('2025-11-27T00:00:00Z')
  const journal = []
  const index = []
  let journalBytes = 0
  // The newest entries in the journal, up to 64 KiB short of its rotation size (room for the runs
  // measured, so that none of them pays for a rotation); the older ones in the index.
  for (let at = entries - 1; at >= 0; at -= 1) {
    const lines = entryLines(baseUrl, at, new Date(start + (at * 365 * 86_400_000) / entries).toISOString())
    if (journalBytes + lines.journal.length < (1 << 20) - 64 * 1024) {
      journal.push(lines.journal)
      journalBytes += lines.journal.length
    } else index.push(lines.index)
  }
  writeFileSync(join(dir, 'journal.jsonl'), journal.reverse().join(''), {mode: 0o600})
  // The index in its 256 files, by the first two hex digits of each code's SHA-256, as rotation writes it.
  const shards = new Map()
  for (const line of index.reverse()) {
    const shard = createHash('sha256').update(JSON.parse(line).c).digest('hex').slice(0, 2)
    shards.set(shard, `${shards.get(shard) ?? ''}${line}`)
  }
  let indexBytes = 0
  for (let digits = 0; digits < 256; digits += 1) {
    const shard = digits.toString(16).padStart(2, '0')
    writeFileSync(join(dir, `journal-index-${shard}.jsonl`), shards.get(shard) ?? '', {mode: 0o600})
    indexBytes += statSync(join(dir, `journal-index-${shard}.jsonl`)).size
  }
  return {inJournal: journal.length, inIndex: index.length, indexBytes}
}

/** The guard's rows, handed to `row(measure, result, versus, target)` and `section(title)`. */
export async function guardSection({row, section, progress = (/** @type {string} */ _message) => {}, entries = 100_000, runs = 9}) {
  const work = mkdtempSync(join(tmpdir(), 'gateway-bench-guard-'))
  const sandbox = await startSandbox()
  try {
    progress(`guard: writing a journal of ${entries.toLocaleString('en-US')} entries`)
    const full = join(work, 'full')
    const empty = join(work, 'empty')
    const made = yearOfEntries(full, sandbox.baseUrl, entries)
    mkdirSync(empty, {recursive: true, mode: 0o700})
    const env = (dir) => ({...baseEnv, ...CLIENT, GATEWAY_BASE_URL: sandbox.baseUrl, GATEWAY_CONFIG_DIR: dir})
    const withdraw = (code) => [process.execPath, bin, 'withdraw', '--amount', '100', '--pix-key', 'maria@example.com', '--external-code', code, '--yes', '--json']
    const times = {empty: [], full: [], repeat: []}
    for (let run = 0; run < runs; run += 1) {
      progress(`guard: run ${run + 1} of ${runs}`)
      times.empty.push((await measure(withdraw(`bench-empty-${run}`), {env: env(empty)})).ms)
      times.full.push((await measure(withdraw(`bench-full-${run}`), {env: env(full)})).ms)
      // The oldest entry of the year: only in the index.
      times.repeat.push((await measure(withdraw('year-000000'), {env: env(full), exitCode: 2})).ms)
    }
    progress('guard: the repeat check alone')
    const check = await checker(work, sandbox.baseUrl, full)
    const checks = {fresh: [], repeat: []}
    for (let run = 0; run < runs; run += 1) {
      checks.fresh.push(check(`check-new-${run}`))
      checks.repeat.push(check('year-000000'))
    }
    if (checks.fresh.some((one) => one.repeat) || checks.repeat.some((one) => !one.repeat)) throw new Error('the repeat check answered wrongly')
    section(
      `Repeat guard: \`withdraw --external-code\`, median wall time of ${runs} runs in turns; the journal holds ${entries.toLocaleString('en-US')} entries (${made.inJournal.toLocaleString('en-US')} in a journal.jsonl near its 1 MiB rotation, ${made.inIndex.toLocaleString('en-US')} in the index, 256 files of ${(made.indexBytes / 256 / 1024).toFixed(0)} KiB)`,
    )
    const base = median(times.empty)
    row('withdraw, new code, empty journal (sent)', ms(base))
    row(`withdraw, new code, ${entries.toLocaleString('en-US')} entries (sent)`, ms(median(times.full)), signed(median(times.full) - base), 'within 100 ms of the empty journal')
    row(`withdraw, code of the oldest entry (refused, exit 2, nothing sent)`, ms(median(times.repeat)))
    const checkMs = (list) => median(list.map((one) => one.ms))
    const tenths = (value) => `${value.toFixed(1)} ms`
    row(`repeat check against ${entries.toLocaleString('en-US')} entries, in-process: a new code`, tenths(checkMs(checks.fresh)))
    row(`repeat check against ${entries.toLocaleString('en-US')} entries, in-process: the oldest entry's code (a repeat)`, tenths(checkMs(checks.repeat)))
    return {empty: base, full: median(times.full), repeat: median(times.repeat), check: checkMs(checks.fresh), checkRepeat: checkMs(checks.repeat)}
  } finally {
    await sandbox.close()
    rmSync(work, {recursive: true, force: true})
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const option = (name, fallback) => {
    const index = process.argv.indexOf(`--${name}`)
    return index === -1 ? fallback : process.argv[index + 1]
  }
  const lines = []
  await guardSection({
    row: (measure, result, versus = '', target = '') => lines.push(`| ${measure} | ${result} | ${versus} | ${target} |`),
    section: (title) => lines.push('', `### ${title}`, '', '| Measure | Result | Versus | Target |', '|---|---|---|---|'),
    progress: (text) => process.stderr.write(`${text}\n`),
    entries: Number(option('entries', 100_000)),
    runs: Number(option('guard-runs', 9)),
  })
  process.stdout.write(`${lines.join('\n')}\n`)
}
