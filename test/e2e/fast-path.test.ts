// The fast path (src/fast) against oclif: the same command lines through both, as the operator
// runs them, must print the same stdout and stderr and exit with the same code. The cases: every
// example in the --help of the commands the fast path knows, every refusal of
// test/commands/checked-before-sending.test.ts, every flag of tx create, tx get and deposits list
// as their definitions declare it (with values right, wrong and in another case, and from its
// variable), random command lines of each, the lines the fast path must leave to oclif, and a stdout closed
// early or failing every write. Every other command's examples must never be taken by the fast path.
import {spawn} from 'node:child_process'
import {closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {commandFlags} from '../../src/cli/life-cycle.js'
import {command as fastList} from '../../src/fast/deposits-list.js'
import {command as fastCreate} from '../../src/fast/tx-create.js'
import {command as fastGet} from '../../src/fast/tx-get.js'
import {BIN, cleanEnv, runCli, unstamped, type CliResult} from '../helpers/cli.js'
import {startHostileGateway} from '../helpers/hostile-gateway.js'
import {stats} from '../helpers/sandbox.js'
import {loggedInSandbox} from '../helpers/world.js'

const root = new URL('../../', import.meta.url).pathname
const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {examples?: Array<string | {command: string}>; flags: Record<string, {type: string}>}>
}
const bin = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).oclif.bin as string
const launcher = createRequire(import.meta.url)(join(root, 'dist', 'bundle', 'launch.cjs')) as {
  fastReading(host: unknown, argv: string[], env: NodeJS.ProcessEnv): Promise<string | undefined>
}
/** Whether the fast path takes a line, read in this process as bin/run.js reads it. */
const fastReading = (argv: string[], env: NodeJS.ProcessEnv) =>
  launcher.fastReading({root, read: (name: string, encoding?: BufferEncoding) => (encoding ? readFileSync(join(root, 'dist', 'bundle', name), encoding) : readFileSync(join(root, 'dist', 'bundle', name))), packageJson: () => ''}, argv, env)
const FAST = ['tx:create', 'tx:get', 'deposits:list']
/** The lines each bundle writes as it is loaded (GATEWAY_CODE_CACHE_REPORT): which path ran. */
const REPORT = /^code cache of (\S+): \w+\n/gm
/** What ran a line, from its report: the fast path, or oclif (after the fast path left it, or directly). */
const ranFast = (stderr: string) => /^code cache of fast-/m.test(stderr) && !/^code cache of gateway\.cjs/m.test(stderr)
/** Node's report of an uncaught error (its place in the bundle, the stack), which names each path's own files: its message alone. */
const crash = (text: string) => text.replace(/^\S+\.cjs:\d+\n[\s\S]*?^(\w*Error: .*)$[\s\S]*?^Node\.js v[\d.]+\n/gm, '<crash: $1>\n')
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi

/** The words of an example as a POSIX shell splits them (quotes, no expansions), and where it sends stdout. */
function shellWords(line: string): {words: string[]; redirect?: string} {
  const words: string[] = []
  let word: string | undefined
  let quote: string | undefined
  for (const char of line) {
    if (quote) {
      if (char === quote) quote = undefined
      else word = (word ?? '') + char
    } else if (char === "'" || char === '"') {
      quote = char
      word ??= ''
    } else if (char === ' ') {
      if (word !== undefined) words.push(word)
      word = undefined
    } else word = (word ?? '') + char
  }
  if (word !== undefined) words.push(word)
  const arrow = words.indexOf('>')
  return arrow === -1 ? {words} : {words: words.slice(0, arrow), redirect: words[arrow + 1]}
}

/** The examples of a command that run it, as the operator types them, without the program's name (an example may also show another program, such as curl). */
function exampleLines(id: string): string[][] {
  return (manifest.commands[id].examples ?? [])
    .map((example) => shellWords((typeof example === 'string' ? example : example.command).replaceAll('<%= config.bin %>', bin).replaceAll('<%= command.id %>', id.replaceAll(':', ' '))).words)
    .filter((words) => words[0] === bin)
    .map((words) => words.slice(1))
}

/** What may differ between two runs of the same line: record ids, times, and the BR Code (which holds the id). */
function comparable(text: string, world: {cwd: string; baseUrl: string}): string {
  // A workbook is deflated records, ids and times included: both paths wrote one (test/output/xlsx.test.ts reads them).
  if (text.startsWith('PK\u0003\u0004')) return '<workbook>'
  return unstamped(crash(text))
    .replaceAll(world.cwd, '<cwd>')
    .replaceAll(world.baseUrl, '<gateway>')
    .replaceAll(new URL(world.baseUrl).host, '<host>')
    .replace(UUID, '<uuid>')
    // A deposit's end-to-end id ends in characters the sandbox draws at random, and so do its payer's document and key.
    .replace(/\bE\d{20}[0-9A-Za-z]{11}\b/g, '<end-to-end id>')
    .replace(/\*{3,}\d+/g, '<masked>')
    // The clock time a watch prints a status at: the two runs may fall either side of a second.
    .replace(/^\d\d:\d\d:\d\d /gm, '<clock> ')
    .replace(/\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z| UTC)?/g, '<time>')
    // How long until a charge expires, counted from when each run printed it: 59m on one, 1h 0m or 29m 59s on the other.
    .replace(/\(in [^)]*\)/g, '(in <minutes>)')
    // A BR Code ends in its CRC (6304 and four hex digits); the same digits may come earlier, inside it.
    .replace(/000201.*?6304[0-9A-F]{4}(?![0-9A-F])/g, '<brcode>')
    // The QR code drawn (--qr), which holds the BR Code.
    .replace(/^ *[\u2580\u2584\u2588][\u2580\u2584\u2588 ]*$/gm, '<qr>')
    .replace(/data:image\/png;base64,[A-Za-z0-9+/=]+/g, '<png>')
    .replace(/\(\d+ characters\)/g, '(<n> characters)')
    .replace(/^< date: .*$/gm, '< date: <time>')
    .replace(/^< (content-length|x-request-id|etag): .*$/gm, '< $1: <varies>')
    .replace(/\b\d+ ms\b/g, '<ms>')
    .replace(/"durationInMilliseconds":\d+/g, '"durationInMilliseconds":<ms>')
    // A duration in one unit or several (`59s`, `1m 5s`).
    .replace(/\b\d+(\.\d+)?(ms|s|m|h)( \d+(\.\d+)?(ms|s|m|h))*\b/g, '<duration>')
}

/** One path's world: its own sandbox, config folder (logged in), working folder and charge. */
interface World {
  logged: ReturnType<typeof loggedInSandbox>
  cwd: string
  record: string
}

describe('the fast path and oclif give the same answers', () => {
  // Each path runs every line in a world of its own, the two alike, so that what a line leaves
  // behind (a charge, an idempotency key) meets the next line the same way on both.
  const worlds = {fast: {logged: loggedInSandbox({seedDeposits: 5})} as World, oclif: {logged: loggedInSandbox({seedDeposits: 5})} as World}
  let fastRuns = 0

  beforeAll(async () => {
    for (const [name, world] of Object.entries(worlds)) {
      world.cwd = mkdtempSync(join(tmpdir(), 'gateway-fast-'))
      writeFileSync(join(world.cwd, 'charge.json'), JSON.stringify({amount: 2500, customer: {name: 'Maria Silva', document: '529.982.247-25'}}))
      writeFileSync(join(world.cwd, 'orders.csv'), 'amount,external-code,customer-name\n7980,order-4711,Maria Silva\n1500,order-4712,João Souza\n')
      mkdirSync(join(world.cwd, 'folder'))
      for (const field of ['paymentMethod', 'pix']) writeFileSync(join(world.cwd, `null-${field}.json`), JSON.stringify({amount: 1000, [field]: null}))
      const created = await runCli(['tx', 'create', '--amount', '1000', '--json'], {env: env(world)})
      expect(created.code, name).toBe(0)
      world.record = JSON.parse(created.stdout).id
    }
  })
  afterAll(() => {
    for (const world of Object.values(worlds)) rmSync(world.cwd, {recursive: true, force: true})
  })

  const env = (world: World, extra: Record<string, string> = {}) => ({...world.logged.env, GATEWAY_BASE_URL: world.logged.sandbox.baseUrl, ...extra})
  /** A line's words in a world: {record} is its charge's id, {cwd} its working folder. */
  const inWorld = (args: string[], world: World) =>
    args.map((word) => word.replaceAll('{record}', world.record).replaceAll('{RECORD}', world.record.toUpperCase()).replaceAll('{cwd}', world.cwd))

  /** Runs a line through both paths, each in its world; answers the oclif run, after checking the fast one against it, and whether the fast path ran it. */
  async function same(line: string[], extra: Record<string, string> = {}, input?: string): Promise<CliResult & {fast: boolean}> {
    // Each run reports which bundles it loaded: the fast one ran it when oclif's was never loaded.
    const report = {GATEWAY_CODE_CACHE_REPORT: '1'}
    // The two worlds share nothing, so the two runs go at once.
    const [fast, byOclif] = await Promise.all([
      runCli(inWorld(line, worlds.fast), {env: env(worlds.fast, {...extra, ...report}), cwd: worlds.fast.cwd, input}),
      runCli(inWorld(line, worlds.oclif), {env: env(worlds.oclif, {...extra, ...report, GATEWAY_FAST_PATH: '0'}), cwd: worlds.oclif.cwd, input}),
    ])
    const tookFast = ranFast(fast.stderr)
    if (tookFast) fastRuns++
    const what = `gateway ${line.join(' ')}`
    const seen = (world: World) => ({cwd: world.cwd, baseUrl: world.logged.sandbox.baseUrl})
    const shown = (result: CliResult, world: World) => ({code: result.code, stdout: comparable(result.stdout, seen(world)), stderr: comparable(result.stderr.replace(REPORT, ''), seen(world))})
    expect(shown(fast, worlds.fast), what).toEqual(shown(byOclif, worlds.oclif))
    return {...byOclif, stderr: byOclif.stderr.replace(REPORT, ''), fast: tookFast}
  }

  it('runs every example of tx create, tx get and deposits list the same way', async () => {
    for (const id of FAST) {
      expect(exampleLines(id).length, id).toBeGreaterThan(2)
      for (const words of exampleLines(id)) {
        // A batch is oclif's; every other example is the fast path's.
        expect((await same(words)).fast, words.join(' ')).toBe(!words.includes('--batch'))
      }
    }
  }, 240_000)

  it('never takes an example of another command', async () => {
    const others = Object.keys(manifest.commands).filter((id) => !FAST.includes(id))
    expect(others.length).toBeGreaterThan(10)
    for (const id of others) {
      for (const words of exampleLines(id)) expect(await fastReading(words, env(worlds.fast)), words.join(' ')).toBeUndefined()
    }
    // And this very reading takes the lines the fast path does.
    expect(await fastReading(['tx', 'get', worlds.fast.record, '--json'], env(worlds.fast))).toBe('tx:get')
    expect(await fastReading(['tx', 'get', worlds.fast.record, '--json'], env(worlds.fast, {GATEWAY_FAST_PATH: '0'}))).toBeUndefined()
  })

  it('refuses what checked-before-sending refuses, in the same words, and sends nothing', async () => {
    const before = (await stats(worlds.fast.logged.sandbox.baseUrl)).requests
    const refusals = [
      ['tx', 'create', '--amount', '1000', '--qr-png', '/no/such/dir/q.png'],
      ['tx', 'create', '--amount', '1000', '--qr-png', '/no/such/dir/q.png', '--json'],
      ['tx', 'create', '--amount', '1000', '--qr-png', '{cwd}/folder'],
      ['tx', 'create', '--body', '{cwd}/null-paymentMethod.json'],
      ['tx', 'create', '--body', '{cwd}/null-pix.json'],
    ]
    for (const args of refusals) {
      const refused = await same(args)
      expect(refused.fast, args.join(' ')).toBe(true)
      expect(refused.code).toBe(2)
    }
    expect((await stats(worlds.fast.logged.sandbox.baseUrl)).requests).toBe(before)
    // The charge with the lowercase alphanumeric CNPJ, sent and shown the same way.
    const sent = await same(['tx', 'create', '--amount', '1000', '--seller-name', 'Loja Azul', '--seller-document', '12abc34501de35', '--debug', '--json'])
    expect(sent.code).toBe(0)
  }, 120_000)

  it('answers lookups, charges and failures the same way', async () => {
    const lines: Array<[string[], Record<string, string>?]> = [
      [['tx', 'get', '{record}']],
      [['tx', 'get', '{record}', '--json']],
      [['tx', 'get', '--json', '{RECORD}']],
      [['tx', 'get', '{record}', '--output', 'csv']],
      [['tx', 'get', '{record}', '--output', 'ndjson']],
      [['tx', 'get', '{record}', '--output=json']],
      [['tx', 'get', '{record}', '--debug']],
      [['tx', 'get', '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11', '--json']],
      [['tx', 'get', 'not-a-uuid']],
      [['tx', 'get', '{record}', '--profile', 'no such']],
      [['tx', 'get', '{record}'], {GATEWAY_PROFILE: 'bad/name'}],
      [['tx', 'get', '{record}'], {GATEWAY_PROFILE: 'other'}],
      [['tx', 'get', '{record}', '--base-url', 'http://example.com']],
      [['tx', 'get', '{record}', '--base-url', 'http://127.0.0.1:9']],
      [['tx', 'get', '{record}'], {GATEWAY_CONFIG_DIR: '{cwd}/empty-config'}],
      [['tx', 'create', '--amount', '1000']],
      [['tx', 'create', '--amount', '1500', '--json', '--external-code', 'fast-path-1']],
      [['tx', 'create', '--amount', '1500', '--external-code', 'fast-path-1']],
      [['tx', 'create', '--amount', '1000', '--item', 'title=Cap,unitPrice=1000', '--item', 'title=Hat,unitPrice=2000']],
      [['tx', 'create', '--amount', '10.00']],
      [['tx', 'create', '--amount', '0']],
      [['tx', 'create', '--amount=abc']],
      [['tx', 'create']],
      [['tx', 'create', '--amount', '1000', '--customer-document', '123.456.789-09']],
      [['tx', 'create', '--amount', '1000', '--customer-email', 'maria@']],
      [['tx', 'create', '--amount', '1000', '--webhook-url', 'ftp://example.com']],
      [['tx', 'create', '--amount', '1000', '--expiration-seconds', '5']],
      [['tx', 'create', '--amount', '1000', '--item', 'colour=red']],
      [['tx', 'create', '--body', '{cwd}/missing.json']],
      [['tx', 'create', '--body', '{cwd}/charge.json', '--amount', '3000', '--json']],
      // Left to oclif, which must refuse or run them all the same.
      [['tx', 'create', '--amount', '1000', '--amount', '2000']],
      [['tx', 'create', '--amout', '1000']],
      [['tx', 'create', '--amount']],
      [['tx', 'create', '--amount', '-5']],
      [['tx', 'create', '--amount', '1000', '--yes']],
      [['tx', 'create', '--amount', '1000', '--fields', 'id,status']],
      [['tx', 'create', '--amount', '1000', '--timeout', 'soon']],
      [['tx', 'create', '--amount', '1000', '--', '--json']],
      [['tx', 'create', '--amount', '1000', '--item', 'title=Cap,unitPrice=1000', 'extra']],
      [['tx', 'create', '--batch', '{cwd}/orders.csv', '--dry-run']],
      [['tx', 'get']],
      [['tx', 'get', '{record}', 'extra']],
      [['tx', 'get', '{record}', '-h']],
      [['tx', 'get', '{record}', '--output', 'xml']],
      [['tx', 'get', '{record}', '--json=true']],
      [['tx', 'get', '{record}', '--retries', '0']],
      [['tx', 'get', '{record}'], {GATEWAY_RETRIES: 'many'}],
      [['tx', 'get', '{record}'], {GATEWAY_CONTENT_TYPE: 'json'}],
      [['tx:get', '{record}']],
      [['--profile', 'default', 'tx', 'get', '{record}']],
      [['deposits', 'list']],
      [['deposits', 'list', '--json']],
      [['deposits', 'list', '--status', 'paid', '--per-page', '2']],
      [['deposits', 'list', '--output', 'csv', '--from', 'yesterday', '--to', 'now']],
      [['deposits', 'list', '--all']],
      [['deposits', 'list', '--all', '--output', 'csv', '--per-page', '2']],
      [['deposits', 'list', '--all', '--output', 'json', '--concurrency', '2']],
      [['deposits', 'list', '--all', '--output', 'xlsx', '--per-page', '2']],
      [['deposits', 'list', '--all', '--json']],
      [['deposits', 'list', '--all', '--output-file', '{cwd}/deposits.ndjson']],
      [['deposits', 'list', '--all', '--output', 'table']],
      [['deposits', 'list', '--all', '--page', '2']],
      [['deposits', 'list', '--min-amount', '10.00']],
      [['deposits', 'list', '--from', '31/02/2026']],
      [['deposits', 'list', '--snapshot', 'nope', '--page', '2']],
      [['deposits', 'list', '--all'], {GATEWAY_CONFIG_DIR: '{cwd}/empty-config'}],
      [['deposits', 'list', '--all', '--base-url', 'http://127.0.0.1:9']],
      [['deposits', 'list', '--all', '--concurrency', '0']],
      [['deposits', 'list', '--all', '--output', 'xml']],
      [['deposits', 'list', 'stray']],
    ]
    for (const [args, extra] of lines) await same(args, extra)
    // A body from stdin, good and bad.
    await same(['tx', 'create', '--body', '-', '--json'], {}, JSON.stringify({amount: 4200}))
    await same(['tx', 'create', '--body', '-'], {}, '{"amount": 42.5}')
  }, 300_000)

  /** Every flag oclif reads for each command of the fast path, from the very definitions both paths read. */
  const definitions = {
    create: {words: ['tx', 'create'], base: ['--amount', '1000'], flags: commandFlags(fastCreate.definition)},
    get: {words: ['tx', 'get', '{record}'], base: [] as string[], flags: commandFlags(fastGet.definition)},
    list: {words: ['deposits', 'list'], base: [] as string[], flags: commandFlags(fastList.definition)},
  }
  type Flag = {type: string; options?: readonly string[]; multiple?: boolean; env?: string; char?: string}
  /** A value a flag might be given, by its name: one its command takes, where there is one. */
  const SAMPLES: Record<string, string> = {
    amount: '2500', 'external-code': 'order-77', 'idempotency-key': 'key-77', 'webhook-url': 'https://example.com/hook', 'expiration-seconds': '3600',
    'customer-name': 'Maria Silva', 'customer-document': '529.982.247-25', 'customer-email': 'maria@example.com', 'customer-phone': '+5511999999999',
    'seller-name': 'Loja Azul', 'seller-document': '12abc34501de35', item: 'title=Cap,unitPrice=1000', metadata: 'order=77', body: '{cwd}/charge.json',
    'qr-png': '{cwd}/qr.png', batch: '{cwd}/orders.csv', concurrency: '2', 'max-rows': '10', 'max-total': '100000', fields: 'id,status',
    timeout: '20s', interval: '1s', until: 'paid', retries: '1', profile: 'default', 'base-url': 'http://127.0.0.1:9', 'address-state': 'SP',
    'address-postal-code': '01310-100', 'address-country': 'BR', from: '7d', to: 'now', 'min-amount': '100', 'max-amount': '100000', page: '1',
    'per-page': '2', snapshot: '8c1f0c1c-2a4b-4f7e-9d51-6b8f0a6e2c11', 'output-file': '{cwd}/out.txt',
  }
  const sample = (name: string, flag: Flag) => flag.options?.at(-1) ?? SAMPLES[name] ?? 'x'

  it('reads every flag of tx create, tx get and deposits list, as their definitions declare it, the same way', async () => {
    let lines = 0
    for (const {words, base, flags} of Object.values(definitions)) {
      for (const [name, flag] of Object.entries(flags) as Array<[string, Flag]>) {
        const typed = flag.type === 'boolean' ? [`--${name}`] : flag.multiple ? [`--${name}`, sample(name, flag), `--${name}`, sample(name, flag)] : [`--${name}`, sample(name, flag)]
        // --watch waits for PAID, which the record never reaches: a second bounds it.
        const bounded = name === 'watch' ? [...typed, '--timeout', '1s'] : typed
        const line = [...words, ...(name === 'amount' ? [] : base), ...bounded]
        await same(line)
        lines++
        // A value of a fixed set, in another case than the set's (`--output JSON`).
        if (flag.options) {
          await same([...words, ...base, `--${name}`, flag.options[0].toUpperCase()])
          lines++
        }
        // Its variable, for a flag that has one, and the same value in another case.
        if (flag.env) {
          await same([...words, ...base], {[flag.env]: sample(name, flag)})
          await same([...words, ...base], {[flag.env]: sample(name, flag).toUpperCase()})
          lines += 2
        }
        if (flag.char) {
          await same([...words, ...base, `-${flag.char}`])
          lines++
        }
      }
    }
    expect(lines).toBeGreaterThan(Object.values(definitions).reduce((sum, {flags}) => sum + Object.keys(flags).length, 0))
  }, 600_000)

  it('reads random lines of tx create, tx get and deposits list the same way', async () => {
    const value = fc.oneof(
      fc.constantFrom('1000', '0', '10.00', '-1', 'abc', '', 'title=Cap,unitPrice=100', 'maria@example.com', '529.982.247-25', 'https://example.com/hook', 'ndjson', 'JSON', 'Csv', 'paid', '5s', 'id,status', '--json', '--', '-h', '=', 'a=b'),
      fc.string({maxLength: 12}),
    )
    let fast = 0
    for (const [key, runs] of [['create', 30], ['get', 15], ['list', 15]] as const) {
      const {words: start, flags} = definitions[key]
      const names = Object.entries(flags as Record<string, Flag>).filter(([name]) => !['batch', 'body', 'qr-png', 'watch', 'output-file'].includes(name))
      const flagWords = fc.constantFrom(...names).chain(([name, flag]): fc.Arbitrary<string[]> =>
        flag.type === 'boolean' ? fc.constantFrom([`--${name}`], [`--${name}=true`]) : value.chain((text) => fc.constantFrom([`--${name}`, text], [`--${name}=${text}`])),
      )
      const word = fc.oneof({weight: 4, arbitrary: flagWords}, {weight: 1, arbitrary: value.map((text): string[] => [text])})
      for (const words of fc.sample(fc.array(word, {minLength: 1, maxLength: 4}), {numRuns: runs, seed: 25})) {
        if ((await same([...start, ...words.flat()])).fast) fast++
      }
    }
    // The random lines do reach the fast path, not only oclif.
    expect(fast).toBeGreaterThan(8)
  }, 300_000)

  /** Runs a line in a world with its stdout closed before anything is written, piped into `head -c 1`, or on /dev/full. */
  function withStdout(line: string[], world: World, fastPath: boolean, stdout: 'closed' | 'head' | 'full'): Promise<CliResult> {
    const runEnv = cleanEnv(env(world, fastPath ? {} : {GATEWAY_FAST_PATH: '0'}))
    const args = inWorld(line, world)
    return new Promise((resolve, reject) => {
      let stderr = ''
      const full = stdout === 'full' ? openSync('/dev/full', 'w') : undefined
      const child =
        stdout === 'head'
          ? // The shell reports the CLI's own exit code after head has gone.
            spawn('bash', ['-c', '"$@" | head -c 1 > /dev/null; exit "${PIPESTATUS[0]}"', 'bash', process.execPath, BIN, ...args], {env: runEnv, cwd: world.cwd, stdio: ['ignore', 'ignore', 'pipe']})
          : spawn(process.execPath, [BIN, ...args], {env: runEnv, cwd: world.cwd, stdio: ['ignore', full ?? 'pipe', 'pipe']})
      if (full !== undefined) closeSync(full)
      // The reader goes away before the CLI writes a byte.
      if (stdout === 'closed') child.stdout!.destroy()
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
      child.on('error', reject)
      child.on('close', (code) => resolve({code, stdout: '', stderr}))
    })
  }

  it('ends the same way when stdout closes early or fails every write', async () => {
    const lines = [
      ['tx', 'get', '{record}'],
      ['tx', 'get', '{record}', '--json'],
      ['tx', 'get', '{record}', '--output', 'csv'],
      ['tx', 'get', 'not-a-uuid', '--json'],
      ['tx', 'create', '--amount', '10.00', '--json'],
      ['tx', 'create', '--amount', '1000', '--json'],
      ['tx', 'create', '--amount', '1000', '--qr'],
      ['deposits', 'list'],
      ['deposits', 'list', '--all'],
      ['deposits', 'list', '--all', '--output', 'csv', '--per-page', '2'],
    ]
    for (const stdout of ['closed', 'head', 'full'] as const) {
      for (const line of lines) {
        const [fast, byOclif] = await Promise.all([withStdout(line, worlds.fast, true, stdout), withStdout(line, worlds.oclif, false, stdout)])
        const what = `gateway ${line.join(' ')} (stdout ${stdout})`
        const shown = (result: CliResult, world: World) => ({code: result.code, stderr: comparable(result.stderr, {cwd: world.cwd, baseUrl: world.logged.sandbox.baseUrl})})
        expect(shown(fast, worlds.fast), what).toEqual(shown(byOclif, worlds.oclif))
      }
    }
  }, 180_000)

  it('took the fast path for most lines, and reports its own bundle when asked', async () => {
    expect(fastRuns).toBeGreaterThan(100)
    const reported = await runCli(['tx', 'get', worlds.fast.record, '--json'], {env: env(worlds.fast, {GATEWAY_CODE_CACHE_REPORT: '1'})})
    expect(reported.code).toBe(0)
    // The lookup's bundle carries undici (scripts/fast-table.mjs): its one bundle is the only one
    // read. It reads its answer against the contract's shape alone: zod is never loaded for it.
    expect(reported.stderr).toBe('code cache of fast-tx-get.cjs: used\n')
    // A charge takes undici from its vendor bundle, with that bundle's cache.
    const created = await runCli(['tx', 'create', '--amount', '1000', '--json'], {env: env(worlds.fast, {GATEWAY_CODE_CACHE_REPORT: '1'})})
    expect(created.code).toBe(0)
    expect(created.stderr).toMatch(/^code cache of fast-tx-create\.cjs: used\n/)
    expect(created.stderr).toContain('code cache of vendor-undici.cjs: used\n')
    // An export runs from its own bundle and its cache, never oclif's.
    const exported = await runCli(['deposits', 'list', '--all', '--output', 'csv'], {env: env(worlds.fast, {GATEWAY_CODE_CACHE_REPORT: '1'})})
    expect(exported.code).toBe(0)
    expect(exported.stderr).toMatch(/^code cache of fast-deposits-list\.cjs: used\n/)
    expect(exported.stderr).not.toContain('gateway.cjs')
  })

  it('explains an answer that fails its contract in zod\'s words on both paths, loading zod only then', async () => {
    const hostile = await startHostileGateway(worlds.fast.logged.sandbox.baseUrl)
    try {
      hostile.poisonAll = false
      hostile.rewrite = (request, body) => (request.method === 'GET' && request.url.startsWith('/core/transaction/') ? {...(body as object), amount: '1000'} : body)
      const gateway = {GATEWAY_BASE_URL: hostile.baseUrl, GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret', GATEWAY_CODE_CACHE_REPORT: '1'}
      const line = ['tx', 'get', worlds.fast.record]
      expect(await fastReading(line, env(worlds.fast, gateway))).toBe('tx:get')
      const [fast, byOclif] = await Promise.all([runCli(line, {env: env(worlds.fast, gateway)}), runCli(line, {env: env(worlds.fast, {...gateway, GATEWAY_FAST_PATH: '0'})})])
      expect(fast.code, fast.stderr).toBe(7)
      expect(fast.stderr).toContain(`the gateway answered something that is not a transaction (looking up transaction ${worlds.fast.record}: 200, amount: expected number, got string)`)
      expect(fast.stderr).toContain('code cache of vendor-zod.cjs: used')
      const errorLine = (result: CliResult) => unstamped(result.stderr).split('\n').filter((text) => !text.startsWith('code cache of'))
      expect(byOclif.code).toBe(7)
      expect(errorLine(fast)).toEqual(errorLine(byOclif))
    } finally {
      await hostile.close()
    }
  })
})
