// The one start of the CLI, for a checkout (bin/run.js) and the single executable
// (packaging/sea-entry.cjs): each entry only says where the files are (a folder, or the executable's
// own assets) and calls launch(). Built into dist/bundle/launch.cjs with the table the build writes
// (scripts/build.mjs): the fast path's commands and bundles, the vendor bundles, the help and
// version flags of package.json.
//
// Each bundle of dist/bundle is compiled with the V8 code cache the build made for it: most of the
// compiling, and the garbage it leaves, is then skipped on every run. V8 refuses a cache made by
// another Node or under other flags, and one made for another bundle is not offered: the bundle is
// then compiled as usual.
import {join} from 'node:path'

/** Where an entry's files are. */
export interface Host {
  /** The package's folder; in the executable, the executable's own path (a file, under which nothing can exist). */
  root: string
  /** A file of dist/bundle (a bundle, a code cache, bytes); throws when there is none. Bundles are ASCII, read as Latin-1, the fastest way. */
  read(name: string): Buffer
  read(name: string, encoding: 'latin1'): string
  /** package.json, as text. */
  packageJson(): string
  /** The oclif manifest, when the entry holds it in memory (the executable): oclif then reads no file. */
  manifest?(): {commands: Record<string, unknown>}
  /** Writes a code cache beside its bundle, when the build asks for it (a checkout). */
  writeCache?(name: string, data: Buffer): void
}

/** A command of the fast path: its words, and its bundle under dist/bundle. */
export interface FastEntry {
  id: string
  words: string[]
  bundle: string
}

/** What the build writes into the launcher. */
export interface LaunchTable {
  bin: string
  /** oclif's help flags (--help and package.json's additionalHelpFlags), which oclif looks for anywhere before `--`. */
  helpFlags: string[]
  /** oclif's version flags (--version and additionalVersionFlags), which oclif answers as the first word. */
  versionFlags: string[]
  commands: FastEntry[]
  /** Which vendor bundle offers each package the fast bundles take, by the id they require it as. */
  vendors: Record<string, string>
}

/** A fast command's bundle, as src/fast/tx-*.ts export it. */
interface FastBundle {
  read(argv: readonly string[], helpFlags: readonly string[]): Promise<unknown>
  run(line: unknown, argv: readonly string[], bin: string): Promise<void>
}

/** How a bundle the build wrapped already begins: it is compiled as it was read (scripts/build.mjs). */
const WRAPPED = '(function (exports, require, module, __filename, __dirname) { '

type Require = (id: string) => unknown
type LoadBundle = (name: string, bundleRequire: Require, module?: {exports: unknown; loaded?: boolean}) => Record<string, unknown>

/**
 * Evaluates bundles of dist/bundle, each compiled with its code cache, as `module` with the require
 * given. The fast path's bundles get a plain module object: nothing looks them up, and the fast
 * path then never loads node:module (some 0.3 ms, for the 15 modules it brings).
 */
function bundleLoader(host: Host, env: NodeJS.ProcessEnv): LoadBundle {
  const {Script} = require('node:vm') as typeof import('node:vm')
  const bundles = join(host.root, 'dist', 'bundle')
  return (name, bundleRequire, module = {exports: {}}) => {
    const filename = join(bundles, name)
    const source = host.read(name, 'latin1')
    // The cache is offered only when it was made for this bundle's content: its first line is the
    // bundle's key, which the build wrote at the bundle's end. File times say nothing once npm copied them.
    const key = /\/\/# gateway-bundle ([0-9a-f]+)\n$/.exec(source.slice(-100))?.[1]
    let cachedData: Buffer | undefined
    try {
      const cache = key ? host.read(`${name}.cache`) : undefined
      if (cache && cache.subarray(0, key!.length + 1).toString('latin1') === `${key}\n`) cachedData = cache.subarray(key!.length + 1)
    } catch {
      // No cache (a bundle no hot path loads has none): compile.
    }
    const script = new Script(source.startsWith(WRAPPED) ? source : (require('node:module') as typeof import('node:module')).wrap(source), {filename, cachedData})
    // For the tests and the bench: which bundle ran, and whether V8 took its cache.
    if (env.GATEWAY_CODE_CACHE_REPORT) process.stderr.write(`code cache of ${name}: ${cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used'}\n`)
    script.runInThisContext()(module.exports, bundleRequire, module, filename, bundles)
    module.loaded = true
    // The build runs the hot paths with this set, each run adding what it compiled to the cache.
    if (env.GATEWAY_CODE_CACHE_WRITE && key && host.writeCache) {
      const write = host.writeCache
      process.once('exit', () => write(`${name}.cache`, Buffer.concat([Buffer.from(`${key}\n`, 'latin1'), script.createCachedData()])))
    }
    return module.exports as Record<string, unknown>
  }
}

/**
 * The require the fast bundles run with: a package they take from a vendor bundle (an id such as
 * `gateway-vendor:zod`, see scripts/build.mjs) from that bundle, which is evaluated when first
 * required, once; a module whose exports are bytes (a `.wasm` file) as the file's bytes, as the
 * module itself exports them; anything else (Node's built-ins) from Node.
 */
function fastRequire(vendors: Record<string, string>, load: LoadBundle, host: Host): Require {
  const loaded = new Map<string, Record<string, unknown>>()
  const fast = (id: string): unknown => {
    const file = Object.hasOwn(vendors, id) ? vendors[id] : undefined
    if (file === undefined) return require(id)
    if (!loaded.has(file)) loaded.set(file, file.endsWith('.wasm') ? {[id]: host.read(file)} : load(file, fast))
    return loaded.get(file)![id]
  }
  return fast
}

/** The fast command whose words start the line. */
function fastCommand(table: LaunchTable, argv: readonly string[]): FastEntry | undefined {
  return table.commands.find((command) => command.words.every((word, index) => argv[index] === word))
}

/** The line `--version` prints, as oclif words it (its user agent): the package, the platform (wsl under Windows' Linux), the architecture (x86 for ia32) and Node's version. */
export function versionLine(name: string, version: string): string {
  const {arch, release} = require('node:os') as typeof import('node:os')
  const platform = process.platform === 'linux' && release().toLowerCase().includes('microsoft') ? 'wsl' : process.platform
  return `${name}/${version} ${platform}-${arch() === 'ia32' ? 'x86' : arch()} node-${process.version}`
}

/**
 * The fast path's reading of a line, for the tests: the command it would run the line as, or
 * undefined when oclif takes it. The same step launch() takes.
 */
export async function fastReading(table: LaunchTable, host: Host, argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const command = env.GATEWAY_FAST_PATH === '0' ? undefined : fastCommand(table, argv)
  if (!command) return undefined
  const load = bundleLoader(host, env)
  const entry = load(command.bundle, fastRequire(table.vendors, load, host)) as unknown as FastBundle
  return (await entry.read(argv.slice(command.words.length), table.helpFlags)) === undefined ? undefined : command.id
}

/** Runs the CLI as this process, with the words typed after its name. */
export async function launch(table: LaunchTable, host: Host, argv: readonly string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // `gateway --version` (or -v) alone is answered with the line oclif prints for it, without
  // reading or evaluating a bundle. test/e2e/startup.test.ts holds this line to oclif's own.
  if (argv.length === 1 && table.versionFlags.includes(argv[0])) {
    const {name, version} = JSON.parse(host.packageJson()) as {name: string; version: string}
    process.stdout.write(`${versionLine(name, version)}\n`)
    return
  }
  // undici parses HTTP with WebAssembly. By default V8 soon recompiles it with its optimising
  // compiler on background threads: the process cannot exit before that work ends (some 80 ms at
  // the end of a short command), and the compile of the parser's loop takes 15 MiB of working
  // memory, which the C library then keeps (scripts/bench-export.mjs). The parser stays in V8's
  // baseline compiler, which reads an export's pages as fast. Both flags are needed: Node 24's V8
  // no longer derives them from --liftoff-only set at run time. Set before compiling: the code
  // cache is bound to the flags.
  const {setFlagsFromString} = require('node:v8') as typeof import('node:v8')
  for (const flag of ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up']) setFlagsFromString(flag)
  const load = bundleLoader(host, env)
  // The fast path: a line of a command it knows, which that command's bundle reads with oclif's
  // parser and the command's own definitions, runs from that bundle without loading oclif; a line
  // it leaves to oclif (src/fast/hot.ts), or GATEWAY_FAST_PATH=0, goes to oclif below.
  const command = env.GATEWAY_FAST_PATH === '0' ? undefined : fastCommand(table, argv)
  if (command) {
    // The fast bundles take the packages they load from bundles of their own, each when first
    // required, bytes (the HTTP parser's) from files beside them, and Node's built-ins from Node.
    const entry = load(command.bundle, fastRequire(table.vendors, load, host)) as unknown as FastBundle
    const words = argv.slice(command.words.length)
    const line = await entry.read(words, table.helpFlags)
    if (line !== undefined) return entry.run(line, words, table.bin)
  }
  return runOclif(table, host, argv, load)
}

/** oclif, from the main bundle. */
function runOclif(table: LaunchTable, host: Host, argv: readonly string[], load: LoadBundle): Promise<void> {
  const {createRequire, Module} = require('node:module') as typeof import('node:module') & {Module: new (id: string) => {exports: unknown; filename: string; loaded: boolean}}
  const main = join(host.root, 'dist', 'bundle', 'gateway.cjs')
  // The main bundle is a CommonJS module of its own path, in require's cache: oclif, loading its
  // commands and hooks from that path (or the target package.json names), finds this one instance,
  // never a file. Node's built-ins come from Node: the bundle requires nothing else (the CLI runs
  // built; oclif's TypeScript support, which would, is turned off in run()).
  const nodeRequire = createRequire(main)
  const cli: {exports: unknown} = {exports: undefined}
  const own = (id: string) => id === main || id === './dist/bundle/gateway.cjs'
  const bundleRequire = Object.assign((id: string) => (own(id) ? cli.exports : nodeRequire(id)), {
    resolve: (id: string, options?: {paths?: string[]}) => (own(id) ? main : nodeRequire.resolve(id, options)),
    cache: nodeRequire.cache,
    main: nodeRequire.main,
  })
  const mainModule = new Module(main)
  mainModule.filename = main
  cli.exports = load('gateway.cjs', bundleRequire, mainModule)
  nodeRequire.cache[main] = mainModule as never
  const {commandNotFound, flush, handle, run} = cli.exports as {
    commandNotFound(error: unknown, argv: readonly string[], manifest: unknown, bin: string): string | undefined
    flush(): Promise<void>
    handle(error: unknown): Promise<void>
    run(root: string, argv: readonly string[], inMemory?: {pjson: unknown; manifest: unknown}): Promise<unknown>
  }
  // The executable hands oclif its package.json and manifest in memory; a checkout's oclif reads them.
  const manifest = host.manifest?.()
  const inMemory = manifest ? {pjson: JSON.parse(host.packageJson()), manifest} : undefined
  return run(host.root, [...argv], inMemory)
    .then(() => flush())
    .catch(async (error) => {
      // A mistyped command is a usage error (exit 2), said in one line with the closest command.
      const {pathToFileURL} = require('node:url') as typeof import('node:url')
      const line = commandNotFound(error, argv, manifest ?? pathToFileURL(join(host.root, 'oclif.manifest.json')), table.bin)
      if (line === undefined) await handle(error)
      else {
        // Into a log (stderr not a terminal) the line says when, as every other error line does.
        process.stderr.write(`${process.stderr.isTTY ? '' : `${new Date().toISOString()} `}Error: ${line}\n`)
        process.exitCode = 2
      }
    })
}
