import {execFileSync} from 'node:child_process'
import {readdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

import {describe, expect, it} from 'vitest'

import {runCli} from '../helpers/cli.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const manifestPath = join(root, 'oclif.manifest.json')
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
  commands: Record<string, {summary?: string; description?: string; examples?: unknown[]}>
}

function commandFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return commandFiles(path)
    return entry.name.endsWith('.ts') ? [relative(join(root, 'src/commands'), path).replace(/\.ts$/, '').split('/').join(':')] : []
  })
}

function committedManifest(): string | undefined {
  try {
    return execFileSync('git', ['show', 'HEAD:oclif.manifest.json'], {cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore']})
  } catch {
    return undefined
  }
}

describe('help and manifest', () => {
  const ours = Object.keys(manifest.commands).filter((id) => !['autocomplete', 'help'].includes(id.split(':')[0]))

  it('lists a command in the manifest for every command file, and no other', () => {
    expect(ours.sort()).toEqual(commandFiles(join(root, 'src/commands')).sort())
  })

  it('gives every command a description and examples', () => {
    for (const id of ours) {
      const command = manifest.commands[id]
      expect(command.summary, id).toBeTruthy()
      expect(command.description, id).toBeTruthy()
      expect(command.examples?.length ?? 0, id).toBeGreaterThan(0)
    }
  })

  it('shows every topic and top-level command in `gateway --help`', async () => {
    const result = await runCli(['--help'])
    expect(result.code).toBe(0)
    for (const word of ['auth', 'deposits', 'pix', 'sandbox', 'tx', 'webhooks', 'login', 'logout', 'withdraw']) expect(result.stdout).toMatch(new RegExp(`^  ${word}\\s`, 'm'))
  })

  it.each(['tx create', 'deposits list', 'pix decode', 'sandbox start', 'auth status', 'withdraw', 'webhooks resend', 'webhooks listen'])('shows examples in `gateway %s --help`', async (id) => {
    const result = await runCli([...id.split(' '), '--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('EXAMPLES')
    expect(result.stdout).toContain(`$ gateway ${id}`)
  })

  const committed = committedManifest()
  it.skipIf(committed === undefined)('matches the committed oclif.manifest.json (the build regenerates it)', () => {
    expect(JSON.parse(readFileSync(manifestPath, 'utf8'))).toEqual(JSON.parse(committed!))
  })
})

describe('usage lines', () => {
  /** Every command's USAGE section, as `gateway COMMAND --help` prints it, on one line. */
  async function usages(): Promise<Array<[string, string]>> {
    const {Config, Help} = await import('@oclif/core')
    const config = await Config.load({root})
    // formatCommand is protected: a subclass reads it.
    const help = new (class extends Help {
      text(id: string): string {
        return this.formatCommand(config.findCommand(id)!)
      }
    })(config, {stripAnsi: true, maxWidth: 80})
    const ids = Object.keys(manifest.commands).filter((id) => !['autocomplete', 'help'].includes(id.split(':')[0]))
    return ids.map((id) => {
      const text = help.text(id)
      const usage = /USAGE\n([\s\S]*?)\n\n/.exec(text)![1]
      return [id, usage.replace(/\s+/g, ' ').trim()]
    })
  }

  it('have no stray space inside a bracket, and nest no flag under one it does not belong to', async () => {
    const all = await usages()
    expect(all.length).toBeGreaterThan(20)
    for (const [id, usage] of all) {
      expect(usage, id).not.toMatch(/ \]|\[ | \)|\( /)
      // A bracket opened right after a flag's value nests the next flags under that flag.
      expect(usage, id).not.toMatch(/--concurrency <value> \[/)
    }
  })

  it('show a single withdrawal and a batch as two usages, the single flags never under --concurrency', async () => {
    const all = Object.fromEntries(await usages())
    for (const id of ['withdraw', 'tx:create']) {
      const lines = all[id].split('$ gateway ').filter(Boolean)
      expect(lines, id).toHaveLength(2)
      expect(lines[0], id).not.toContain('--batch')
      expect(lines[0], id).toContain('--amount <cents>')
      expect(lines[1], id).toMatch(/--batch <file> \[--sheet <name>\] \[--concurrency <value>\] \[--max-rows <rows>\] \[--max-total <cents>\]/)
      expect(lines[1], id).not.toContain('--amount')
    }
    expect(all['sandbox:start']).toContain('[--faults <rate> [--fault-kinds <list>] [--fault-seed <value>]]')
  })
})
