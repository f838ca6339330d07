#!/usr/bin/env node
// Builds dist/package/gateway_<version>_<arch>.deb around the single executable
// (dist/package/gateway, which scripts/package.mjs makes first), with dpkg-deb:
//   /usr/lib/gateway/gateway                      the executable;
//   /usr/bin/gateway                              a sh wrapper that clears NODE_OPTIONS and execs it;
//   /usr/share/man/man1/gateway.1.gz              the man page, from the commands' manifest and the
//                                                 README's exit code and environment tables;
//   /usr/share/bash-completion/completions/gateway, /usr/share/zsh/vendor-completions/_gateway
//                                                 the scripts `gateway completion bash|zsh` prints
//                                                 (Recommends: bash-completion, which loads the first);
//   /usr/share/doc/gateway/copyright;
//   /usr/share/doc/gateway/sbom.cdx.json          the bill of materials the build wrote (dist/sbom.cdx.json):
//                                                 the packages the executable carries, and its Node.
// Depends: comes from the shared libraries the executable needs (objdump -p) and the lowest version of
// each library's package that has the symbol versions it uses (the package's dpkg symbols file).
// Usage: node scripts/deb.mjs (after `npm run build` and the executable), or buildDeb() from package.mjs.
import {execFileSync, spawnSync} from 'node:child_process'
import {chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {arch} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {gzipSync} from 'node:zlib'

import {pinnedNode} from './runtime.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The executable's path inside the package; /usr/bin/gateway is the wrapper that starts it. */
export const LIBEXEC = 'usr/lib/gateway/gateway'

/**
 * /usr/bin/gateway. The executable itself takes no Node options from NODE_OPTIONS (its SEA config
 * says execArgvExtension "none", scripts/package.mjs); the wrapper clears it as well, a second
 * guard for the operator's NODE_OPTIONS, meant for their own Node work. The executable is found
 * beside the wrapper's own folder (../lib/gateway/gateway), which is /usr/lib/gateway/gateway once
 * installed and also holds in a package unpacked elsewhere.
 */
export const WRAPPER = `#!/bin/sh
# gateway: runs /usr/lib/gateway/gateway without the caller's NODE_OPTIONS, which is meant for
# their own Node programs (the executable ignores it too).
unset NODE_OPTIONS
real=\${0%/*}/../lib/gateway/gateway
[ -x "$real" ] || real=/usr/lib/gateway/gateway
exec "$real" "$@"
`

/** Whether Debian version a sorts before b. */
const versionLess = (a, b) => spawnSync('dpkg', ['--compare-versions', a, 'lt', b]).status === 0
const run = (command, args, options = {}) => execFileSync(command, args, {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options})

/** roff text: backslashes, leading dots and quotes, and hyphens escaped; other than ASCII as \[uXXXX]. */
const roff = (text) =>
  String(text ?? '')
    .replace(/\\/g, '\\e')
    .replace(/^([.'])/gm, '\\&$1')
    .replace(/-/g, '\\-')
    .replace(/[^\x00-\x7f]/gu, (char) => `\\[u${char.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}]`)
/** Markdown links as a man page reads them: [the text](the address) is "the text (the address)"; a link within the README, the text alone. */
export const unlinked = (text) => String(text ?? '').replace(/\[([^\]]*)\]\(([^)\s]*)\)/g, (_, label, target) => (/^[a-z]+:/i.test(target) ? `${label} (${target})` : label))
/** A README table cell as roff: `code` in bold, the rest as text. */
const cell = (text) => unlinked(text).split(/(`[^`]*`)/).map((part) => (part.startsWith('`') ? `\\fB${roff(part.slice(1, -1))}\\fR` : roff(part.replace(/\\\|/g, '|')))).join('')

/** The rows of the README's table whose header row starts with `first`. */
function readmeTable(first) {
  const lines = readFileSync(join(root, 'README.md'), 'utf8').split('\n')
  const start = lines.findIndex((line) => line.startsWith(`| ${first} |`))
  if (start < 0) throw new Error(`README.md has no table headed "| ${first} |": the man page takes it from there`)
  const rows = []
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break
    rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map((part) => part.trim()))
  }
  return rows
}

/**
 * The package's Depends: for each shared library the executable needs, the package that ships it
 * (dpkg -S) at the lowest version whose symbols file has every symbol version the executable asks
 * of it (objdump's version references), as dpkg-shlibdeps reasons. Libraries of the same package merge.
 */
export function depends(executable) {
  // objdump -p: the NEEDED libraries, then "required from LIB:" and the versions it asks of each.
  const headers = run('objdump', ['-p', executable], {maxBuffer: 64 << 20})
  const needed = [...headers.matchAll(/^\s*NEEDED\s+(\S+)/gm)].map((match) => match[1])
  const needs = new Map()
  let file
  for (const line of headers.slice(headers.indexOf('Version References:')).split('\n')) {
    const library = /required from (\S+):/.exec(line)
    if (library) file = library[1]
    const version = /^\s+0x[0-9a-f]+ 0x[0-9a-f]+ \d+ (\S+)$/.exec(line)
    if (version && file) needs.set(file, [...(needs.get(file) ?? []), version[1]])
  }
  const resolved = new Map([...run('ldd', [executable]).matchAll(/^\s*(\S+) => (\/\S+)/gm)].map((match) => [match[1], match[2]]))
  const packages = new Map()
  for (const library of needed) {
    // The dynamic loader is named by its path.
    const path = resolved.get(library) ?? (library.startsWith('/') ? library : run('sh', ['-c', `ldconfig -p | awk '$1 == "${library}" {print $NF; exit}'`]).trim())
    if (!path) throw new Error(`cannot find ${library}, which ${executable} needs`)
    // With /lib a link to /usr/lib (merged /usr), dpkg knows each file under one of the two names.
    const owner = [path, path.startsWith('/usr/') ? path.slice(4) : `/usr${path}`]
      .map((candidate) => spawnSync('dpkg', ['-S', candidate], {encoding: 'utf8'}))
      .find((search) => search.status === 0)
      ?.stdout.split(':')[0]
    if (!owner) throw new Error(`no installed package holds ${path}, which ${executable} needs: dpkg -S finds none`)
    const symbols = `/var/lib/dpkg/info/${owner}:${run('dpkg', ['--print-architecture']).trim()}.symbols`
    const minimum = {}
    if (existsSync(symbols)) {
      for (const line of readFileSync(symbols, 'utf8').split('\n')) {
        const entry = /^ (\S+)@(\S+) (\S+)/.exec(line)
        if (entry && entry[1] === entry[2]) minimum[entry[1]] = entry[3]
      }
    }
    const versions = (needs.get(library) ?? []).map((name) => minimum[name]).filter(Boolean)
    const highest = versions.reduce((top, version) => (top === undefined || versionLess(top, version) ? version : top), undefined)
    const known = packages.get(owner)
    if (!known || (highest && (!known.version || versionLess(known.version, highest)))) {
      packages.set(owner, {version: highest ?? known?.version})
    }
  }
  return [...packages]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, {version}]) => (version ? `${name} (>= ${version})` : name))
    .join(', ')
}

/**
 * A command's examples as its --help shows them: oclif's templates filled (the program's name, the
 * command's words), each with its description when it has one.
 */
export function manExamples(command) {
  const fill = (text) => text.replaceAll('<%= config.bin %>', 'gateway').replaceAll('<%= command.id %>', command.name ?? command.id.replaceAll(':', ' '))
  return (command.examples ?? []).map((example) => (typeof example === 'string' ? {command: fill(example)} : {description: example.description ? fill(example.description) : undefined, command: fill(example.command)}))
}

/** The man page: the commands from the manifest, and the README's exit codes and variables. */
export function manPage(pjson, commands) {
  const flagsOf = (command) => Object.entries(command.flags ?? {}).filter(([, flag]) => !flag.hidden)
  const lines = [
    `.TH GATEWAY 1 "" "gateway ${pjson.version}" "User Commands"`,
    '.SH NAME',
    `gateway \\- ${roff(pjson.description)}`,
    '.SH SYNOPSIS',
    '.B gateway',
    '\\fICOMMAND\\fR [\\fIFLAGS\\fR]',
    '.SH DESCRIPTION',
    roff('Charge customers by PIX, follow charges, export deposits, send payouts and replay notifications, against a PIX payment gateway or the embedded sandbox. Every command has --help with examples; amounts are integer cents.'),
    '.SH COMMANDS',
  ]
  for (const command of commands) {
    lines.push('.SS', `.B gateway ${roff(command.name)}`, roff(command.summary ?? ''))
    if (command.description && command.description !== command.summary) lines.push('.PP', roff(unlinked(command.description)).replace(/\n\n/g, '\n.PP\n'))
    for (const [name, flag] of flagsOf(command)) lines.push('.TP', `.B \\-\\-${roff(name)}${flag.char ? `, \\-${flag.char}` : ''}`, roff(flag.summary ?? flag.description ?? ''))
  }
  // The examples of every command's --help, from the same manifest, as a shell reads them.
  lines.push('.SH EXAMPLES')
  for (const command of commands) {
    for (const example of manExamples(command)) {
      lines.push('.PP', example.description ? roff(unlinked(example.description)) : `\\fBgateway ${roff(command.name)}\\fR`, '.RS', '.nf', roff(example.command), '.fi', '.RE')
    }
  }
  // One row per code, as the README's table has them: a new code there is a new row here.
  lines.push('.SH EXIT STATUS')
  for (const [code, meaning] of readmeTable('Exit code')) lines.push('.TP', `.B ${roff(code)}`, cell(meaning))
  lines.push('.SH ENVIRONMENT')
  for (const [variables, meaning] of readmeTable('Variable')) lines.push('.TP', cell(variables), cell(meaning))
  lines.push(
    '.TP',
    '\\fBXDG_CONFIG_HOME\\fR, \\fBHOME\\fR',
    roff('Where the config folder is when GATEWAY_CONFIG_DIR is not set: $XDG_CONFIG_HOME/gateway, else $HOME/.config/gateway.'),
    '.TP',
    '\\fBTZ\\fR',
    roff('The time zone of tables, of --from and --to given as days, and of the days of deposits summary.'),
    '.TP',
    '\\fBNODE_OPTIONS\\fR',
    roff(
      `Ignored: /usr/bin/gateway is a small sh script that unsets it and runs the executable, /${LIBEXEC}, so an operator's NODE_OPTIONS (meant for their own Node programs: a --require preload, --inspect) never runs inside gateway. The executable run directly ignores NODE_OPTIONS too: it is built to take no Node options from it.`,
    ),
  )
  lines.push(
    '.SH FILES',
    '.TP',
    '\\fI$GATEWAY_CONFIG_DIR\\fR, else \\fI$XDG_CONFIG_HOME/gateway\\fR, else \\fI~/.config/gateway\\fR',
    roff('The config folder, one per user (mode 0700; every file in it 0600):'),
    '.RS',
    '.TP',
    '.B config.json',
    roff("Each profile's base URL and client id."),
    '.TP',
    '.B credentials.json',
    roff("Each profile's client secret, so cron can renew tokens without a prompt."),
    '.TP',
    '.B tokens.json',
    roff('The token cache.'),
    '.TP',
    '\\fBjournal.jsonl\\fR, \\fBjournal\\-\\fR\\fItime\\fR\\fB.jsonl\\fR',
    roff('The journal of money-moving requests, and its archives.'),
    '.TP',
    '\\fB.lock\\fR, \\fBjournal.lock\\fR',
    roff('Lock files of the store and the journal.'),
    '.RE',
    '.TP',
    `.I /${LIBEXEC}`,
    roff('The executable; /usr/bin/gateway runs it without NODE_OPTIONS.'),
    '.SH REMOVING',
    roff(
      'dpkg -r gateway (and dpkg --purge gateway) removes the program, its man page and its completions, and leaves every user\'s config folder as it is, client secrets (credentials.json), tokens and journal included: the package never creates them, and they are that user\'s data. Before removing a folder, check that its journal has nothing pending (gateway journal list --pending): a pending entry is money whose outcome is not yet known. Then each user removes their own:',
    ),
    '.PP',
    '.RS',
    '.nf',
    roff('rm -rf -- "${GATEWAY_CONFIG_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/gateway}"'),
    '.fi',
    '.RE',
    '.SH SEE ALSO',
    roff('gateway completion bash|zsh prints the completion scripts this package installs.'),
  )
  return `${lines.join('\n')}\n`
}

/** Builds the .deb from the executable at `executable` into `out`; returns its path. */
export async function buildDeb({executable = join(root, 'dist', 'package', 'gateway'), out = join(root, 'dist', 'package')} = {}) {
  if (!existsSync(executable)) throw new Error(`${executable} is missing: run npm run package`)
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))
  const completion = join(root, 'dist', 'cli', 'completion.js')
  if (!existsSync(completion)) throw new Error(`${completion} is missing: run npm run build`)
  const {bashCompletion, zshCompletion} = await import(pathToFileURL(completion).href)
  const manifestCommands = Object.values(manifest.commands)
  const commands = manifestCommands
    .filter((command) => !command.hidden)
    .map((command) => ({...command, name: command.id.replaceAll(':', ' ')}))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))

  const debArch = {x64: 'amd64', arm64: 'arm64'}[arch()] ?? arch()
  const staging = join(out, 'deb')
  rmSync(staging, {recursive: true, force: true})
  const put = (path, content, mode = 0o644) => {
    const file = join(staging, path)
    mkdirSync(join(file, '..'), {recursive: true})
    writeFileSync(file, content)
    chmodSync(file, mode)
  }
  mkdirSync(join(staging, LIBEXEC, '..'), {recursive: true})
  copyFileSync(executable, join(staging, LIBEXEC))
  chmodSync(join(staging, LIBEXEC), 0o755)
  put('usr/bin/gateway', WRAPPER, 0o755)
  put('usr/share/man/man1/gateway.1.gz', gzipSync(manPage(pjson, commands), {level: 9}))
  put('usr/share/bash-completion/completions/gateway', bashCompletion(manifestCommands))
  const topics = Object.entries(pjson.oclif?.topics ?? {}).map(([name, topic]) => ({name, description: topic.description}))
  put('usr/share/zsh/vendor-completions/_gateway', zshCompletion(manifestCommands, topics))
  put(
    'usr/share/doc/gateway/copyright',
    `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\nUpstream-Name: gateway\nSource: ${pjson.name} ${pjson.version}\n\nFiles: *\nCopyright: the gateway authors\nLicense: proprietary\n Built with Node.js v${pinnedNode().version}, whose binary the executable carries under its own licenses (MIT, and those of its bundled dependencies, in the LICENSE file of that Node.js release).\n`,
  )
  const bom = join(root, 'dist', 'sbom.cdx.json')
  if (!existsSync(bom)) throw new Error(`${bom} is missing: run npm run build`)
  put('usr/share/doc/gateway/sbom.cdx.json', readFileSync(bom))
  const installedKb = Math.ceil(Number(run('du', ['-sk', join(staging, 'usr')]).split('\t')[0]))
  put('DEBIAN/control', controlText({version: pjson.version, debArch, installedKb, depends: depends(executable), description: pjson.description}))
  const deb = join(out, `gateway_${pjson.version}_${debArch}.deb`)
  execFileSync('dpkg-deb', ['--build', '--root-owner-group', '-Zgzip', '-z6', staging, deb], {stdio: ['ignore', 'ignore', 'inherit']})
  rmSync(staging, {recursive: true, force: true})
  return deb
}

/**
 * The package's DEBIAN/control. It recommends bash-completion: the completion file it installs is
 * read only by that package's loader, which a minimal Debian does not have (apt installs
 * recommended packages by default).
 */
export function controlText({version, debArch, installedKb, depends, description}) {
  return `Package: gateway\nVersion: ${version}\nArchitecture: ${debArch}\nMaintainer: gateway authors <gateway@localhost>\nInstalled-Size: ${installedKb}\nDepends: ${depends}\nRecommends: bash-completion\nSection: utils\nPriority: optional\nDescription: ${description}\n The gateway command-line tool and its embedded sandbox, as one executable\n that needs no Node.js on the machine.\n`
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const deb = await buildDeb()
  console.log(`wrote ${deb.slice(root.length)}`)
}
