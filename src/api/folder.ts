import {accessSync, constants, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, type Stats} from 'node:fs'
import {basename, dirname, join} from 'node:path'

import {AuthError} from './errors.js'

/**
 * The config folder holds the client secrets, the token cache and the journal of money-moving
 * requests: it must be the user's alone. As OpenSSH's StrictModes does for `~/.ssh`, the folder and
 * every file in it are checked before anything in it is read or sent: owned by the user, not
 * writable by group or others, and (the files) not symbolic links. The folders above it are not
 * checked: a config folder under /tmp is fine when it is the user's and 0700.
 */

/** The config folder cannot be used as it is: exit 3 (a permission problem), naming the path and the fix. */
export class FolderError extends AuthError {
  override readonly code = 'CONFIG_FOLDER'
}

/** The user's id, or undefined where there are no POSIX owners. */
const ownUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined)

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`

/**
 * Checks the folder and every file in it; a folder that does not exist yet passes (it is made 0700
 * when something is first written). Throws a FolderError naming the path and the fix.
 */
export function checkConfigFolder(dir: string): void {
  const uid = ownUid()
  let info: Stats
  // The folder may be reached through a symbolic link (a dotfiles setup), but only one of the
  // user's own (or root's): another user's could be pointed elsewhere at any time.
  let link: Stats | undefined
  try {
    link = lstatSync(dir.replace(/\/+$/, '') || dir)
  } catch {
    // Missing: see below.
  }
  if (link?.isSymbolicLink() && uid !== undefined && link.uid !== uid && link.uid !== 0) {
    throw new FolderError(`the config folder ${dir} is reached through a symbolic link that belongs to another user (uid ${link.uid}): they could point it elsewhere`, {
      hint: `Remove the link (\`rm ${quote(dir.replace(/\/+$/, ''))}\`, as its owner or root) and make the folder yours, or ${hintFor(dir)}`,
    })
  }
  try {
    info = statSync(dir)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return
    throw new FolderError(`the config folder ${dir} cannot be read (${code ?? (error as Error).message})`, {hint: hintFor(dir)})
  }
  if (!info.isDirectory()) throw new FolderError(`the config folder ${dir} is not a folder`, {hint: `Remove it (\`rm ${quote(dir)}\`), or ${hintFor(dir)}`})
  if (uid !== undefined && info.uid !== uid) {
    throw new FolderError(`the config folder ${dir} belongs to another user, ${userName(info.uid)}: its files could be changed by them`, {
      hint: anotherUsers(dir, info.uid, dir),
    })
  }
  if (uid !== undefined && (info.mode & 0o022) !== 0) {
    throw new FolderError(`the config folder ${dir} can be written by ${whoWrites(info.mode)} (mode ${octal(info.mode)}): its files could be changed by them`, {
      hint: `Make it yours alone: \`chmod 700 ${quote(dir)}\`, and check the files in it.`,
    })
  }
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch (error) {
    throw new FolderError(`the config folder ${dir} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, {hint: hintFor(dir)})
  }
  for (const name of names) checkConfigFile(join(dir, name), uid)
}

/** The files this program reads and writes in the folder: regular files only (a FIFO would hang a read). */
const DATA_FILE = /^(config|credentials|tokens)\.json$|^journal(-index-[0-9a-f]|-\d{8}T\d{9}Z)?\.jsonl$|\.lock\.(holder|remover)$/
/** The lock sockets (and a lock's own bound socket, and its breaker's). */
const LOCK_NAME = /^(journal)?\.lock(\.[0-9a-f]{8}|\.break(\.[0-9a-f]{8})?)?$/

/** What kind of file a Stats is, for messages. */
function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO'
  if (info.isDirectory()) return 'a folder'
  if (info.isSocket()) return 'a socket'
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device'
  return 'not a regular file'
}

/**
 * One file of the folder: not a symlink, the user's, not writable by group or others; the files
 * this program reads and writes are regular files (a lock may be a socket), and nothing in the
 * folder is a FIFO or a device.
 */
export function checkConfigFile(path: string, uid = ownUid()): void {
  let info: Stats
  try {
    info = lstatSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw new FolderError(`${path} in the config folder cannot be read (${(error as NodeJS.ErrnoException).code})`)
  }
  const name = basename(path)
  if (info.isSymbolicLink()) {
    throw new FolderError(`${path} in the config folder is a symbolic link: it is not followed`, {
      hint: MONEY_STATE.test(name)
        ? `Put the file it points to in its place (\`cp "$(readlink -f ${quote(path)})" ${quote(path)}.copy && chmod 600 ${quote(path)}.copy && mv ${quote(path)}.copy ${quote(path)}\`): it is part of the journal, which the repeat check and \`gateway journal retry\` read; never remove it.`
        : `Remove the link (\`rm ${quote(path)}\`); the file is written anew in its place.`,
    })
  }
  const expected = LOCK_NAME.test(name) ? info.isFile() || info.isSocket() : DATA_FILE.test(name) ? info.isFile() : !(info.isFIFO() || info.isCharacterDevice() || info.isBlockDevice())
  if (!expected) {
    throw new FolderError(`${path} in the config folder is ${kindOf(info)}, not ${LOCK_NAME.test(name) ? 'a lock this program made' : 'a regular file'}`, {
      hint: `Remove it (\`rm ${info.isDirectory() ? '-r ' : ''}${quote(path)}\`) once no gateway command runs; the file is written anew in its place.`,
    })
  }
  if (uid === undefined) return
  if (info.uid !== uid) {
    throw new FolderError(`${path} in the config folder belongs to another user, ${userName(info.uid)}: nothing in the config folder may be another user's`, {
      hint: anotherUsers(dirname(path), info.uid, path),
    })
  }
  if ((info.mode & 0o022) !== 0) {
    throw new FolderError(`${path} in the config folder can be written by ${whoWrites(info.mode)} (mode ${octal(info.mode)})`, {
      hint: `Make it yours alone: \`chmod go-w ${quote(path)}\` (check what it holds first).`,
    })
  }
}

/**
 * Makes sure the folder exists and can be written: made 0700 when missing. Throws a FolderError
 * naming the folder, what it is needed for (`purpose`: "withdraw needs a writable config folder for
 * its journal"), and GATEWAY_CONFIG_DIR, when it cannot be.
 */
export function requireWritableFolder(dir: string | undefined, purpose: string): string {
  if (dir === undefined) {
    throw new FolderError(`${purpose}, and there is none: HOME is not set; set GATEWAY_CONFIG_DIR to a folder of your own`)
  }
  try {
    mkdirSync(dir, {recursive: true, mode: 0o700})
    accessSync(dir, constants.W_OK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new FolderError(`${purpose}, and ${dir} cannot be written (${reason(code)}): set GATEWAY_CONFIG_DIR to a folder of your own`)
  }
  return dir
}

/** Whether the folder can be made and written (without saying why not): where a token may be kept. */
export function folderWritable(dir: string | undefined): boolean {
  if (dir === undefined) return false
  try {
    mkdirSync(dir, {recursive: true, mode: 0o700})
    accessSync(dir, constants.W_OK)
    return true
  } catch {
    return false
  }
}

function reason(code: string | undefined): string {
  if (code === 'EROFS') return 'read-only file system'
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied'
  if (code === 'ENOENT') return 'a folder above it does not exist'
  if (code === 'ENOTDIR') return 'a part of the path is not a folder'
  return code ?? 'unknown error'
}

function whoWrites(mode: number): string {
  const group = (mode & 0o020) !== 0
  const others = (mode & 0o002) !== 0
  return group && others ? 'group and others' : group ? 'its group' : 'others'
}

/**
 * The journal, its index and its archives: money state, which no message ever says to remove (the
 * repeat check and `journal retry` read them).
 */
const MONEY_STATE = /^journal(-index(-[0-9a-f]{1,2})?|-\d{8}T\d{9}Z)?\.jsonl$/

/** A user's name and number (`ops (uid 1001)`), or the number alone where the passwd file has no entry. */
export function userName(uid: number): string {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , id] = line.split(':')
      if (id === String(uid) && name) return `${name} (uid ${uid})`
    }
  } catch {
    // No passwd file: the number alone.
  }
  return `uid ${uid}`
}

/**
 * What to do about a config folder (or a file in it) that belongs to another user: run as its owner,
 * or take it over with chown, after looking at what is pending. Never a removal: it holds the journal.
 */
function anotherUsers(dir: string, uid: number, path: string): string {
  const owner = userName(uid).replace(/ \(uid \d+\)$/, '')
  const as = /^uid /.test(owner) ? `#${uid}` : owner
  return (
    `Run gateway as its owner (\`sudo -u ${as} gateway …\`), or make it yours: first \`sudo -u ${as} env GATEWAY_CONFIG_DIR=${quote(dir)} gateway journal list --pending\`, then \`sudo chown -R "$(id -un)": ${quote(path)}\`. ` +
    'It holds the journal of money sent, which the repeat check reads: never remove it.'
  )
}

function hintFor(dir: string): string {
  return `set GATEWAY_CONFIG_DIR to a folder of your own (made with mode 0700), instead of ${dir}.`
}

/** A path as a shell reads it. */
function quote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`
}
