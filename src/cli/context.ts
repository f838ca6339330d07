import type {Readable, Writable} from 'node:stream'
import {isatty} from 'node:tty'

import type {GatewayApi} from '../api/gateway.js'
import type {Session} from '../api/profile.js'
import type {ProfileStore} from '../api/store.js'
import {printable} from '../output/printable.js'
import {detectTerminal, jsonText, painter, terminalText, type Paint, type Terminal, type TtyFacts} from './terminal.js'

/** The streams a command talks through, and what the terminal behind them allows. */
export interface IO extends Terminal {
  stdin: Readable
  stdout: Writable
  stderr: Writable
  /** Key presses from the terminal in raw mode, one at a time; the terminal is restored when iteration stops. */
  keys(onReady?: () => void): AsyncGenerator<string>
  /**
   * A failure's lines on stderr start with the time (ISO 8601, UTC): set for a process whose stderr
   * is not a terminal, so a log (`2>> gateway.log`) says when each failure happened.
   */
  stampErrors?: boolean
  /** The terminal's height, when stdout is one: the pager fits its page to it. */
  rows?: number
}

/** A record a charge or payout made (or found made earlier under its key), as the journal holds it. */
export interface MadeRecord {
  /** "charge", "withdrawal". */
  one: string
  id: string
  idempotencyKey: string
}

/** The options every command takes (the global flags). */
export interface Globals {
  profile: string
  /** Whether the operator chose the profile (--profile or GATEWAY_PROFILE), rather than it being the default. */
  profileChosen?: boolean
  /** An explicit base URL (flag or GATEWAY_BASE_URL). */
  baseUrl?: string
  timeoutMs: number
  /** Retries of a request that may be repeated safely (--retries); 3 when not set. */
  retries?: number
  debug: boolean
  /** --quiet: nothing on stderr on success; notes are held, and shown before the error of a failure. */
  quiet?: boolean
  json: boolean
}

export interface ContextOptions {
  io: IO
  env: NodeJS.ProcessEnv
  /** The config folder; undefined when there is none (HOME unset and no passwd entry, no GATEWAY_CONFIG_DIR). */
  configDir: string | undefined
  /** The program's name in commands shown to the user. */
  bin?: string
  now?: () => number
  sleep?: (ms: number) => Promise<void>
  /** Resolves with the first SIGINT or SIGTERM (or its stand-in in tests). */
  interrupted?: () => Promise<NodeJS.Signals>
}

/**
 * A JSON document as written to a stream: indented for a terminal, compact on one line otherwise,
 * so that `--json >> file` appends one line per run (NDJSON).
 */
export function jsonDocument(value: unknown, terminal: boolean): string {
  return terminal ? jsonText(value) : `${JSON.stringify(value)}\n`
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Everything a command's logic needs from the world: IO, environment, clock, config folder and the
 * gateway. The process builds one from itself; tests build one with captured streams, pointed at
 * an in-process sandbox, and call the same logic.
 */
export class CommandContext {
  readonly io: IO
  readonly env: NodeJS.ProcessEnv
  readonly configDir: string | undefined
  readonly bin: string
  readonly now: () => number
  readonly sleep: (ms: number) => Promise<void>
  readonly interrupted: () => Promise<NodeJS.Signals>
  readonly paint: Paint
  private settings: Globals = {profile: 'default', timeoutMs: 30_000, retries: 3, debug: false, json: false}
  /** How the command ended: set once, by the base command. */
  exitCode = 0
  /**
   * Set once a stream of records has started on stdout: an error can no longer join the document
   * there, so it goes to stderr (as JSON under --json).
   */
  streaming = false
  /** The records this run's charges and payouts made, in order: a failure after them names them. */
  readonly made: MadeRecord[] = []
  /** Charges and payouts out at the gateway now, their answers not yet in (a batch's rows in flight): pending in the journal. */
  sending = 0
  private opened?: Promise<Session>
  private storeInstance?: ProfileStore
  private folderChecked = false
  /** Secrets handled outside any client (a secret read for login): blanked out of every error. */
  private readonly extraSecrets = new Set<string>()

  constructor(options: ContextOptions) {
    this.io = options.io
    this.env = options.env
    this.configDir = options.configDir
    this.bin = options.bin ?? 'gateway'
    this.now = options.now ?? Date.now
    this.sleep = options.sleep ?? realSleep
    this.interrupted = options.interrupted ?? (() => new Promise(() => {}))
    this.paint = painter(options.io.color)
  }

  /** The run's global settings. Set once parsed; --quiet then holds notes back and turns progress off. */
  get globals(): Globals {
    return this.settings
  }

  set globals(value: Globals) {
    this.settings = value
    if (value.quiet) quieten(this.io)
  }

  /**
   * Lines for a person on stdout, composed by the CLI with every outside value escaped by
   * `printable`: any control character left is shown as an escape, and the painter's colour is added.
   */
  out(text = ''): void {
    this.io.stdout.write(`${terminalText(text, {lines: true, color: this.io.color})}\n`)
  }

  /** Notes, progress and warnings: stderr, so stdout stays data only; escaped as out() is. */
  note(text: string): void {
    const line = `${terminalText(text, {lines: true, color: this.io.color})}\n`
    if (this.io.quiet) hold(this.io, line)
    else this.io.stderr.write(line)
  }

  /** One JSON document on stdout: indented for a person at a terminal, one line for a file or a pipe. */
  json(value: unknown): void {
    this.io.stdout.write(jsonDocument(value, this.io.stdoutTTY))
  }

  /** The trace sink of --debug, or none. */
  get trace(): ((line: string) => void) | undefined {
    return this.globals.debug ? (line) => this.io.stderr.write(`${printable(line)}\n`) : undefined
  }

  /**
   * The config folder, checked once before anything in it is read: the user's alone, as OpenSSH's
   * StrictModes wants `~/.ssh` (see src/api/folder.ts); refused with exit 3 otherwise.
   */
  async checkedConfigDir(): Promise<string | undefined> {
    if (!this.folderChecked && this.configDir !== undefined) {
      const {checkConfigFolder} = await import('../api/folder.js')
      checkConfigFolder(this.configDir)
    }
    this.folderChecked = true
    return this.configDir
  }

  async store(): Promise<ProfileStore> {
    if (!this.storeInstance) {
      await this.checkedConfigDir()
      const {ProfileStore} = await import('../api/store.js')
      this.storeInstance = new ProfileStore(this.configDir)
      // What a killed write left (a token or a secret in a temporary file) does not outlive the next command.
      this.storeInstance.sweep()
    }
    return this.storeInstance
  }

  /** The profile named by --profile, with a client for its gateway. Opened once per command. */
  session(options: {timeoutMs?: number} = {}): Promise<Session> {
    this.opened ??= (async () => {
      const {openSession} = await import('../api/profile.js')
      return openSession({
        profile: this.globals.profile,
        baseUrl: this.globals.baseUrl,
        timeoutMs: options.timeoutMs ?? this.globals.timeoutMs,
        retries: this.globals.retries ?? 3,
        sleep: this.sleep,
        trace: this.trace,
        env: this.env,
        store: await this.store(),
      })
    })()
    return this.opened
  }

  /** The gateway's typed endpoints, on the profile's session. */
  async api(options: {timeoutMs?: number} = {}): Promise<GatewayApi> {
    const session = await this.session(options)
    const {GatewayApi} = await import('../api/gateway.js')
    return new GatewayApi(session.client)
  }

  /** Remembers a secret this command handled, so no error can print it. */
  handled(secret: string): void {
    if (secret) this.extraSecrets.add(secret)
  }

  /** Every secret this command has handled. */
  async secrets(): Promise<string[]> {
    const session = this.opened ? await this.opened.catch(() => undefined) : undefined
    const {environmentSecrets} = await import('../api/redact.js')
    return [this.env.GATEWAY_CLIENT_SECRET ?? '', ...environmentSecrets(this.env), ...this.extraSecrets, ...(session?.client.secrets() ?? [])].filter(Boolean)
  }

  async close(): Promise<void> {
    const session = this.opened ? await this.opened.catch(() => undefined) : undefined
    await session?.client.close()
  }
}

/** The most lines --quiet holds back for a failure's report: the last ones, which say most about it. */
const HELD_LINES = 200

/** --quiet on these streams: no spinner or progress, and notes held back (see `hold`). */
export function quieten(io: IO): void {
  io.quiet = true
  io.spinner = false
  io.held ??= []
}

/** Holds a line said under --quiet, for the report of a failure; only the last HELD_LINES are kept. */
export function hold(io: IO, line: string): void {
  const held = (io.held ??= [])
  held.push(line)
  if (held.length > HELD_LINES) held.splice(0, held.length - HELD_LINES)
}

/** IO on the process's own streams. */
export function processIO(env: NodeJS.ProcessEnv = process.env): IO {
  // Asked of the descriptors: Node makes process.stdin, stdout and stderr (each a stream over a
  // terminal, a pipe or a file) only when a command first uses them. A lookup into a pipe then
  // never makes the stream of an stderr it writes nothing to.
  const stdoutTTY = isatty(1)
  const stderrTTY = isatty(2)
  const facts: TtyFacts = {
    stdoutTTY,
    stderrTTY,
    stdinTTY: isatty(0),
    stdoutColumns: stdoutTTY ? process.stdout.columns : undefined,
    stdoutRows: stdoutTTY ? process.stdout.rows : undefined,
    // A terminal's size, asked only of a stream that is one (a file or a pipe makes no stream here).
    stderrColumns: stderrTTY ? process.stderr.columns : undefined,
    stderrRows: stderrTTY ? process.stderr.rows : undefined,
  }
  const terminal = detectTerminal(facts, env)
  return {
    ...terminal,
    get stdin() {
      return process.stdin
    },
    get stdout() {
      return process.stdout
    },
    get stderr() {
      return process.stderr
    },
    keys: (onReady) => terminalKeys(onReady),
    // A terminal of no size is no terminal: its errors are stamped as a log's are.
    stampErrors: !terminal.stderrTTY,
  }
}

async function* terminalKeys(onReady?: () => void): AsyncGenerator<string> {
  const {readKeys} = await import('./keys.js')
  yield* readKeys(process.stdin, onReady)
}

/** The context of a real process: its streams, environment, clock and signals. */
export async function processContext(bin = 'gateway'): Promise<CommandContext> {
  const {configDir} = await import('../api/store.js')
  const env = process.env
  // One wait for the first signal, however many parts of the command listen for it.
  let signal: Promise<NodeJS.Signals> | undefined
  return new CommandContext({
    io: processIO(env),
    env,
    configDir: configDir(env),
    bin,
    interrupted: () => (signal ??= firstSignal()),
  })
}

/**
 * The first SIGINT or SIGTERM. The command then ends in its own way (what it cut short said, exit
 * 130 or 143); a second signal ends the process at once, as the signal would have. The listener
 * stays until then: a package that watches signals to tidy up at exit (the spinner's cursor, via
 * signal-exit) re-raises a signal that no other listener is left to handle, which would end the
 * process by the signal before the command could say what it cut short.
 */
function firstSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let received = false
    const listener = (name: NodeJS.Signals) => {
      if (!received) {
        received = true
        resolve(name)
        return
      }
      process.off('SIGINT', listener)
      process.off('SIGTERM', listener)
      process.kill(process.pid, name)
    }
    process.on('SIGINT', listener)
    process.on('SIGTERM', listener)
  })
}
