import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCommand} from '../helpers/context.js'
import {bashCompletes, hasZsh, zshCompletes} from '../helpers/completion.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
type Manifest = {commands: Record<string, {hidden?: boolean; flags: Record<string, {hidden?: boolean; options?: string[]}>}>}
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest
const flagsOf = (id: string) => Object.entries(manifest.commands[id].flags).filter(([, flag]) => !flag.hidden).map(([name]) => `--${name}`)
const firstWords = [...new Set(Object.entries(manifest.commands).filter(([, command]) => !command.hidden).map(([id]) => id.split(':')[0]))].sort()

/** Each line and what completing its last word must offer, for bash and zsh alike. */
const CASES: Array<[string[], string[]]> = [
  [['gateway', ''], firstWords],
  [['gateway', 'tx', ''], ['create', 'get']],
  // Flags at any position after the command, not only right after it.
  [['gateway', 'tx', 'create', '--amount', '1000', '--'], flagsOf('tx:create')],
  [['gateway', 'tx', 'create', '--amount', '1000', '--customer-name', 'Maria Silva', '--item', 'title=Cap,unitPrice=2000', '--qr'], ['--qr', '--qr-png']],
  [['gateway', 'deposits', 'list', '--status', 'PAID', '--out'], ['--output', '--output-file']],
  [['gateway', 'tx', 'get', '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11', '--wa'], ['--watch']],
  // A boolean flag, long or short, takes no value: the next word is a flag again.
  [['gateway', 'withdraw', '-y', '--dry'], ['--dry-run']],
  // Global flags before the command are stepped over, with their values.
  [['gateway', '--profile', 'prod', 'tx', ''], ['create', 'get']],
  [['gateway', '--profile', 'prod', '--debug', 'deposits', 'l'], ['list']],
  // The values of flags that have a fixed set of them.
  [['gateway', 'deposits', 'list', '--status', 'PAID', '--output', ''], manifest.commands['deposits:list'].flags.output.options!],
  [['gateway', 'deposits', 'list', '--output', 'n'], ['ndjson']],
  [['gateway', 'journal', 'resolve', 'order-4711-key', '--as', ''], ['done', 'failed', 'not-sent']],
  // Flags that take any case complete their values as they are sent.
  [['gateway', 'deposits', 'list', '--status', ''], manifest.commands['deposits:list'].flags.status.options!],
  [['gateway', 'deposits', 'list', '--status', 'PAID', '--status', 'RE'], ['REFUNDED']],
  [['gateway', 'deposits', 'summary', '--origin', ''], manifest.commands['deposits:summary'].flags.origin.options!],
  [['gateway', 'deposits', 'reconcile', '--origin', 'Q'], ['QRCODE']],
  [['gateway', 'withdraw', '--amount', '1000', '--pix-key-type', ''], manifest.commands.withdraw.flags['pix-key-type'].options!],
  [['gateway', 'tx', 'get', '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11', '--until', 'REF'], ['REFUNDED']],
  [['gateway', 'webhooks', 'resend', '--status', ''], manifest.commands['webhooks:resend'].flags.status.options!],
  // A value that is free text: neither flags nor commands.
  [['gateway', 'tx', 'create', '--amount', ''], []],
  [['gateway', 'deposits', 'list', '--from', ''], []],
]

/** Every flag of the manifest with a fixed set of values, each of which completes to that set. */
const FIXED = Object.entries(manifest.commands)
  .filter(([, command]) => !command.hidden)
  .flatMap(([id, command]) =>
    Object.entries(command.flags)
      .filter(([, flag]) => !flag.hidden && (flag.options?.length ?? 0) > 0)
      .map(([name, flag]) => [id, name, flag.options!] as const),
  )

describe('shell completion: gateway completion bash|zsh', () => {
  let dir: string
  let bash: string
  let zsh: string

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-completion-'))
    const printed = await Promise.all(['bash', 'zsh'].map((shell) => runCommand(['completion', shell])))
    for (const result of printed) {
      expect(result.code).toBe(0)
      expect(result.stderr).toBe('')
    }
    bash = join(dir, 'gateway.bash')
    zsh = join(dir, '_gateway')
    writeFileSync(bash, printed[0].stdout)
    writeFileSync(zsh, printed[1].stdout)
  })
  afterAll(() => rmSync(dir, {recursive: true, force: true}))

  it('binds one function with complete -F, and is the one completion system (no oclif autocomplete command)', () => {
    expect(readFileSync(bash, 'utf8')).toMatch(/^complete -F _gateway gateway$/m)
    expect(Object.keys(manifest.commands).filter((id) => id.startsWith('autocomplete'))).toEqual([])
    expect(manifest.commands.completion).toBeDefined()
  })

  for (const [words, expected] of CASES) {
    it(`bash: ${words.join(' ')}<TAB>`, () => {
      expect(bashCompletes(bash, words)).toEqual(expected)
    })
  }

  it('every flag with fixed values has them in the manifest: --status, --origin, --pix-key-type, --output, --until, --as', () => {
    const named = new Set(FIXED.map(([id, name]) => `${id} --${name}`))
    for (const line of ['deposits:list --status', 'deposits:list --origin', 'deposits:summary --status', 'deposits:reconcile --origin', 'withdraw --pix-key-type', 'tx:get --until', 'tx:get --output', 'webhooks:resend --status', 'journal:resolve --as']) {
      expect(named, line).toContain(line)
    }
  })

  it('bash completes the values of every flag that has fixed ones, from its options', () => {
    for (const [id, name, options] of FIXED) {
      expect(bashCompletes(bash, ['gateway', ...id.split(':'), `--${name}`, '']), `${id} --${name}`).toEqual(options)
    }
  })

  // bash splits --output=value at the =: the value after it completes too.
  it('bash: gateway deposits list --output=js<TAB>, and --output=<TAB>', () => {
    expect(bashCompletes(bash, ['gateway', 'deposits', 'list', '--output', '=', 'js'])).toEqual(['json'])
    expect(bashCompletes(bash, ['gateway', 'deposits', 'list', '--output', '='])).toEqual(manifest.commands['deposits:list'].flags.output.options)
    expect(bashCompletes(bash, ['gateway', 'deposits', 'list', '--output', '=', 'json', '--st'])).toEqual(['--status'])
  })

  describe.skipIf(!hasZsh)('zsh', () => {
    // zsh shows a description after each name, and keeps the names that start with the word typed (as compadd does).
    const names = (offered: string[], typed: string) =>
      offered.map((entry) => entry.replace(/(?<!\\):.*$/, '')).filter((name) => name === '<files>' || name.startsWith(typed)).sort()
    for (const [words, expected] of CASES) {
      it(`zsh: ${words.join(' ')}<TAB>`, () => {
        const offered = names(zshCompletes(zsh, words), words.at(-1)!)
        // A free-text value is left to zsh's file completion.
        expect(offered).toEqual(expected.length === 0 ? ['<files>'] : [...expected].sort())
      })
    }
    it('completes the values of every flag that has fixed ones, from its options', () => {
      for (const [id, name, options] of FIXED) {
        expect(names(zshCompletes(zsh, ['gateway', ...id.split(':'), `--${name}`, '']), ''), `${id} --${name}`).toEqual([...options].sort())
      }
    })
    it('describes commands, topics and flags', () => {
      expect(zshCompletes(zsh, ['gateway', 'tx', ''])).toContain('create:Create a PIX charge and show its QR code.')
      expect(zshCompletes(zsh, ['gateway', ''])).toContain('tx:Create and look up PIX transactions.')
      expect(zshCompletes(zsh, ['gateway', 'tx', 'get', 'x', '--wa']).find((entry) => entry.startsWith('--watch:'))).toMatch(/^--watch:\S/)
    })
  })
  if (!hasZsh) it.skip('zsh: not installed on this machine, so its completion is not run here', () => {})

  it('the built CLI prints the same scripts (bin/run.js)', () => {
    for (const [shell, file] of [['bash', bash], ['zsh', zsh]] as const) {
      const run = spawnSync(process.execPath, [join(ROOT, 'bin', 'run.js'), 'completion', shell], {encoding: 'utf8'})
      expect(run.status).toBe(0)
      expect(run.stdout).toBe(readFileSync(file, 'utf8'))
    }
  })
})
