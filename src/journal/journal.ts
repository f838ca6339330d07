import {createHash, randomUUID} from 'node:crypto'
import {constants, mkdirSync} from 'node:fs'
import {link, lstat, open, readdir, rename, rm} from 'node:fs/promises'
import {join} from 'node:path'

import {FolderError} from '../api/folder.js'
import {withFileLock} from '../api/lock.js'

/**
 * The journal of money-moving requests: `journal.jsonl` in the config folder, one JSON record a
 * line, mode 0600, append-only. Before a request that moves money is sent, a `request` record is
 * written (and flushed to disk); after the answer, an `outcome` record. A request whose last
 * outcome is missing, or says the outcome is unknown, is pending: nobody knows whether the money
 * moved, and replaying it under its idempotency key answers the original record or creates it once.
 */

export const JOURNAL_FILE = 'journal.jsonl'
export const LOCK_FILE = 'journal.lock'
/**
 * What the repeat guard must remember of every archived request with an external code, one line
 * each, appended at each rotation and never rotated away (see IndexRecord): in 256 files by the
 * first two hex digits of the code's SHA-256, `journal-index-<digits>.jsonl`, so that a command
 * looking for its code reads a 256th of a year's entries (some 400 lines, 110 KiB, for 100,000).
 */
export const INDEX_SHARDS = Array.from({length: 256}, (_, shard) => shard.toString(16).padStart(2, '0'))
const codeHash = (code: string) => createHash('sha256').update(code).digest('hex')
export const indexFile = (code: string) => `journal-index-${codeHash(code).slice(0, 2)}.jsonl`
/**
 * The index as an earlier version wrote it: 16 files by the first hex digit of the code's SHA-256.
 * Read beside the current files while it exists; the next rotation folds its lines into them and
 * removes it.
 */
export const LEGACY_INDEX_SHARDS = '0123456789abcdef'.split('')
export const legacyIndexFile = (code: string) => `journal-index-${codeHash(code)[0]}.jsonl`
/** The index in the first layout this program wrote: one file for every code. */
export const FIRST_INDEX_FILE = 'journal-index.jsonl'
/** Past this size, the next append first rotates the file: settled entries go to an archive, pending ones stay. */
export const DEFAULT_MAX_BYTES = 1 << 20
/** Archives kept after a rotation; older ones are removed. */
export const DEFAULT_ARCHIVES = 5

/**
 * Where a request stands: done (answered with a record), failed (refused: no money moved), not-sent
 * (it provably never left this machine), or pending (unknown).
 */
export type EntryState = 'pending' | 'done' | 'failed' | 'not-sent'

export const ENTRY_STATES: readonly EntryState[] = ['pending', 'done', 'failed', 'not-sent']

/** The request as it was sent, to replay it byte for byte in meaning. */
export interface ReplayRequest {
  method: 'POST'
  path: string
  body: Record<string, unknown>
}

/** What a money-moving command tells the journal about the request it is about to send. */
export interface JournalSpec {
  /** The command, as the operator would type it after the program's name: "tx create", "withdraw". */
  command: string
  idempotencyKey: string
  amount: number
  externalCode?: string
  /** Where the money goes (a PIX key): stored masked, like a document. */
  destination?: string
  /** The request exactly as sent, replayed by `journal retry`. */
  request: ReplayRequest
  /** Path of the created record's lookup, `{id}` standing for its id, to read its current status after a replay. */
  lookup?: string
}

export interface RequestRecord extends JournalSpec {
  type: 'request'
  /** The entry's own id: outcomes name it. */
  entry: string
  at: string
  profile: string
  baseUrl: string
  /** The client id the request was sent with: one client of one gateway, whatever the profile's name. */
  clientId?: string
}

/**
 * One archived request with an external code, as the repeat guard compares it: its code first (the
 * guard finds a code's lines by searching for `{"c":<code>,`), the gateway, the client id (or the
 * profile, for a request written before client ids were), the command family, the hash of its
 * fields (all but the key), the masked key, when, the idempotency key, the amount, its state.
 */
export interface IndexRecord {
  c: string
  g: string
  i: string
  f: string
  h: string
  k?: string
  at: string
  key: string
  amount: number
  s: EntryState
  e: string
}

/** JSON with object keys sorted at every depth: two bodies that mean the same compare equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>
    const keys = Object.keys(object)
      .filter((key) => object[key] !== undefined)
      .sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(object[key])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** The hash of a request body's fields, all but its idempotency key: equal for the same request. */
export function fieldsHash(body: Record<string, unknown>): string {
  const {idempotencyKey: _key, ...rest} = body
  return createHash('sha256').update(canonical(rest)).digest('hex').slice(0, 32)
}

/** The command a journal entry belongs to, whether sent singly or in a batch: "withdraw". */
export const family = (command: string) => command.replace(/ --batch$/, '')

/** Who sent a request: its client id, or for a record written before client ids were kept, its profile. */
export const senderOf = (record: {clientId?: string; profile: string}) => (record.clientId ? `client:${record.clientId}` : `profile:${record.profile}`)

/** The index line of a request with an external code, or undefined. */
export function indexRecordOf(entry: RequestRecord & {state: EntryState}): IndexRecord | undefined {
  const code = entry.request?.body?.externalCode
  if (typeof code !== 'string') return undefined
  return {
    c: code,
    g: entry.baseUrl,
    i: senderOf(entry),
    f: family(entry.command),
    h: fieldsHash(entry.request.body),
    ...(entry.destination === undefined ? {} : {k: entry.destination}),
    at: entry.at,
    key: entry.idempotencyKey,
    amount: entry.amount,
    s: entry.state,
    e: entry.entry,
  }
}

export interface OutcomeRecord {
  type: 'outcome'
  entry: string
  at: string
  state: EntryState
  /** What recorded it: the command itself, `journal retry`, or `journal resolve` (by hand). */
  by: string
  /** Why, when an operator settled it by hand. */
  note?: string
  id?: string
  status?: string
  /** The gateway answered with the record of an earlier request under the same key. */
  replayed?: boolean
  error?: {code: string; message: string; status?: number}
}

export type JournalRecord = RequestRecord | OutcomeRecord

/** One request with what became of it. */
export interface JournalEntry extends RequestRecord {
  state: EntryState
  /** The last outcome recorded, if any. */
  outcome?: OutcomeRecord
  /** How many outcomes were recorded (attempts that got an answer or an error). */
  outcomes: number
}

export interface JournalOptions {
  maxBytes?: number
  archives?: number
  /** How long to wait for another process holding the journal (default 30 s): then exit 7, nothing sent. */
  lockWaitMs?: number
  /** Told who holds the journal when a command has to wait for it. */
  onWait?: (line: string) => void
}

/** Masks a PIX key or a document as the gateway masks documents: all but the last four characters become `*`. */
export function maskKey(value: string): string {
  const text = value.trim()
  return text.length <= 4 ? '*'.repeat(text.length) : `${'*'.repeat(text.length - 4)}${text.slice(-4)}`
}

/**
 * Reads journal lines, skipping any that cannot be parsed (a line cut short by a crash, or damaged):
 * the entry it belonged to shows as pending, the safe reading. Each such line is passed to `damaged`
 * with its index in `text` (from 0), for the repeat guard, which refuses a code such a line names.
 */
export function parseRecords(text: string, damaged?: (line: string, index: number) => void): JournalRecord[] {
  const records: JournalRecord[] = []
  let index = -1
  for (const line of text.split('\n')) {
    index += 1
    if (!line.trim()) continue
    try {
      const value = JSON.parse(line) as JournalRecord
      if (value && (value.type === 'request' || value.type === 'outcome') && typeof value.entry === 'string') records.push(value)
      else damaged?.(line, index)
    } catch {
      damaged?.(line, index)
    }
  }
  return records
}

/**
 * The external code a journal line that cannot be read still names (`"externalCode":"<code>"` in
 * it, whole), or undefined: the repeat guard cannot tell whether that code was sent.
 */
export function codeOfDamagedRecord(line: string): string | undefined {
  const match = /"externalCode":("(?:[^"\\]|\\.)*")/.exec(line)
  if (!match) return undefined
  try {
    return JSON.parse(match[1]) as string
  } catch {
    return undefined
  }
}

/** Folds records into entries, in the order their requests were written. */
export function foldEntries(records: readonly JournalRecord[]): JournalEntry[] {
  const entries = new Map<string, JournalEntry>()
  const orphans = new Map<string, OutcomeRecord[]>()
  for (const record of records) {
    if (record.type === 'request') {
      if (entries.has(record.entry)) continue
      const entry: JournalEntry = {...record, state: 'pending', outcomes: 0}
      entries.set(record.entry, entry)
      for (const outcome of orphans.get(record.entry) ?? []) settle(entry, outcome)
      orphans.delete(record.entry)
    } else {
      const entry = entries.get(record.entry)
      if (entry) settle(entry, record)
      else orphans.set(record.entry, [...(orphans.get(record.entry) ?? []), record])
    }
  }
  return [...entries.values()]
}

/** A later outcome wins, but a known outcome is never undone by an unknown one. */
function settle(entry: JournalEntry, outcome: OutcomeRecord): void {
  entry.outcomes += 1
  if (entry.state !== 'pending' && outcome.state === 'pending') return
  entry.state = outcome.state
  entry.outcome = outcome
}

/** Lines of one process wait here for each other before they take the file lock, instead of polling it. */
const queues = new Map<string, Promise<unknown>>()

export class Journal {
  readonly dir: string
  readonly path: string
  /** The index files, one per shard. */
  readonly indexPaths: readonly string[]
  /** The index files of an earlier version (16 shards), read until a rotation folds them in. */
  readonly legacyIndexPaths: readonly string[]
  /** The index in the first layout (one file), read until a rotation folds it in. */
  readonly firstIndexPath: string
  private readonly maxBytes: number
  private readonly archives: number
  private readonly lockWaitMs: number
  private readonly onWait?: (line: string) => void

  constructor(dir: string, options: JournalOptions = {}) {
    this.dir = dir
    this.path = join(dir, JOURNAL_FILE)
    this.indexPaths = INDEX_SHARDS.map((shard) => join(dir, `journal-index-${shard}.jsonl`))
    this.legacyIndexPaths = LEGACY_INDEX_SHARDS.map((shard) => join(dir, `journal-index-${shard}.jsonl`))
    this.firstIndexPath = join(dir, FIRST_INDEX_FILE)
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
    this.archives = options.archives ?? DEFAULT_ARCHIVES
    this.lockWaitMs = options.lockWaitMs ?? 30_000
    this.onWait = options.onWait
  }

  static newEntryId(): string {
    return randomUUID()
  }

  /**
   * Appends one record as one line, under the journal's lock (across processes) so that a rotation
   * never races an append. With `durable`, the line is on disk before this returns.
   */
  async append(record: JournalRecord, options: {durable?: boolean} = {}): Promise<void> {
    await this.exclusive(() => this.appendHeld(record, options))
  }

  /**
   * Runs fn holding the journal's lock (across processes): what it reads of the journal and what it
   * appends with `appendHeld` is one step, which no other process's append comes between.
   */
  locked<T>(fn: () => Promise<T>): Promise<T> {
    return this.exclusive(fn)
  }

  /** Appends one record; call only inside `locked`. */
  async appendHeld(record: JournalRecord, options: {durable?: boolean} = {}): Promise<void> {
    const line = `${JSON.stringify(record)}\n`
    await this.rotateIfNeeded()
    await appendWhole(this.path, line, options.durable ?? false)
  }

  /**
   * The journal's complete lines from byte `offset` of the file whose inode is `ino`: from the start
   * when the file is another one now (rotated) or shorter. Answers where the next read starts.
   */
  async readFrom(
    from: {ino: number; offset: number} | undefined,
    damaged?: (line: string, index: number) => void,
  ): Promise<{ino: number; offset: number; reset: boolean; records: JournalRecord[]; lines: number; tail: string}> {
    let handle
    try {
      handle = await openRegular(this.path, constants.O_RDONLY)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {ino: 0, offset: 0, reset: from !== undefined && from.offset > 0, records: [], lines: 0, tail: ''}
      throw error
    }
    try {
      const {ino, size} = await handle.stat()
      const reset = !from || from.ino !== ino || size < from.offset
      const start = reset ? 0 : from.offset
      const buffer = Buffer.alloc(size - start)
      let read = 0
      while (read < buffer.length) {
        const {bytesRead} = await handle.read(buffer, read, buffer.length - read, start + read)
        if (bytesRead === 0) break
        read += bytesRead
      }
      // Only whole lines: a line being cut short by a crash is read whole, or as torn, later. What
      // follows the last one (a line cut short, under the lock) is given apart, as `tail`.
      const end = buffer.lastIndexOf(0x0a, read - 1) + 1
      const text = buffer.subarray(0, end).toString('utf8')
      let lines = 0
      for (let at = buffer.indexOf(0x0a); at !== -1 && at < end; at = buffer.indexOf(0x0a, at + 1)) lines += 1
      return {ino, offset: start + end, reset, records: parseRecords(text, damaged), lines, tail: buffer.subarray(end, read).toString('utf8')}
    } finally {
      await handle.close()
    }
  }

  /** Every entry, with its state, as the journal holds it now. */
  async entries(): Promise<JournalEntry[]> {
    const text = await readNoFollow(this.path)
    return text === undefined ? [] : foldEntries(parseRecords(text))
  }

  /** Runs fn holding the journal: first in this process's queue, then under the lock file. */
  private async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    mkdirSync(this.dir, {recursive: true, mode: 0o700})
    const previous = queues.get(this.path) ?? Promise.resolve()
    const run = previous.then(
      () => this.underLock(fn),
      () => this.underLock(fn),
    )
    const tail = run.catch(() => undefined)
    queues.set(this.path, tail)
    try {
      return await run
    } finally {
      if (queues.get(this.path) === tail) queues.delete(this.path)
    }
  }

  private underLock<T>(fn: () => Promise<T>): Promise<T> {
    return withFileLock(join(this.dir, LOCK_FILE), fn, {waitMs: this.lockWaitMs, what: `the journal (${join(this.dir, LOCK_FILE)})`, onWait: this.onWait})
  }

  /**
   * Past the size limit: the settled entries go to an archive (journal-<time>.jsonl) and the pending
   * ones, with their last outcome, start the new file. The new file is written aside and renamed
   * into place after the old one is linked to its archive name, so a crash at any step leaves every
   * pending entry in journal.jsonl.
   */
  private async rotateIfNeeded(): Promise<void> {
    const size = await lstat(this.path).then(
      (info) => info.size,
      () => 0,
    )
    if (size < this.maxBytes) return
    const text = (await readNoFollow(this.path)) ?? ''
    // A line that cannot be read but names an external code stays in the journal as it is: the
    // repeat guard refuses that code until someone has looked (it may be a request that was sent).
    const unread: string[] = []
    const entries = foldEntries(parseRecords(text, (line) => (codeOfDamagedRecord(line) === undefined ? undefined : unread.push(line))))
    const pending = entries.filter((entry) => entry.state === 'pending')
    const lines = [
      ...unread,
      ...pending.flatMap(({state: _state, outcome, outcomes: _outcomes, ...request}) => [JSON.stringify(request), ...(outcome ? [JSON.stringify(outcome)] : [])]),
    ]
    const kept = lines.length > 0 ? `${lines.join('\n')}\n` : ''
    // Unless at least half the file is settled history, rotating would free little: keep appending.
    if (Buffer.byteLength(kept) > size / 2) return
    // What the repeat guard must remember of the settled entries goes to the index first, on disk
    // before they leave the journal: a crash at any step leaves each in the journal or the index.
    await this.indexArchives()
    const remembered = entries.flatMap((entry) => (entry.state === 'pending' ? [] : [indexRecordOf(entry)].filter((line) => line !== undefined)))
    await this.appendIndex(remembered)
    const aside = `${this.path}.${process.pid}.tmp`
    await rm(aside, {force: true})
    try {
      const handle = await open(aside, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
      try {
        await handle.writeFile(kept, 'utf8')
        await handle.datasync()
      } finally {
        await handle.close()
      }
    } catch (error) {
      await rm(aside, {force: true})
      throw error
    }
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('.', '')
    await link(this.path, join(this.dir, `journal-${stamp}.jsonl`))
    await rename(aside, this.path)
    await this.pruneArchives()
  }

  /**
   * Archives written before the index was kept (an older version of this program) are read into it
   * once, before the first rotation that would start pruning them. An index in an earlier layout
   * (one file, then 16 files) is folded into the current one, each file removed once its lines are on disk in
   * theirs: a crash between the two leaves a line twice, which the guard reads as once.
   */
  private async indexArchives(): Promise<void> {
    const exists = (path: string) =>
      lstat(path).then(
        () => true,
        () => false,
      )
    // Shard 0 is made at the first rotation, lines or not: it marks the index as begun (in either layout).
    if (!(await exists(this.indexPaths[0]))) {
      if (!(await exists(this.legacyIndexPaths[0])) && !(await exists(this.firstIndexPath))) {
        const lines: IndexRecord[] = []
        for (const name of await this.archiveFiles()) {
          const text = (await readNoFollow(join(this.dir, name))) ?? ''
          for (const entry of foldEntries(parseRecords(text))) {
            const line = indexRecordOf(entry)
            if (line) lines.push(line)
          }
        }
        await this.appendIndex(lines)
      }
      await appendWhole(this.indexPaths[0], '', true)
    }
    for (const path of [...this.legacyIndexPaths, this.firstIndexPath]) {
      const text = await readNoFollow(path)
      if (text === undefined) continue
      const lines: IndexRecord[] = []
      let damaged = false
      for (const line of text.split('\n')) {
        if (!line.startsWith('{')) continue
        try {
          const value = JSON.parse(line) as IndexRecord
          if (value && typeof value.c === 'string') lines.push(value)
        } catch {
          damaged = true
        }
      }
      await this.appendIndex(lines)
      // A file with a line that cannot be read stays where the guard reads it (and refuses the code
      // that line names): folding it in would forget that code.
      if (!damaged) await rm(path, {force: true})
    }
  }

  /** The index file of an external code. */
  indexPathOf(code: string): string {
    return join(this.dir, indexFile(code))
  }

  /** The file of an external code in the earlier layout of the index (which may still be there). */
  legacyIndexPathOf(code: string): string {
    return join(this.dir, legacyIndexFile(code))
  }

  /**
   * The journal as bytes (not parsed), a line cut short at its end included, opened without
   * following a symlink; empty when there is no journal. The repeat guard searches them for its
   * codes before parsing any.
   */
  async bytes(): Promise<Buffer> {
    let handle
    try {
      handle = await openRegular(this.path, constants.O_RDONLY)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0)
      throw error
    }
    try {
      return await handle.readFile()
    } finally {
      await handle.close()
    }
  }

  /**
   * Appends index lines, each to its code's file, on disk before this returns. The files are written
   * and flushed at once, not one after the other: a rotation touches most of the 256, and the disk
   * takes their flushes together.
   */
  private async appendIndex(lines: readonly IndexRecord[]): Promise<void> {
    const byFile = new Map<string, string[]>()
    for (const line of lines) {
      const path = this.indexPathOf(line.c)
      let text = byFile.get(path)
      if (!text) byFile.set(path, (text = []))
      text.push(`${JSON.stringify(line)}\n`)
    }
    const failed = (await Promise.allSettled([...byFile].map(([path, text]) => appendWhole(path, text.join(''), true)))).find((result) => result.status === 'rejected')
    if (failed) throw failed.reason
  }

  /** The archive files, oldest first. */
  async archiveFiles(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[])
    return names.filter((name) => /^journal-\d{8}T\d{9}Z\.jsonl$/.test(name)).sort()
  }

  private async pruneArchives(): Promise<void> {
    const archives = await this.archiveFiles()
    for (const name of archives.slice(0, Math.max(0, archives.length - this.archives))) await rm(join(this.dir, name), {force: true})
  }
}

/**
 * Opens a file of the config folder: never through a symlink, never blocking on a FIFO planted in
 * its place (O_NONBLOCK), and only when it is a regular file (checked on the handle): else exit 3
 * naming the path.
 */
export async function openRegular(path: string, flags: number, mode?: number) {
  const handle = await open(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode)
  const info = await handle.stat()
  if (!info.isFile()) {
    await handle.close()
    throw new FolderError(`${path} in the config folder is not a regular file (${info.isFIFO() ? 'a FIFO' : 'another kind of file'})`, {
      hint: `Remove it (\`rm ${path}\`): the file is written anew in its place.`,
    })
  }
  return handle
}

/**
 * Appends text to a file of the config folder as a whole: a line cut short by an earlier crash is
 * ended first, and a write that fails (a full disk) is taken back, leaving the file as it was.
 */
export async function appendWhole(path: string, line: string, durable: boolean): Promise<void> {
  let handle
  try {
    handle = await openRegular(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') {
      throw new FolderError(`${path} in the config folder is a folder, not a file`, {hint: `Move it away (\`mv ${path} ${path}.old\`).`})
    }
    throw error
  }
  let size = 0
  try {
    size = (await handle.stat()).size
    // A line cut short by a crash must not swallow the next one.
    let text = line
    if (size > 0 && line !== '') {
      const last = Buffer.alloc(1)
      const {bytesRead} = await handle.read(last, 0, 1, size - 1)
      if (bytesRead === 1 && last[0] !== 0x0a) text = `\n${line}`
    }
    await handle.appendFile(text, 'utf8')
    if (durable) await handle.datasync()
  } catch (error) {
    await handle.truncate(size).catch(() => undefined)
    throw error
  } finally {
    await handle.close()
  }
}

/** A file's text, opened without following a symlink; undefined when there is no such file. */
export async function readNoFollow(path: string): Promise<string | undefined> {
  let handle
  try {
    handle = await openRegular(path, constants.O_RDONLY)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    return await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
}
