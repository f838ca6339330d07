import {spawn} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, cleanEnv, runCli} from '../helpers/cli.js'
import {control, startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

interface Block {
  /** What the comment before the fence says: `runs`, `not run: why`, or another test's name (`cron set-up`). */
  mark: string | undefined
  /** The block's commands, a line each, `\` continuations joined. */
  lines: string[]
  /** Where the block starts in the README, for messages. */
  line: number
}

/** Every ```sh block of the README with the `<!-- example: … -->` comment before it, if any. */
function shBlocks(): Block[] {
  return [...README.matchAll(/^( *)(?:<!-- example: ([^>]*?) -->\n\1)?```sh\n([\s\S]*?)^\1```$/gm)].map((match) => ({
    mark: match[2],
    lines: match[3]
      .split('\n')
      .map((line) => line.slice(match[1].length))
      .join('\n')
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('#')),
    line: README.slice(0, match.index).split('\n').length,
  }))
}

/** The ids and keys the README writes for records of its reader's own, and the gateway and client of a real login. */
const EXAMPLE_ID = '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11'
const EXAMPLE_KEY = '5b0c9a1e-3f2d-4c8b-9e7a-1d2c3b4a5f60'

/**
 * The README's examples, each line run as a user types it, by /bin/sh in a folder of its own with
 * `gateway` on PATH (no terminal), against a sandbox. Only the placeholders are filled: the
 * sandbox's address for the README's, the sandbox's client for `my-client`, the id a `tx create`
 * printed for `<id>`, and records made here for the README's example id and journal key. A
 * command that asks in a terminal (a withdrawal, `journal retry`) gets the `--yes` a terminal's
 * "y" stands for.
 */
describe("the README's examples, run against the sandbox", () => {
  let sandbox: Sandbox
  let root: string
  let env: NodeJS.ProcessEnv

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 50})
    root = mkdtempSync(join(tmpdir(), 'gateway-readme-'))
    const bin = join(root, 'bin')
    mkdirSync(bin)
    symlinkSync(BIN, join(bin, 'gateway'))
    symlinkSync(process.execPath, join(bin, 'node'))
    env = cleanEnv({PATH: `${bin}:/usr/bin:/bin`, HOME: join(root, 'home'), GATEWAY_CONFIG_DIR: join(root, 'config'), TZ: 'America/Sao_Paulo'})
  })
  afterAll(async () => {
    await sandbox.close()
    rmSync(root, {recursive: true, force: true})
  })

  const sh = (line: string, cwd: string, extra: Record<string, string> = {}) =>
    new Promise<{code: number | null; stdout: string; stderr: string}>((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', line], {cwd, env: {...env, ...extra}, stdio: ['ignore', 'pipe', 'pipe']})
      let stdout = ''
      let stderr = ''
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
      child.on('error', reject)
      child.on('close', (code) => {
        clearTimeout(timer)
        resolve({code, stdout, stderr})
      })
    })

  it('marks every sh block: run here, run by another test, or not run and why', () => {
    const blocks = shBlocks()
    expect(blocks.length).toBeGreaterThan(10)
    for (const block of blocks) expect(block.mark, `the sh block at README.md:${block.line}`).toMatch(/^(runs|not run: .+|cron set-up|cron login)$/)
    expect(blocks.filter((block) => block.mark === 'runs').length).toBeGreaterThanOrEqual(10)
  })

  it('every line of every block marked to run exits as it should, in order, the way a new user types it', async () => {
    // Logged in as the README's first ten minutes do, a charge paid, and two charges left pending in the journal (the answer lost).
    const config = {GATEWAY_CONFIG_DIR: join(root, 'config')}
    expect((await runCli(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox'], {env: {...config, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})).code).toBe(0)
    const paid = JSON.parse((await runCli(['tx', 'create', '--amount', '7980', '--external-code', 'order-4711-paid', '--json'], {env: config})).stdout) as {id: string}
    expect((await runCli(['sandbox', 'pay', paid.id], {env: config})).code).toBe(0)
    await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', kind: 'reset-after', count: 2})
    for (const code of ['pending-0001', 'pending-0002']) {
      const lost = await runCli(['tx', 'create', '--amount', '1000', '--external-code', code, '--retries', '0'], {env: config})
      expect(lost.code, lost.stderr).toBe(7)
    }
    const pending = (await runCli(['journal', 'list', '--pending', '--json'], {env: config})).stdout
    const [firstKey] = (JSON.parse(pending) as {idempotencyKey: string}[]).map((entry) => entry.idempotencyKey)
    expect(firstKey).toBeDefined()

    const ran: string[] = []
    // In the README's order, but for removing the config folder, which comes last.
    const blocks = shBlocks().filter((each) => each.mark === 'runs')
    const removing = blocks.filter((each) => each.lines.some((line) => line.startsWith('rm -rf')))
    for (const block of [...blocks.filter((each) => !removing.includes(each)), ...removing]) {
      if (removing.includes(block)) {
        // Before it goes: what the first ten minutes made is there, paid.
        const deposits = await runCli(['deposits', 'list', '--status', 'PAID', '--per-page', '100', '--json'], {env: config})
        expect(deposits.stdout).toContain('"order-0001"')
      }
      const cwd = mkdtempSync(join(root, 'block-'))
      let id: string | undefined
      for (const written of block.lines) {
        let line = written
          .replaceAll('http://127.0.0.1:4010', sandbox.baseUrl)
          .replaceAll('https://api.example.com', sandbox.baseUrl)
          .replaceAll('--client-id my-client', '--client-id sandbox')
          .replaceAll(EXAMPLE_ID, paid.id)
          .replaceAll(EXAMPLE_KEY, firstKey)
        if (line.includes('<id>')) {
          expect(id, `README.md:${block.line}: <id> before a tx create printed one`).toBeDefined()
          line = line.replaceAll('<id>', id!)
        }
        if (/^gateway (withdraw|journal retry)\b/.test(line) && !/--dry-run|--yes/.test(line)) line = line.replace(/ +#.*$/, '') + ' --yes'
        if (process.env.README_TRACE) process.stderr.write(`${line}\n`)
        const result = await sh(line, cwd, {SECRET: 'sandbox-secret', GATEWAY_CLIENT_SECRET: 'sandbox-secret'})
        // deposits reconcile exits 10 when it finds what needs attention, as the README's example does (its charges are not paid yet).
        const expected = /^gateway deposits reconcile /.test(line) ? 10 : 0
        expect(result.code, `README.md:${block.line}: ${written}\n${result.stderr}`).toBe(expected)
        id = /^\s*ID:\s+([0-9a-f-]{36})$/m.exec(result.stdout)?.[1] ?? id
        ran.push(written)
      }
    }
    expect(ran.length).toBeGreaterThan(25)
    expect(ran).toContain('gateway sandbox pay <id>')
    // The config folder removed by the README's last word on uninstalling, as it says.
    expect(existsSync(join(root, 'config'))).toBe(false)
  }, 240_000)
})
