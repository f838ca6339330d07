#!/usr/bin/env node
// Packages the built CLI (run `npm run build` first; `npm run package` does) for the machine it
// runs on:
//   dist/package/gateway: one executable that needs no Node on the machine, Node's own binary with
//     the CLI injected as a single executable application (SEA): package.json, the oclif manifest,
//     the bundle and its code cache travel inside it as assets, and run from memory
//     (packaging/sea-entry.cjs);
//   dist/package/gateway_<version>_<arch>.deb: /usr/bin/gateway, a man page made from the commands'
//     help, bash and zsh completions, and a copyright file, built with dpkg-deb.
import {execFileSync} from 'node:child_process'
import {chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {arch} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {gzipSync} from 'node:zlib'

const root = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const out = join(root, 'dist', 'package')
const bundle = join(root, 'dist', 'bundle', 'gateway.cjs')
const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))
const run = (command, args) => execFileSync(command, args, {cwd: root, stdio: ['ignore', 'ignore', 'inherit']})

if (!existsSync(bundle) || !existsSync(`${bundle}.cache`)) throw new Error('no build to package: run `npm run build` first (or `npm run package`)')
rmSync(out, {recursive: true, force: true})
mkdirSync(out, {recursive: true})

// 1. The single executable: the bundle, its code cache, package.json and the manifest, run from
// memory by packaging/sea-entry.cjs (nothing laid out on disk).
const key = /\/\/# gateway-bundle ([0-9a-f]+)\n$/.exec(readFileSync(bundle, 'latin1').slice(-100))?.[1]
if (!key) throw new Error('the bundle carries no content key: rebuild it')
if (readFileSync(`${bundle}.cache`).subarray(0, key.length + 1).toString('latin1') !== `${key}\n`) throw new Error('the code cache was made for another bundle: rebuild')
const assets = {
  'package.json': join(root, 'package.json'),
  'oclif.manifest.json': join(root, 'oclif.manifest.json'),
  'gateway.cjs': bundle,
  'gateway.cjs.cache': `${bundle}.cache`,
}
const blob = join(out, 'gateway.blob')
writeFileSync(
  join(out, 'sea-config.json'),
  JSON.stringify({main: join(root, 'packaging', 'sea-entry.cjs'), output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, assets}, null, 2),
)
run(process.execPath, ['--experimental-sea-config', join(out, 'sea-config.json')])
const executable = join(out, 'gateway')
copyFileSync(process.execPath, executable)
chmodSync(executable, 0o755)
const postject = join(root, 'node_modules', 'postject', require('postject/package.json').bin.postject)
run(process.execPath, [postject, executable, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'])
rmSync(blob)
rmSync(join(out, 'sea-config.json'))
console.log(`wrote ${join('dist', 'package', 'gateway')}`)

// 2. The Debian package.
const commands = Object.entries(manifest.commands)
  .filter(([, command]) => !command.hidden)
  .map(([id, command]) => ({name: id.replaceAll(':', ' '), ...command}))
  .sort((a, b) => a.name.localeCompare(b.name))
const roff = (text) => String(text ?? '').replace(/\\/g, '\\e').replace(/^([.'])/gm, '\\&$1').replace(/-/g, '\\-')
const flagsOf = (command) => Object.entries(command.flags ?? {}).filter(([, flag]) => !flag.hidden)

/** The man page, from each command's summary, description, examples and flags. */
function manPage() {
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
    if (command.description && command.description !== command.summary) lines.push('.PP', roff(command.description).replace(/\n\n/g, '\n.PP\n'))
    for (const [name, flag] of flagsOf(command)) lines.push('.TP', `.B \\-\\-${roff(name)}${flag.char ? `, \\-${flag.char}` : ''}`, roff(flag.summary ?? flag.description ?? ''))
  }
  lines.push('.SH EXIT STATUS', roff('0 ok; 1 unexpected; 2 usage or validation, nothing sent; 3 authentication or permission; 4 not found; 5 rejected by the gateway; 6 rate limited after retries; 7 gateway or network failure; 8 watch timed out; 9 watch settled elsewhere; 130 interrupted (143 terminated).'))
  lines.push('.SH FILES', roff('$GATEWAY_CONFIG_DIR, else $XDG_CONFIG_HOME/gateway, else ~/.config/gateway: profiles, credentials, the token cache and the journal (mode 0600).'))
  return `${lines.join('\n')}\n`
}

/** bash completion: the command's words one after the other, then its flags. */
function bashCompletion() {
  const names = commands.map((command) => command.name)
  const cases = commands.map((command) => `    ${JSON.stringify(command.name)}) flags=${JSON.stringify(flagsOf(command).map(([name]) => `--${name}`).join(' '))} ;;`)
  return `# bash completion for gateway
_gateway() {
  local cur typed next flags
  cur="\${COMP_WORDS[COMP_CWORD]}"
  typed="\${COMP_WORDS[*]:1:COMP_CWORD-1}"
  case "$typed" in
${cases.join('\n')}
    *) flags="" ;;
  esac
  if [ -n "$flags" ]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    return
  fi
  # The next word of every command that starts with what was typed.
  next=$(printf '%s\\n' ${names.map((name) => JSON.stringify(name)).join(' ')} | awk -v typed="$typed" 'typed == "" {print $1; next} index($0, typed " ") == 1 {n = split(typed, t, " "); print $(n + 1)}' | sort -u)
  COMPREPLY=($(compgen -W "$next" -- "$cur"))
}
complete -F _gateway gateway
`
}

/** zsh completion: the commands with their summaries, then each command's flags. */
function zshCompletion() {
  const entries = commands.map((command) => `    ${JSON.stringify(`${command.name.replaceAll(' ', '\\:')}:${(command.summary ?? '').replaceAll(':', '\\:').replaceAll('"', "'")}`)}`)
  const cases = commands.map(
    (command) => `    ${JSON.stringify(command.name)}) _arguments ${flagsOf(command)
      .map(([name, flag]) => `'--${name}[${(flag.summary ?? flag.description ?? '').split('\n')[0].replace(/[[\]':]/g, ' ')}]'`)
      .join(' ')} ;;`,
  )
  return `#compdef gateway
_gateway() {
  local -a commands
  commands=(
${entries.join('\n')}
  )
  local typed="\${words[2,CURRENT-1]}"
  case "$typed" in
${cases.join('\n')}
    *) _describe 'gateway command' commands ;;
  esac
}
_gateway "$@"
`
}

const debArch = {x64: 'amd64', arm64: 'arm64'}[arch()] ?? arch()
const staging = join(out, 'deb')
const put = (path, content, mode = 0o644) => {
  const file = join(staging, path)
  mkdirSync(join(file, '..'), {recursive: true})
  writeFileSync(file, content)
  chmodSync(file, mode)
}
mkdirSync(join(staging, 'usr', 'bin'), {recursive: true})
copyFileSync(executable, join(staging, 'usr', 'bin', 'gateway'))
chmodSync(join(staging, 'usr', 'bin', 'gateway'), 0o755)
put('usr/share/man/man1/gateway.1.gz', gzipSync(manPage(), {level: 9}))
put('usr/share/bash-completion/completions/gateway', bashCompletion())
put('usr/share/zsh/vendor-completions/_gateway', zshCompletion())
put(
  'usr/share/doc/gateway/copyright',
  `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\nUpstream-Name: gateway\nSource: ${pjson.name} ${pjson.version}\n\nFiles: *\nCopyright: the gateway authors\nLicense: proprietary\n Built with Node.js ${process.version}, whose binary the executable carries under its own licenses (MIT, and those of its bundled dependencies, in the LICENSE file of that Node.js release).\n`,
)
const installedKb = Math.ceil(Number(execFileSync('du', ['-sk', join(staging, 'usr')], {encoding: 'utf8'}).split('\t')[0]))
put(
  'DEBIAN/control',
  `Package: gateway\nVersion: ${pjson.version}\nArchitecture: ${debArch}\nMaintainer: gateway authors <gateway@localhost>\nInstalled-Size: ${installedKb}\nSection: utils\nPriority: optional\nDescription: ${pjson.description}\n The gateway command-line tool and its embedded sandbox, as one executable\n that needs no Node.js on the machine.\n`,
)
const deb = join(out, `gateway_${pjson.version}_${debArch}.deb`)
run('dpkg-deb', ['--build', '--root-owner-group', '-Zgzip', '-z6', staging, deb])
rmSync(staging, {recursive: true, force: true})
console.log(`wrote ${join('dist', 'package', `gateway_${pjson.version}_${debArch}.deb`)}`)
