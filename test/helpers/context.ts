import {existsSync} from 'node:fs'
import {PassThrough, Readable, Writable} from 'node:stream'
import {fileURLToPath} from 'node:url'

import {Config} from '@oclif/core'
import {expect} from 'vitest'

import {CommandContext, type IO} from '../../src/cli/context.js'
import {contextStorage} from '../../src/cli/run.js'
import {configDir} from '../../src/api/store.js'
import {detectTerminal} from '../../src/cli/terminal.js'
import {cleanEnv, type CliResult} from './cli.js'
import {assertNoSecretShown} from './secrets.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
let config: Promise<Config> | undefined

export interface TestIOOptions {
  /** What stdin holds. */
  input?: string
  /** Which streams are terminals (default none, as in a pipe). */
  tty?: {stdout?: boolean; stderr?: boolean; stdin?: boolean}
  columns?: number
  /** The terminal's height, when stdout is one. */
  rows?: number
  /** Keys "typed" in raw mode, for the pager and hidden prompts. */
  keys?: string[]
  env?: NodeJS.ProcessEnv
  /**
   * Called with each chunk written to stdout, before the write completes: the command waits for it
   * (back-pressure), so a test can act at a known point of a stream, e.g. after the first page.
   */
  onStdout?: (chunk: string) => Promise<void> | void
  /** Sees each chunk written to stderr, for a test that reacts to a running command. */
  onStderr?: (chunk: string) => void
}

/** Streams that keep what is written to them, and a stdin that holds `input`. */
export function testIO(options: TestIOOptions = {}): IO & {stdoutText(): string; stderrText(): string} {
  let out = ''
  let err = ''
  const hook = options.onStdout
  const stdout = hook
    ? new Writable({
        highWaterMark: 1,
        write(chunk: Buffer, _encoding, callback) {
          const text = chunk.toString('utf8')
          out += text
          Promise.resolve(hook(text)).then(() => callback(), callback)
        },
      })
    : new PassThrough()
  const stderr = new PassThrough()
  if (stdout instanceof PassThrough) stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
  stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk
    options.onStderr?.(chunk)
  })
  const tty = options.tty ?? {}
  const terminal = detectTerminal(
    {
      stdoutTTY: Boolean(tty.stdout),
      stderrTTY: Boolean(tty.stderr),
      stdinTTY: Boolean(tty.stdin),
      stdoutColumns: options.columns,
      stdoutRows: options.rows,
      // One terminal behind both: stderr reports the same size.
      stderrColumns: tty.stderr ? options.columns : undefined,
      stderrRows: tty.stderr ? options.rows : undefined,
    },
    options.env ?? {},
  )
  const keys = [...(options.keys ?? [])]
  return {
    ...terminal,
    stdin: Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]),
    stdout,
    stderr,
    async *keys(onReady) {
      onReady?.()
      while (keys.length > 0) yield keys.shift()!
    },
    stdoutText: () => out,
    stderrText: () => err,
  }
}

export interface RunOptions extends TestIOOptions {
  now?: () => number
  sleep?: (ms: number) => Promise<void>
  interrupted?: () => Promise<NodeJS.Signals>
}

export interface InProcessResult extends CliResult {
  /** In-process, a command always ends with an exit code. */
  code: number
  ctx: CommandContext
}

/** The command file of the longest leading words of argv that name one. */
function commandOf(argv: string[]): {path: string; rest: string[]} {
  for (let words = Math.min(3, argv.length); words > 0; words--) {
    const path = `src/commands/${argv.slice(0, words).join('/')}.ts`
    if (!argv.slice(0, words).some((word) => word.startsWith('-')) && existsSync(`${ROOT}${path}`)) {
      return {path, rest: argv.slice(words)}
    }
  }
  throw new Error(`no command in: ${argv.join(' ')}`)
}

/**
 * Runs one command in this process, as `gateway ...argv` would run it, through the command context:
 * oclif parses the flags, the logic runs on captured streams, and the exit code is what the process
 * would have exited with. The environment is the test's alone (no GATEWAY_* of the caller's).
 */
export async function runCommand(argv: string[], options: RunOptions = {}): Promise<InProcessResult> {
  const env = cleanEnv(options.env)
  const io = testIO({...options, env})
  const ctx = new CommandContext({
    io,
    env,
    configDir: configDir(env),
    now: options.now,
    sleep: options.sleep,
    interrupted: options.interrupted,
  })
  const {path, rest} = commandOf(argv)
  const module = (await import(/* @vite-ignore */ `${ROOT}${path}`)) as {default: {run(argv: string[], config: Config): Promise<unknown>}}
  config ??= Config.load({root: ROOT})
  // oclif reads a flag's environment variable (GATEWAY_PROFILE, GATEWAY_BASE_URL, ...) from process.env:
  // give it the test's for the length of the run.
  const saved = {...process.env}
  for (const key of Object.keys(process.env)) if (key.startsWith('GATEWAY_')) delete process.env[key]
  for (const [key, value] of Object.entries(env)) if (key.startsWith('GATEWAY_') && value !== undefined) process.env[key] = value
  try {
    const loaded = await config
    await contextStorage.run(ctx, () => module.default.run(rest, loaded))
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
    Object.assign(process.env, saved)
  }
  const result = {code: ctx.exitCode, stdout: io.stdoutText(), stderr: io.stderrText(), ctx}
  assertNoSecretShown(argv, {env, input: options.input, configDir: ctx.configDir}, result)
  return result
}

/** Logs the sandbox's default client in, in-process, into the config folder `env` names. */
export async function logIn(baseUrl: string, env: Record<string, string>, clientId = 'sandbox'): Promise<void> {
  const login = await runCommand(['login', '--base-url', baseUrl, '--client-id', clientId], {env: {...env, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
  if (login.code !== 0) throw new Error(`login failed (${login.code}): ${login.stderr}`)
}

/** Runs a command that must be refused before sending: exit 2, nothing on stdout, `message` on stderr, no request. */
export async function refusedBeforeSending(baseUrl: string, run: () => Promise<CliResult>, message: RegExp): Promise<CliResult> {
  const {stats} = await import('./sandbox.js')
  const before = (await stats(baseUrl)).requests
  const result = await run()
  expect(result.code).toBe(2)
  expect(result.stdout).toBe('')
  expect(result.stderr).toMatch(message)
  expect((await stats(baseUrl)).requests).toBe(before)
  return result
}
