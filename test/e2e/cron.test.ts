import {spawn} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, runCli} from '../helpers/cli.js'
import {control, startTestSandbox, type Sandbox} from '../helpers/sandbox.js'

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

interface CronJob {
  /** The crontab's variable lines before it (PATH=...), as cron puts them in the job's environment. */
  env: Record<string, string>
  /** The command, after the five time fields, as written in the README. */
  command: string
}

/** Every job line of every crontab the README shows, word for word. */
function readmeJobs(): CronJob[] {
  return [...README.matchAll(/```cron\n([\s\S]*?)```/g)].flatMap((match) => {
    const env: Record<string, string> = {}
    const jobs: CronJob[] = []
    for (const line of match[1].split('\n').filter((text) => text.trim() && !text.startsWith('#'))) {
      const variable = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line)
      if (variable) env[variable[1]] = variable[2]
      else jobs.push({env: {...env}, command: line.replace(/^(\S+\s+){5}/, '')})
    }
    return jobs
  })
}

/**
 * What cron hands /bin/sh: a `%` not escaped would end the command (the rest is stdin), and
 * `\%` is a `%`. The README's lines escape every one.
 */
function asCronRuns(command: string): string {
  expect(command.replace(/\\%/g, ''), command).not.toContain('%')
  return command.replace(/\\%/g, '%')
}

/**
 * Each crontab line of the README, run as cron runs it: `env -i` with cron's own PATH, SHELL and
 * HOME plus the crontab's variables, /bin/sh -c, stdin from /dev/null. The paths the README writes
 * to (/var/log, /var/exports, /etc/gateway) and the folder npm puts `gateway` in (/usr/local/bin)
 * are moved into a folder of the test's own; nothing else of the line is changed. Each line is made
 * to fail (no login; a request refused) and to succeed, and the data file, the log and the line's
 * exit code are checked.
 */
describe("the README's crontab lines, run as cron runs them", () => {
  const jobs = readmeJobs()
  let sandbox: Sandbox
  let root: string

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 200})
    root = mkdtempSync(join(tmpdir(), 'gateway-cron-'))
  })
  afterAll(async () => {
    await sandbox.close()
    rmSync(root, {recursive: true, force: true})
  })

  /** A machine of its own for one job: a bin folder holding `gateway`, a HOME, the README's folders. */
  function machine(name: string) {
    const base = join(root, name)
    const dirs = {bin: join(base, 'bin'), home: join(base, 'home'), log: join(base, 'var-log'), exports: join(base, 'var-exports'), etc: join(base, 'etc-gateway')}
    for (const dir of [dirs.bin, dirs.home, dirs.log, dirs.exports]) mkdirSync(dir, {recursive: true})
    // Where `npm install -g` puts the command: a link to the CLI's bin/run.js, beside the Node it
    // needs (22.19 or newer: the one running these tests), as a Node installed in /usr/local is.
    symlinkSync(BIN, join(dirs.bin, 'gateway'))
    symlinkSync(process.execPath, join(dirs.bin, 'node'))
    const place = (text: string) =>
      text
        .replaceAll('/usr/local/bin', dirs.bin)
        .replaceAll('/var/log/', `${dirs.log}/`)
        .replaceAll('/var/exports/', `${dirs.exports}/`)
        .replaceAll('/etc/gateway', dirs.etc)
    // Spawned without blocking: the sandbox answering the line runs in this process.
    const run = (job: CronJob) =>
      new Promise<{code: number | null; stdout: string; stderr: string}>((resolve, reject) => {
        const env = Object.entries(job.env).map(([key, value]) => `${key}=${place(value)}`)
        const child = spawn('/usr/bin/env', ['-i', 'PATH=/usr/bin:/bin', 'SHELL=/bin/sh', `HOME=${dirs.home}`, 'LOGNAME=root', ...env, '/bin/sh', '-c', place(asCronRuns(job.command))], {
          stdio: ['ignore', 'pipe', 'pipe'],
        })
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
    const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '')
    const logIn = async (configDir: string) => {
      const login = await runCli(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox'], {env: {GATEWAY_CONFIG_DIR: configDir, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
      expect(login.code, login.stderr).toBe(0)
    }
    return {dirs, run, read, logIn}
  }

  const STAMPED_ERROR = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z Error: /m

  it('shows at least the charge and the export', () => {
    expect(jobs.some((job) => job.command.includes('gateway tx create'))).toBe(true)
    expect(jobs.some((job) => job.command.includes('gateway deposits list'))).toBe(true)
    for (const job of jobs) expect(job.env.PATH, job.command).toMatch(/\/usr\/local\/bin/)
  })

  it('the charge: one line per run in the data file, every failure in the log with its time and exit code, and the line exits with it', async () => {
    const job = jobs.find((candidate) => candidate.command.includes('gateway tx create'))!
    const {dirs, run, read, logIn} = machine('charge')
    const data = join(dirs.log, 'charges.ndjson')
    const log = join(dirs.log, 'gateway.log')
    const lines = () => read(data).split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>)

    // No login: exit 3, the error document in the data file, the error and the exit code in the log.
    const none = await run(job)
    expect(none.code, none.stderr).toBe(3)
    expect(lines()).toHaveLength(1)
    expect(lines()[0].error).toMatchObject({exitCode: 3})
    expect(read(log)).toMatch(STAMPED_ERROR)
    expect(read(log)).toMatch(/Z tx create exited 3$/m)
    // Cron mails whatever the line prints: nothing, every word went to the files.
    expect(none.stdout).toBe('')

    // Logged in: exit 0, one compact line with the picked fields, nothing new in the log.
    await logIn(join(dirs.home, '.config', 'gateway'))
    const logged = read(log)
    const made = await run(job)
    expect(made.code, read(log)).toBe(0)
    expect(read(data).split('\n').filter(Boolean)).toHaveLength(2)
    expect(read(data).split('\n')[1]).not.toMatch(/^\s|\n\s/)
    const charge = lines()[1]
    expect(Object.keys(charge)).toEqual(['id', 'status', 'amount', 'externalCode', 'idempotencyKey'])
    expect(charge).toMatchObject({amount: 7980, externalCode: 'order-4711'})
    expect(read(log)).toBe(logged)

    // The same line again: the repeat guard refuses it, exit 2, said in the log; nothing charged twice.
    const again = await run(job)
    expect(again.code).toBe(2)
    expect(lines()[2].error).toMatchObject({exitCode: 2})
    expect(read(log).slice(logged.length)).toMatch(STAMPED_ERROR)
    expect(read(log)).toMatch(/Z tx create exited 2$/m)
  })

  it('the charge refused by the gateway (503 after every retry): exit 7 kept, journal retry settles it after', async () => {
    const job = jobs.find((candidate) => candidate.command.includes('gateway tx create'))!
    const {dirs, run, read, logIn} = machine('charge-refused')
    await logIn(join(dirs.home, '.config', 'gateway'))
    await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', status: 503, count: 4})
    const refused = await run(job)
    expect(refused.code).toBe(7)
    const [line] = read(join(dirs.log, 'charges.ndjson')).split('\n')
    expect(JSON.parse(line).error).toMatchObject({exitCode: 7, status: 503})
    const log = read(join(dirs.log, 'gateway.log'))
    expect(log).toMatch(STAMPED_ERROR)
    expect(log).toMatch(/Z tx create exited 7$/m)
    // journal retry ran, after the failure, and replayed the pending charge under its key.
    expect(log).toMatch(/^Replayed 1: 1 done, 0 failed, 0 still pending/m)
    // The charge exists once, made by the replay under the first run's key.
    const key = JSON.parse(line).idempotencyKey as string
    expect(log).toContain(key)
  })

  it('the export: the log says when and why it failed, and the line exits with the code', async () => {
    const job = jobs.find((candidate) => candidate.command.includes('gateway deposits list'))!
    const {dirs, run, read, logIn} = machine('export')
    const log = join(dirs.log, 'gateway-export.log')

    const none = await run(job)
    expect(none.code).toBe(3)
    expect(read(log)).toMatch(STAMPED_ERROR)
    expect(read(log)).toMatch(/Z deposits export exited 3$/m)

    await logIn(dirs.etc)
    const done = await run(job)
    expect(done.code, read(log)).toBe(0)
    const [csv] = readdirCsv(dirs.exports)
    expect(read(join(dirs.exports, csv)).split('\r\n')[0]).toMatch(/^id,/)

    await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'GET /core/deposit', status: 503, count: 4})
    const before = read(log)
    const refused = await run(job)
    expect(refused.code).toBe(7)
    expect(read(log).slice(before.length)).toMatch(STAMPED_ERROR)
    expect(read(log)).toMatch(/Z deposits export exited 7$/m)
  })
})

function readdirCsv(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.csv'))
}
