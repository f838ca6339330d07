import {constants} from 'node:fs'
import {FolderError} from '../api/folder.js'

import {canonical, codeOfDamagedRecord, family, fieldsHash, openRegular, parseRecords, senderOf, type EntryState, type IndexRecord, type Journal, type JournalRecord} from '../journal/journal.js'

export {canonical}

/**
 * The repeat guard: the same money-moving request sent again under another idempotency key would
 * move the money twice. A request with an external code is compared with every request the config
 * folder's journal shows was sent with that code to the same gateway and client id (whatever the
 * profile's name), under another key and not refused:
 *   - a payout (`withdraw`, or a row of a payout batch) is one payout per external code, whatever
 *     its other fields: an edited amount or key is the likely sign of a corrected file run twice;
 *   - a charge (`tx create`) only when its fields equal the earlier request's (a new charge for the
 *     same order, after the first expired, is common).
 * Requests without an external code are not compared (the same amount to the same key may well be
 * meant again). What the journal rotated away is in its index (journal-index-<digits>.jsonl), which
 * is never rotated: a repeat refused before a rotation is refused after it.
 *
 * A check costs about the same whatever the journal's age: of the journal file, only the lines that
 * mention the code (and the outcomes of their entries) are parsed; of the index, only the code's
 * own file (a 256th) is read, and only its code's lines parsed.
 */

/** What the journal knows of the earlier request. */
export interface EarlierRequest {
  idempotencyKey: string
  at: string
  state: string
  externalCode: string
  amount?: number
  /** The PIX key it went to, masked. */
  destination?: string
}

export interface Repeat<R> {
  /** The request, as given. */
  request: R
  earlier: EarlierRequest
}

/** Who sent it and what, for one earlier request of one external code. */
interface Sent {
  family: string
  baseUrl: string
  sender: string
  hash: string
  earlier: Omit<EarlierRequest, 'state'>
  state: EntryState
  /** Whether a known outcome was recorded (a later unknown one does not undo it). */
  known: boolean
}

/** The families compared by external code alone: one payout per code. */
const ONE_PER_CODE = new Set(['withdraw'])

/**
 * What the guard knows of the current journal file, read incrementally: a batch checks each row
 * under the journal's lock just before it is written, and reads only the lines appended since its
 * last look (by this process or another), not the whole journal again.
 */
interface SentIndex {
  at?: {ino: number; offset: number; lines: number}
  entries: Map<string, Sent>
  byCode: Map<string, Sent[]>
  /** The codes named by lines that cannot be read, with the first such line's number. */
  damaged: Map<string, number>
  /** What follows the file's last whole line (a line cut short), when it names a code. */
  tail?: {code: string; line: number}
}

const indexes = new Map<string, SentIndex>()

function apply(index: SentIndex, record: JournalRecord): void {
  if (record.type === 'request') {
    const code = record.request?.body?.externalCode
    if (index.entries.has(record.entry) || typeof code !== 'string') return
    const sent: Sent = {
      family: family(record.command),
      baseUrl: record.baseUrl,
      sender: senderOf(record),
      hash: fieldsHash(record.request.body),
      earlier: {idempotencyKey: record.idempotencyKey, at: record.at, externalCode: code, amount: record.amount, ...(record.destination ? {destination: record.destination} : {})},
      state: 'pending',
      known: false,
    }
    index.entries.set(record.entry, sent)
    let same = index.byCode.get(code)
    if (!same) index.byCode.set(code, (same = []))
    same.push(sent)
    return
  }
  const sent = index.entries.get(record.entry)
  if (!sent) return
  if (sent.known && record.state === 'pending') return
  sent.state = record.state
  sent.known = record.state !== 'pending'
}

/** The index of the journal file, brought up to date with what was appended since it was last read. */
async function currentIndex(journal: Journal): Promise<SentIndex> {
  let index = indexes.get(journal.path)
  const damaged: Array<[line: string, number: number]> = []
  const read = await journal.readFrom(index?.at, (line, number) => damaged.push([line, number]))
  if (!index || read.reset) {
    index = {entries: new Map(), byCode: new Map(), damaged: new Map()}
    indexes.set(journal.path, index)
  }
  const before = read.reset ? 0 : (index.at?.lines ?? 0)
  for (const record of read.records) apply(index, record)
  for (const [line, number] of damaged) {
    const code = codeOfDamagedRecord(line)
    if (code !== undefined && !index.damaged.has(code)) index.damaged.set(code, before + number + 1)
  }
  const code = codeOfDamagedRecord(read.tail)
  index.tail = code === undefined ? undefined : {code, line: before + read.lines + 1}
  index.at = {ino: read.ino, offset: read.offset, lines: before + read.lines}
  return index
}

/** The offsets of the starts of the lines of `text` that contain `needle`. */
function linesWith(text: Buffer, needle: Buffer, into: Set<number>): void {
  for (let at = text.indexOf(needle); at !== -1; ) {
    const start = text.lastIndexOf(0x0a, at) + 1
    into.add(start)
    const end = text.indexOf(0x0a, at)
    if (end === -1) break
    at = text.indexOf(needle, end + 1)
  }
}

/**
 * What the journal file shows of these codes alone, for a first look: the file is searched for each
 * code as JSON writes it (a line that holds the code holds it so), only those lines are parsed, then
 * the lines naming their entries (the outcomes), and all of them applied in the file's order.
 */
async function currentOfCodes(journal: Journal, codes: readonly string[]): Promise<SentIndex> {
  const text = await journal.bytes()
  const lineAt = (start: number) => {
    const end = text.indexOf(0x0a, start)
    return text.subarray(start, end === -1 ? text.length : end).toString('utf8')
  }
  const starts = new Set<number>()
  for (const code of new Set(codes)) linesWith(text, Buffer.from(JSON.stringify(code)), starts)
  const wanted = new Set(codes)
  const entries = new Set<string>()
  const index: SentIndex = {entries: new Map(), byCode: new Map(), damaged: new Map()}
  const found = [...starts].sort((a, b) => a - b)
  const records = parseRecords(found.map(lineAt).join('\n'), (line, at) => {
    const code = codeOfDamagedRecord(line)
    if (code === undefined || !wanted.has(code)) return
    const number = lineNumberAt(text, found[at])
    if (text.indexOf(0x0a, found[at]) === -1) index.tail = {code, line: number}
    else if (!index.damaged.has(code)) index.damaged.set(code, number)
  })
  for (const record of records) {
    const code = record.type === 'request' ? record.request?.body?.externalCode : undefined
    if (typeof code === 'string' && wanted.has(code)) entries.add(record.entry)
  }
  for (const entry of entries) linesWith(text, Buffer.from(JSON.stringify(entry)), starts)
  for (const record of parseRecords([...starts].sort((a, b) => a - b).map(lineAt).join('\n'))) apply(index, record)
  return index
}

/** Journals this process has checked already: a second check (a batch's rows) keeps the whole file's index. */
const looked = new Set<string>()

const sentOfIndex = (line: IndexRecord): Sent => ({
  family: line.f,
  baseUrl: line.g,
  sender: line.i,
  hash: line.h,
  earlier: {idempotencyKey: line.key, at: line.at, externalCode: line.c, amount: line.amount, ...(line.k ? {destination: line.k} : {})},
  state: line.s,
  known: true,
})

/** Above this many codes at once, the whole index is read into memory (and kept, read on incrementally). */
const SEARCHED = 32

/** Index files read whole by a process that checks many codes (a batch), and how far. */
const archived = new Map<string, {ino: number; offset: number; lines: number; byCode: Map<string, Sent[]>; damaged: Map<string, number>}>()

/**
 * The code a damaged index line names, when it plainly names one (`{"c":"<code>",` at its start),
 * or undefined.
 */
function codeOfDamaged(line: string): string | undefined {
  const match = /^\{"c":("(?:[^"\\]|\\.)*"),/.exec(line)
  if (!match) return undefined
  try {
    return JSON.parse(match[1]) as string
  } catch {
    return undefined
  }
}

/**
 * A line of the index that names an external code but cannot be read (it does not parse, or the file
 * ends inside it): the guard cannot tell whether that code was sent, so the command refuses rather
 * than send (exit 3, naming the file and line and how to check it).
 */
function damagedLine(path: string, line: number, code: string, why: string, what = "the journal's index"): FolderError {
  return new FolderError(`${path}, line ${line}, names the external code ${JSON.stringify(code)} but ${why}: ${what} cannot tell whether it was sent, so nothing was sent`, {
    hint: `Look at the line (\`sed -n '${line}p' ${path}\`) and at \`gateway journal list\`; once you are sure that ${JSON.stringify(code)} was not sent, send it with --allow-repeats. ${
      what === 'the journal' ? 'Keep the file: it is what keeps money from moving twice.' : "The index is the journal's memory: keep the file."
    }`,
  })
}

/**
 * The lines of `text` (whole lines only) as index records. A line that names a code but does not
 * parse is passed to `damaged` with its number (counted from `firstLine`).
 */
function indexLines(text: string, into: (line: IndexRecord) => void, damaged?: (code: string, line: number) => void, firstLine = 1): void {
  let number = firstLine - 1
  for (const line of text.split('\n')) {
    number += 1
    if (!line.startsWith('{')) continue
    try {
      const value = JSON.parse(line) as IndexRecord
      if (value && typeof value.c === 'string') into(value)
    } catch {
      const code = codeOfDamaged(line)
      if (code !== undefined) damaged?.(code, number)
    }
  }
}

/** The number of the line at byte `at` of `text`. */
const lineNumberAt = (text: Buffer, at: number): number => {
  let lines = 1
  for (let index = text.indexOf(0x0a); index !== -1 && index < at; index = text.indexOf(0x0a, index + 1)) lines += 1
  return lines
}

/** Reads `length` bytes of an open file from `start`. */
async function readRange(handle: Awaited<ReturnType<typeof openRegular>>, start: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length)
  let read = 0
  while (read < length) {
    const {bytesRead} = await handle.read(buffer, read, length - read, start + read)
    if (bytesRead === 0) break
    read += bytesRead
  }
  return buffer.subarray(0, read)
}

/**
 * The archived requests of `codes` in one index file: for a few codes, the file is searched for each
 * code's lines (`{"c":<code>,`) and only those are parsed; for many, it is read whole once and kept.
 */
async function searchIndexFile(path: string, codes: readonly string[], many: boolean, found: Map<string, Sent[]>): Promise<void> {
  let handle
  try {
    handle = await openRegular(path, constants.O_RDONLY)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  const add = (line: IndexRecord) => found.set(line.c, [...(found.get(line.c) ?? []), sentOfIndex(line)])
  try {
    const {ino, size} = await handle.stat()
    const kept = archived.get(path)
    if (!many && !(kept && kept.ino === ino)) {
      const text = await readRange(handle, 0, size)
      for (const code of codes) {
        const needle = Buffer.from(`{"c":${JSON.stringify(code)},`)
        for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
          if (at > 0 && text[at - 1] !== 0x0a) continue
          const end = text.indexOf(0x0a, at)
          if (end === -1) throw damagedLine(path, lineNumberAt(text, at), code, 'is cut short at the end of the file')
          indexLines(text.subarray(at, end).toString('utf8'), add, (named) => {
            throw damagedLine(path, lineNumberAt(text, at), named, 'cannot be read')
          })
        }
      }
      return
    }
    const whole = kept && kept.ino === ino && kept.offset <= size ? kept : {ino, offset: 0, lines: 0, byCode: new Map<string, Sent[]>(), damaged: new Map<string, number>()}
    if (whole.offset < size) {
      const buffer = await readRange(handle, whole.offset, size - whole.offset)
      const end = buffer.lastIndexOf(0x0a) + 1
      const text = buffer.subarray(0, end).toString('utf8')
      indexLines(
        text,
        (line) => whole.byCode.set(line.c, [...(whole.byCode.get(line.c) ?? []), sentOfIndex(line)]),
        (code, line) => whole.damaged.set(code, line),
        whole.lines + 1,
      )
      whole.lines += text.split('\n').length - 1
      whole.offset += end
      archived.set(path, whole)
      // The file ends inside a line (a write cut short): a code it names is not known either way.
      const tail = codeOfDamaged(buffer.subarray(end).toString('utf8'))
      if (tail !== undefined && codes.includes(tail)) throw damagedLine(path, whole.lines + 1, tail, 'is cut short at the end of the file')
    }
    for (const code of codes) {
      const line = whole.damaged.get(code)
      if (line !== undefined) throw damagedLine(path, line, code, 'cannot be read')
      for (const sent of whole.byCode.get(code) ?? []) found.set(code, [...(found.get(code) ?? []), sent])
    }
  } finally {
    await handle.close()
  }
}

/**
 * The archived requests of these external codes, from the journal's index: only their codes' files
 * are read, and, while an index in the earlier layout is there (until the next rotation folds it in),
 * their files of that too.
 */
async function archivedSent(journal: Journal, codes: readonly string[]): Promise<Map<string, Sent[]>> {
  const found = new Map<string, Sent[]>()
  const byFile = new Map<string, string[]>()
  for (const code of new Set(codes)) {
    for (const path of [journal.indexPathOf(code), journal.legacyIndexPathOf(code), journal.firstIndexPath]) byFile.set(path, [...(byFile.get(path) ?? []), code])
  }
  const many = codes.length > SEARCHED
  for (const [path, inFile] of byFile) await searchIndexFile(path, inFile, many, found)
  return found
}

/** Who a request goes to and as whom: the gateway and the client id (else the profile). */
export interface RepeatTarget {
  profile: string
  baseUrl: string
  clientId?: string
}

/**
 * The requests among `requests` that repeat one the journal shows was sent; see the module's
 * comment. Inside the journal's lock, the answer holds until the lock is released: with the entry
 * written in the same hold, two processes can never both find no repeat and both send.
 */
export async function findRepeats<R extends {body: Record<string, unknown>}>(
  journal: Journal,
  target: RepeatTarget,
  command: string,
  requests: readonly R[],
): Promise<Array<Repeat<R>>> {
  // Only a request with an external code is compared: when none has one, the journal is not read
  // (a charge without a code, a cron job's usual one, would otherwise read up to a whole 1 MiB file).
  const compared = requests.filter((request) => typeof request.body.externalCode === 'string')
  if (compared.length === 0) return []
  const kind = family(command)
  const senders = new Set([senderOf({profile: target.profile}), ...(target.clientId ? [senderOf({clientId: target.clientId, profile: target.profile})] : [])])
  const codes = compared.map((request) => request.body.externalCode as string)
  // A first look at a few codes parses only their lines; a process that checks again (a batch, row
  // by row) or checks many at once reads the file whole once, and then only what was appended.
  const first = !looked.has(journal.path) && codes.length <= SEARCHED
  looked.add(journal.path)
  const current = first ? await currentOfCodes(journal, codes) : await currentIndex(journal)
  for (const code of codes) {
    const line = current.damaged.get(code)
    if (line !== undefined) throw damagedLine(journal.path, line, code, 'cannot be read', 'the journal')
    if (current.tail?.code === code) throw damagedLine(journal.path, current.tail.line, code, 'is cut short at the end of the file', 'the journal')
  }
  const old = await archivedSent(journal, codes)
  const repeats: Array<Repeat<R>> = []
  for (const request of compared) {
    const code = request.body.externalCode as string
    const hash = ONE_PER_CODE.has(kind) ? undefined : fieldsHash(request.body)
    // The latest such request that was not refused is the one compared (and named).
    let earlier: EarlierRequest | undefined
    for (const sent of [...(old.get(code) ?? []), ...(current.byCode.get(code) ?? [])]) {
      if (sent.family !== kind || sent.baseUrl !== target.baseUrl || !senders.has(sent.sender)) continue
      if (hash !== undefined && sent.hash !== hash) continue
      if (sent.state === 'failed' || sent.state === 'not-sent') continue
      earlier = {...sent.earlier, state: sent.state}
    }
    if (earlier && earlier.idempotencyKey !== request.body.idempotencyKey) repeats.push({request, earlier})
  }
  return repeats
}

const brl = (cents: number) => `R$ ${(cents / 100).toFixed(2).replace('.', ',')}`

/**
 * "external code payout-7: a withdrawal with this external code was sent at … (R$ 150,00 to key
 * ********0725) under the key … (done in the journal); this one's key is …".
 */
export function repeatLine(one: string, earlier: EarlierRequest, key: string, field: string): string {
  const what = one === 'withdrawal' ? `a ${one} with this external code` : `the same ${one}`
  const details = [earlier.amount === undefined ? undefined : brl(earlier.amount), earlier.destination ? `to key ${earlier.destination}` : undefined].filter(Boolean).join(' ')
  return `${field} ${earlier.externalCode}: ${what} was sent at ${earlier.at}${details ? ` (${details})` : ''} under the key ${earlier.idempotencyKey} (${earlier.state} in the journal); this one's key is ${key}`
}
