import {spawnSync} from 'node:child_process'
import {chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {Journal} from '../../src/journal/journal.js'
import {runAsUid, runCli, unstamped} from '../helpers/cli.js'
import {logIn} from '../helpers/context.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

/**
 * The machine is shared: the config folder must be the user's alone (OpenSSH's StrictModes), a
 * container's bare uid must be able to run every command, and a home that cannot be written still
 * lets the read-only commands run. Real processes; another user by setpriv (root only).
 */
const root = typeof process.getuid === 'function' && process.getuid() === 0
const setpriv = root && spawnSync('setpriv', ['--version']).status === 0
if (!setpriv) console.log('[skip] the tests as another user need root and setpriv; they are skipped here')

/** A uid with no passwd entry, as `docker run --user 12345` gives. */
const STRANGER = 12345
const OTHER = 12346

const runAs = runAsUid

/** Makes a folder as another user would: owned by them, with this mode. */
function madeBy(uid: number, path: string, mode: number): void {
  mkdirSync(path, {recursive: true})
  chownSync(path, uid, uid)
  chmodSync(path, mode)
}

describe('the config folder is yours alone', () => {
  let sandbox: Sandbox
  let attacker: Sandbox
  let base: string
  const id = '00000000-0000-4000-8000-000000000000'

  beforeAll(async () => {
    ;[sandbox, attacker] = await Promise.all([startTestSandbox(), startTestSandbox()])
    base = mkdtempSync(join(tmpdir(), 'gateway-shared-'))
    chmodSync(base, 0o755)
  })
  afterAll(async () => {
    await Promise.all([sandbox.close(), attacker.close()])
    rmSync(base, {recursive: true, force: true})
  })

  /** A config folder logged in to the sandbox, as the user made it. */
  async function loggedIn(name: string): Promise<string> {
    const dir = join(base, name)
    await logIn(sandbox.baseUrl, {GATEWAY_CONFIG_DIR: dir})
    return dir
  }

  it('is made with mode 0700', async () => {
    const dir = await loggedIn('fresh')
    expect(statSync(dir).mode & 0o777).toBe(0o700)
  })

  it.runIf(setpriv)('one another user made first (mode 0777) is refused before anything is read or sent: exit 3, naming it and the fix', async () => {
    const dir = join(base, 'planted')
    madeBy(OTHER, dir, 0o777)
    // The other user points the profile at their own gateway.
    writeFileSync(join(dir, 'config.json'), JSON.stringify({default: {baseUrl: attacker.baseUrl, clientId: 'sandbox'}}))
    chownSync(join(dir, 'config.json'), OTHER, OTHER)
    const result = await runCli(['withdraw', '--amount', '500', '--pix-key', 'maria@example.com', '--yes'], {env: {GATEWAY_CONFIG_DIR: dir, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
    expect(result.code).toBe(3)
    expect(result.stderr).toContain(dir)
    expect(result.stderr).toMatch(/belongs to another user/)
    // Run as its owner, or take it over: never remove it (it holds the journal).
    expect(result.stderr).toContain(`sudo -u #${OTHER} env GATEWAY_CONFIG_DIR=${dir} gateway journal list --pending`)
    expect(result.stderr).toMatch(/chown -R/)
    expect(result.stderr).not.toMatch(/\brm\b/)
    expect((await stats(attacker.baseUrl)).requests).toBe(0)
    expect(existsSync(join(dir, 'journal.jsonl'))).toBe(false)
  })

  it('a folder of the user that group or others can write is refused: exit 3, with the chmod that fixes it', async () => {
    const dir = await loggedIn('open')
    chmodSync(dir, 0o777)
    const before = (await stats(sandbox.baseUrl)).requests
    const result = await runCli(['tx', 'get', id], {env: {GATEWAY_CONFIG_DIR: dir}})
    expect(result.code).toBe(3)
    expect(result.stderr).toContain(`chmod 700 ${dir}`)
    expect((await stats(sandbox.baseUrl)).requests).toBe(before)
    chmodSync(dir, 0o700)
    expect((await runCli(['tx', 'get', id], {env: {GATEWAY_CONFIG_DIR: dir}})).code).toBe(4)
  })

  it('a file in it that others can write is refused: exit 3, with the chmod that fixes it', async () => {
    const dir = await loggedIn('open-file')
    chmodSync(join(dir, 'config.json'), 0o666)
    const result = await runCli(['tx', 'get', id], {env: {GATEWAY_CONFIG_DIR: dir}})
    expect(result.code).toBe(3)
    expect(result.stderr).toContain(`chmod go-w ${join(dir, 'config.json')}`)
  })

  it.runIf(setpriv)('a file in it that another user owns is refused: exit 3', async () => {
    const dir = await loggedIn('foreign-file')
    writeFileSync(join(dir, 'journal.jsonl'), '', {mode: 0o600})
    chownSync(join(dir, 'journal.jsonl'), OTHER, OTHER)
    const result = await runCli(['journal', 'list'], {env: {GATEWAY_CONFIG_DIR: dir}})
    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/journal\.jsonl in the config folder belongs to another user/)
  })

  it.each(['journal.jsonl', 'tokens.json', 'config.json', 'credentials.json'])('a symlink planted as %s is refused, and nothing is written through it', async (name) => {
    const dir = await loggedIn(`link-${name}`)
    const target = join(base, `target-of-${name}`)
    writeFileSync(target, 'untouched\n', {mode: 0o600})
    rmSync(join(dir, name), {force: true})
    symlinkSync(target, join(dir, name))
    const before = (await stats(sandbox.baseUrl)).requests
    for (const args of [
      ['withdraw', '--amount', '500', '--pix-key', 'maria@example.com', '--external-code', `link-${name}`, '--yes'],
      ['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox'],
    ]) {
      const result = await runCli(args, {env: {GATEWAY_CONFIG_DIR: dir, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
      expect(result.code, result.stderr).toBe(3)
      expect(result.stderr).toContain(`${join(dir, name)} in the config folder is a symbolic link`)
      // The journal is money state: the advice puts the file itself in the link's place, never removes it.
      expect(result.stderr).toContain(name === 'journal.jsonl' ? `readlink -f ${join(dir, name)}` : `rm ${join(dir, name)}`)
    }
    expect(readFileSync(target, 'utf8')).toBe('untouched\n')
    expect(lstatSync(join(dir, name)).isSymbolicLink()).toBe(true)
    expect((await stats(sandbox.baseUrl)).requests).toBe(before)
  })

  it('the journal is never appended to through a symlink, even past the folder check', async () => {
    const dir = join(base, 'nofollow')
    mkdirSync(dir, {mode: 0o700})
    const target = join(base, 'nofollow-target')
    writeFileSync(target, 'untouched\n')
    symlinkSync(target, join(dir, 'journal.jsonl'))
    const journal = new Journal(dir)
    await expect(journal.append({type: 'outcome', entry: 'x', at: new Date().toISOString(), state: 'done', by: 'test'})).rejects.toMatchObject({code: 'ELOOP'})
    await expect(journal.entries()).rejects.toMatchObject({code: 'ELOOP'})
    expect(readFileSync(target, 'utf8')).toBe('untouched\n')
  })

  it.runIf(setpriv)('a config folder that cannot be read is exit 3, not 1', async () => {
    const dir = join(base, 'unreadable')
    madeBy(STRANGER, dir, 0o000)
    const result = await runAs(STRANGER, ['journal', 'list'], {GATEWAY_CONFIG_DIR: dir})
    expect(result.code, result.stderr).toBe(3)
    expect(result.stderr).toContain(`the config folder ${dir} cannot be read`)
  })
})

describe.runIf(setpriv)('containers and homes that cannot be written', () => {
  let sandbox: Sandbox
  let base: string
  let readOnlyHome: string
  const credentials = {GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'}

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 3})
    base = mkdtempSync(join(tmpdir(), 'gateway-home-'))
    chmodSync(base, 0o755)
    // A home the user cannot write: root's, mode 0755.
    readOnlyHome = join(base, 'home')
    mkdirSync(readOnlyHome, {mode: 0o755})
  })
  afterAll(async () => {
    await sandbox.close()
    rmSync(base, {recursive: true, force: true})
  })

  it('a uid with no passwd entry, without HOME or SHELL, runs --version, --help and a command', async () => {
    for (const args of [['--version'], ['--help'], ['tx', 'get', '--help']]) {
      const result = await runAs(STRANGER, args)
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
      expect(result.stderr).not.toMatch(/uv_os_get_passwd|uv_os_homedir|ENOENT/)
    }
  })

  it.each<[string, {HOME?: string}]>([
    ['HOME unset, no passwd entry', {}],
    ['a read-only HOME', {HOME: 'READONLY'}],
  ])('%s: deposits list --output csv works with the credentials of the environment, the token held in memory', async (_case, home) => {
    const env = {...credentials, GATEWAY_BASE_URL: sandbox.baseUrl, ...(home.HOME ? {HOME: readOnlyHome} : {})}
    const result = await runAs(STRANGER, ['deposits', 'list', '--output', 'csv'], env)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.split('\n')[0]).toMatch(/^id,/)
    expect(existsSync(join(readOnlyHome, '.config'))).toBe(false)
  })

  it.each([
    ['HOME unset, no passwd entry', undefined, /there is none: HOME is not set; set GATEWAY_CONFIG_DIR/],
    ['a read-only HOME', 'READONLY', /\/home\/\.config\/gateway cannot be written \(permission denied\): set GATEWAY_CONFIG_DIR/],
  ])('%s: withdraw and journal retry exit 3 in one line naming the folder and GATEWAY_CONFIG_DIR; retry never says nothing is pending', async (_case, home, message) => {
    const env = {...credentials, GATEWAY_BASE_URL: sandbox.baseUrl, ...(home ? {HOME: readOnlyHome} : {})}
    const before = (await stats(sandbox.baseUrl)).requests
    const withdraw = await runAs(STRANGER, ['withdraw', '--amount', '500', '--pix-key', 'maria@example.com', '--yes'], env)
    expect(withdraw.code, withdraw.stderr).toBe(3)
    const line = unstamped(withdraw.stderr).split('\n').find((text) => text.startsWith('Error: '))
    expect(line).toMatch(/^Error: withdraw needs a writable config folder for its journal, and /)
    expect(line).toMatch(message)
    const retry = await runAs(STRANGER, ['journal', 'retry', '--yes'], env)
    expect(retry.code, retry.stderr).toBe(3)
    expect(retry.stderr).toMatch(/journal retry needs a writable config folder/)
    expect(retry.stderr).not.toMatch(/Nothing is pending/)
    expect((await stats(sandbox.baseUrl)).requests).toBe(before)
  })
})
