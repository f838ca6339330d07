// What the bench scripts share: the CLI they run, the environment every measured process gets, a
// measured run of one command, and a sandbox in a child process.
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {open} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

export const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
export const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined
/**
 * Every process measured runs as an operator runs it: without the CLI's variables, NODE_OPTIONS,
 * and NODE_EXTRA_CA_CERTS (an operator's machine does not set it; Node reads that file before any
 * JavaScript runs).
 */
export const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !key.startsWith('GATEWAY_') && key !== 'NODE_OPTIONS' && key !== 'NODE_EXTRA_CA_CERTS'),
)
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

const scratch = mkdtempSync(join(tmpdir(), 'gateway-bench-time-'))
process.once('exit', () => rmSync(scratch, {recursive: true, force: true}))

/**
 * Runs a command to completion: wall time in ms and, with /usr/bin/time, peak RSS in MiB and user +
 * system CPU in ms; its exit code and stderr. stdout goes to `stdoutFile` when given, else nowhere.
 * A run that ends with another code than `exitCode` is refused, unless `exitCode` is null.
 * @param {string[]} argv
 * @param {{env?: NodeJS.ProcessEnv, exitCode?: number | null, stdoutFile?: string}} [options]
 */
export async function measure(argv, {env = baseEnv, exitCode = 0, stdoutFile} = {}) {
  const rssFile = join(scratch, 'time')
  const command = timeBin ? [timeBin, '-f', '%U %S %M', '-o', rssFile, ...argv] : argv
  const out = stdoutFile ? await open(stdoutFile, 'w') : undefined
  try {
    return await new Promise((resolve, reject) => {
      const started = performance.now()
      const child = spawn(command[0], command.slice(1), {env, stdio: ['ignore', out ? out.fd : 'ignore', 'pipe']})
      let stderr = ''
      child.stderr.on('data', (chunk) => (stderr += chunk))
      child.on('error', reject)
      child.on('close', (code) => {
        const ms = performance.now() - started
        if (exitCode !== null && code !== exitCode) return reject(new Error(`${argv.slice(1).join(' ')} exited ${code}, not ${exitCode}: ${stderr.trim().slice(0, 400)}`))
        const [user, system, kb] = timeBin ? readFileSync(rssFile, 'utf8').trim().split('\n').at(-1).split(' ').map(Number) : [Number.NaN, Number.NaN, Number.NaN]
        resolve({ms, rssMiB: kb / 1024, cpuMs: (user + system) * 1000, code, stderr})
      })
    })
  } finally {
    await out?.close()
  }
}

/** `gateway sandbox start` in a child process, on a free port; answers when it listens. @param {string[]} [flags] */
export async function startSandbox(flags = []) {
  const started = performance.now()
  const child = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--json', ...flags], {env: baseEnv, stdio: ['ignore', 'pipe', 'pipe']})
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const line = await new Promise((resolve, reject) => {
    const lines = createInterface({input: child.stdout})
    lines.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`sandbox start ${flags.join(' ')} exited ${code}: ${stderr.trim()}`)))
  })
  return {
    baseUrl: JSON.parse(line).baseUrl,
    readyMs: performance.now() - started,
    async close() {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}
