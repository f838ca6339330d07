#!/usr/bin/env node
// Builds the CLI in three steps:
//   1. tsc: type-checks src/ and writes dist/ module by module (the library in dist/api, and
//      declarations), as before;
//   2. esbuild: bundles bin/run.js's entry, @oclif/core and every command into dist/cli/, for
//      start-up speed. The commands are found here, at build time, from src/commands/**/*.ts
//      (topic/verb.ts is `topic verb`, topic/index.ts is `topic`), and handed to oclif as one
//      object under its `explicit` command-discovery strategy (package.json oclif.commands);
//      modules a command loads with `await import()` become chunks of their own, loaded only by
//      the commands that reach them;
//   3. oclif manifest: oclif.manifest.json, from the bundle, so help and command lookup never
//      load a command.
// Usage: node scripts/build.mjs [--no-manifest] [--metafile FILE]   (FILE: esbuild's account of
// what went into each output file, for size studies)
import {execFileSync} from 'node:child_process'
import {readdirSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join, relative, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

import {build} from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const commandsDir = join(root, 'src', 'commands')
const outdir = join(root, 'dist', 'cli')

/** Every command file under src/commands, with its oclif id. */
function discoverCommands(dir = commandsDir) {
  return readdirSync(dir, {withFileTypes: true})
    .flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return discoverCommands(path)
      if (!entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) return []
      const parts = relative(commandsDir, path).slice(0, -'.ts'.length).split(sep)
      if (parts.at(-1) === 'index') parts.pop()
      return [{id: parts.join(':'), path}]
    })
    .sort((a, b) => a.id.localeCompare(b.id))
}

/** The bundle's entry: oclif's runner, and the command index for the explicit strategy. */
function entrySource(commands) {
  const lines = [
    `import {setFlagsFromString} from 'node:v8'`,
    `import {execute, settings} from '@oclif/core'`,
    `export function run(dir) {`,
    // undici parses HTTP with WebAssembly. By default V8 soon recompiles it with its optimising
    // compiler on background threads, and the process cannot exit before that work ends: some
    // 80 ms at the end of every short command. Optimise only code that runs long (an export).
    `  setFlagsFromString('--wasm-tiering-budget=50000000')`,
    // A built CLI: never look for TypeScript sources to transpile (oclif would load typescript).
    `  settings.enableAutoTranspile = false`,
    `  return execute({dir})`,
    `}`,
  ]
  commands.forEach(({path}, index) => lines.push(`import command${index} from ${JSON.stringify(path)}`))
  lines.push('export const COMMANDS = {')
  commands.forEach(({id}, index) => lines.push(`  ${JSON.stringify(id)}: command${index},`))
  lines.push('}')
  return `${lines.join('\n')}\n`
}

/**
 * `await import('pkg')` of a CommonJS package: Node answers its named exports (found by static
 * analysis of the package), but in a split bundle esbuild answers only `default`. Route each such
 * import through a small module that re-exports, by name, what Node itself would expose.
 */
const commonJsNamedExports = {
  name: 'commonjs-named-exports',
  setup(builder) {
    builder.onResolve({filter: /^[^./]/}, async ({path, kind}) => {
      if (kind !== 'dynamic-import' || path.startsWith('node:')) return undefined
      return {path, namespace: 'dynamic-package'}
    })
    builder.onLoad({filter: /.*/, namespace: 'dynamic-package'}, async ({path}) => {
      const names = Object.keys(await import(require.resolve(path, {paths: [root]})))
      const contents = [
        `import * as namespace from ${JSON.stringify(path)}`,
        ...names.map((name) =>
          name === 'default' ? `export default namespace.default` : /^[A-Za-z_$][\w$]*$/.test(name) ? `export const ${name} = namespace.${name}` : '',
        ),
      ].join('\n')
      return {contents, resolveDir: root, loader: 'js'}
    })
  },
}

const run = (command, args) => execFileSync(command, args, {cwd: root, stdio: 'inherit'})
const binOf = (pkg, name) => join(root, 'node_modules', pkg, require(`${pkg}/package.json`).bin[name])

rmSync(join(root, 'dist'), {recursive: true, force: true})
run(process.execPath, [binOf('typescript', 'tsc'), '-p', 'tsconfig.json'])

const commands = discoverCommands()
if (commands.length === 0) throw new Error(`no command found under ${commandsDir}`)
const result = await build({
  stdin: {contents: entrySource(commands), resolveDir: root, sourcefile: 'gateway-entry.js', loader: 'js'},
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  entryNames: 'gateway',
  chunkNames: 'chunks/[name]-[hash]',
  // The packages bundled here that are CommonJS call require() for Node's own modules.
  banner: {js: `import {createRequire as __gatewayRequire} from 'node:module';const require = __gatewayRequire(import.meta.url);`},
  // Only oclif's development mode loads these, and a built CLI turns it off (see run above).
  external: ['typescript', 'ts-node', 'tsx'],
  plugins: [commonJsNamedExports],
  logLevel: 'warning',
  metafile: true,
})
const metafile = process.argv.indexOf('--metafile')
if (metafile !== -1) writeFileSync(process.argv[metafile + 1], JSON.stringify(result.metafile))
console.log(`bundled ${commands.length} commands into ${relative(root, outdir)}/`)

if (!process.argv.includes('--no-manifest')) run(process.execPath, [binOf('oclif', 'oclif'), 'manifest'])
