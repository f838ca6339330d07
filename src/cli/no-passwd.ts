import os from 'node:os'

/**
 * A uid with no passwd entry (a container run with `--user 1003`): os.homedir() without HOME, and
 * os.userInfo() always, throw ("uv_os_get_passwd returned ENOENT"). Libraries the CLI loads call
 * them at start-up: oclif for the shell when SHELL is unset, clean-stack for the home at load. So
 * that every command still starts, both answer what is known instead of throwing: no home (the
 * config folder is then GATEWAY_CONFIG_DIR, or none), and the ids with no name and no shell.
 * Loaded first, before oclif.
 */
const {homedir, userInfo} = os

os.homedir = function homedirOrNone(): string {
  try {
    return homedir()
  } catch {
    return process.env.HOME ?? ''
  }
}

os.userInfo = function userInfoOrIds(options?: {encoding: BufferEncoding}) {
  try {
    return userInfo(options)
  } catch {
    const uid = typeof process.getuid === 'function' ? process.getuid() : -1
    const gid = typeof process.getgid === 'function' ? process.getgid() : -1
    return {username: String(uid), uid, gid, shell: null, homedir: process.env.HOME ?? ''}
  }
} as typeof os.userInfo
