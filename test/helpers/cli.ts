import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {assertNoSecretShown} from './secrets.js'

export const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

export interface CliOptions {
  env?: Record<string, string | undefined>
  input?: string
  timeoutMs?: number
  /** The folder it runs in (default: the tests'). */
  cwd?: string
  /** What runs, before the arguments (default: this Node with bin/run.js); the single executable, say. */
  program?: string[]
}

/** An environment without the caller's GATEWAY_* settings, colours or CI markers (CI turns spinners off), so a test sees the same on every machine. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('GATEWAY_') || key === 'NO_COLOR' || key === 'FORCE_COLOR' || key === 'CI' || key.startsWith('VITEST')) continue
    env[key] = value
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
}

/** Runs the built CLI (or options.program) as a user's shell would, with pipes (no TTY) on every stream. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [command, ...before] = options.program ?? [process.execPath, BIN]
    const child = spawn(command, [...before, ...args], {env: cleanEnv(options.env), cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      const result = {code, stdout, stderr}
      const env = cleanEnv(options.env)
      try {
        assertNoSecretShown(args, {env, input: options.input, configDir: env.GATEWAY_CONFIG_DIR}, result)
      } catch (error) {
        reject(error)
        return
      }
      resolve(result)
    })
    child.stdin.end(options.input ?? '')
  })
}

/** A fresh, empty config folder, and its removal. */
export function tempConfigDir(): {dir: string; remove(): void} {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-'))
  return {dir: join(dir, 'config'), remove: () => rmSync(dir, {recursive: true, force: true})}
}

export interface PtyStep {
  /** A regular expression the output since the previous step must match before `send` is typed. */
  expect: string
  send?: string
  /** A signal sent to the command then, without its SIG: "TERM", "INT". */
  signal?: string
  /** Note the terminal's modes when `expect` matched, before typing (see TerminalModes). */
  modes?: boolean
}

/** A terminal's local modes, as `stty` names them: keys make signals (isig), input is read by lines (icanon), typing is echoed. */
export interface TerminalModes {
  isig: boolean
  icanon: boolean
  echo: boolean
}

/**
 * Runs the built CLI in a real pseudo-terminal (python3's pty, present on every machine this
 * project targets), typing keys as the screen asks for them; answers all it drew and its exit code.
 */
export function runInTerminal(
  args: string[],
  options: {env?: Record<string, string | undefined>; steps?: PtyStep[]; cols?: number; rows?: number; timeoutS?: number} = {},
): Promise<{output: string; code: number | null; modes: Array<TerminalModes | null>; after: TerminalModes | null}> {
  const helper = fileURLToPath(new URL('pty_run.py', import.meta.url))
  const spec = {
    argv: [process.execPath, BIN, ...args],
    env: cleanEnv({TERM: 'xterm-256color', ...options.env}),
    steps: options.steps ?? [],
    cols: options.cols ?? 160,
    rows: options.rows ?? 50,
    timeout: options.timeoutS ?? 20,
  }
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [helper], {stdio: ['pipe', 'pipe', 'inherit']})
    let text = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
    child.on('error', reject)
    child.on('close', () => {
      try {
        resolve(JSON.parse(text))
      } catch (error) {
        reject(error)
      }
    })
    child.stdin.end(JSON.stringify(spec))
  })
}

/** The time a process writes before each of its error lines when stderr is no terminal. */
export const ERROR_STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /gm

/** A process's stderr with each error line's time taken off, for comparing what it says. */
export function unstamped(text: string): string {
  return text.replace(ERROR_STAMP, '')
}

/**
 * Runs the CLI as `uid` (setpriv, no supplementary groups) in an environment of only `env` (env -i):
 * no HOME and no SHELL unless given, as a container's uid with no passwd entry meets it.
 */
export function runAsUid(uid: number, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const pairs = Object.entries({PATH: '/usr/bin:/bin', ...env}).map(([key, value]) => `${key}=${value}`)
    const child = spawn('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', 'env', '-i', ...pairs, process.execPath, BIN, ...args], {stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, stdout, stderr})
    })
  })
}
