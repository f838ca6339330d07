import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, runCli} from '../helpers/cli.js'
import {control, startTestSandbox, type Sandbox} from '../helpers/sandbox.js'
import {tmpfsRefusal} from '../helpers/tmpfs.js'

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const tmpfsRefused = process.getuid?.() === 0 ? tmpfsRefusal() : 'mount -t tmpfs needs root'
if (tmpfsRefused) console.log(`[skip] the README's export on a full disk: ${tmpfsRefused}`)

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

/** The README's one-time set-up as root: the sh block marked `<!-- example: cron set-up -->`, a command a line. */
function readmeSetUp(): string[] {
  const block = /<!-- example: cron set-up -->\n```sh\n([\s\S]*?)```/.exec(README)
  expect(block, 'the README shows the set-up as root in a sh block marked <!-- example: cron set-up -->').not.toBeNull()
  return block![1].split('\n').filter((line) => line.trim() && !line.startsWith('#'))
}

/** The README's login of the crontab's user to the config folder, word for word. */
function readmeLogin(): string {
  const line = README.split('\n').find((text) => text.startsWith('GATEWAY_CONFIG_DIR=/etc/gateway gateway login '))
  expect(line, 'the README shows the login to /etc/gateway').toBeDefined()
  return line!
}

/** Another user can be taken on only as root, with setpriv. */
const asRoot = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0
/** The crontab's user, `ops` in the README: a uid of no one else on this machine. */
const OPS = 23457

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
 * to and reads from (/var/log, /var/exports, /srv/erp, /etc/gateway) and the folder npm puts
 * `gateway` in (/usr/local/bin) are moved into a folder of the test's own; nothing else of the
 * line is changed. cron mails whatever a line prints, stdout and stderr alike, and ignores its exit
 * code: so each line is made to fail (no login; the gateway answering 503) and to succeed, and
 * what it printed (the mail), its files and its exit code are checked.
 */
describe("the README's crontab lines, run as cron runs them", () => {
  const jobs = readmeJobs()
  let sandbox: Sandbox
  let root: string
  /** The sandbox's clock: real time unless a test sets it (a deposit made yesterday). */
  let clock: number | undefined

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 200, now: () => clock ?? Date.now()})
    root = mkdtempSync(join(tmpdir(), 'gateway-cron-'))
    // Another user (the crontab's, in the last test) goes through it to the folders the set-up makes.
    chmodSync(root, 0o755)
  })
  afterAll(async () => {
    await sandbox.close()
    rmSync(root, {recursive: true, force: true})
  })

  /**
   * A machine of its own for one job: a bin folder holding `gateway`, a HOME, the README's folders
   * (unless `bare`: then the README's set-up makes them). `user` runs the jobs as that uid.
   */
  function machine(name: string, {bare = false, user}: {bare?: boolean; user?: number} = {}) {
    const base = join(root, name)
    const dirs = {
      bin: join(base, 'bin'),
      home: join(base, 'home'),
      log: join(base, 'var-log'),
      exports: join(base, 'var-exports'),
      erp: join(base, 'srv-erp'),
      etc: join(base, 'etc-gateway'),
    }
    for (const dir of bare ? [dirs.bin, dirs.home] : [dirs.bin, dirs.home, dirs.log, dirs.exports, dirs.erp]) mkdirSync(dir, {recursive: true})
    // Where `npm install -g` puts the command: a link to the CLI's bin/run.js, beside the Node it
    // needs (22.19 or newer: the one running these tests), as a Node installed in /usr/local is.
    symlinkSync(BIN, join(dirs.bin, 'gateway'))
    symlinkSync(process.execPath, join(dirs.bin, 'node'))
    const place = (text: string) =>
      text
        .replaceAll('/usr/local/bin', dirs.bin)
        .replaceAll('/var/log/gateway', dirs.log)
        .replaceAll('/var/exports', dirs.exports)
        .replaceAll('/srv/erp', dirs.erp)
        .replaceAll('/etc/gateway', dirs.etc)
    // Spawned without blocking: the sandbox answering the line runs in this process.
    const run = (job: CronJob, extra: string[] = []) =>
      new Promise<{code: number | null; mail: string}>((resolve, reject) => {
        const env = Object.entries(job.env).map(([key, value]) => `${key}=${place(value)}`)
        const line = ['-i', 'PATH=/usr/bin:/bin', 'SHELL=/bin/sh', `HOME=${dirs.home}`, `LOGNAME=${user === undefined ? 'root' : 'ops'}`, ...env, ...extra, '/bin/sh', '-c', place(asCronRuns(job.command))]
        const [command, args] = user === undefined ? ['/usr/bin/env', line] : ['setpriv', [`--reuid=${user}`, `--regid=${user}`, '--clear-groups', '/usr/bin/env', ...line]]
        const child = spawn(command, args, {stdio: ['ignore', 'pipe', 'pipe']})
        // What cron mails: everything the line prints, on either stream.
        let mail = ''
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (mail += chunk))
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (mail += chunk))
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
        child.on('error', reject)
        child.on('close', (code) => {
          clearTimeout(timer)
          resolve({code, mail})
        })
      })
    const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '')
    const logIn = async () => {
      const login = await runCli(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox'], {env: {GATEWAY_CONFIG_DIR: dirs.etc, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
      expect(login.code, login.stderr).toBe(0)
    }
    return {dirs, run, read, logIn, place}
  }

  const STAMPED_ERROR = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z Error: /m
  const job = (words: string, nth = 0) => jobs.filter((candidate) => candidate.command.includes(words))[nth]

  it('shows the charge, the export and the reconciliations, every one with a PATH, one config folder, and no fixed name under /tmp', () => {
    expect(job('gateway tx create')).toBeDefined()
    expect(job('gateway deposits list')).toBeDefined()
    expect(job('gateway deposits reconcile', 1)).toBeDefined()
    for (const each of jobs) {
      expect(each.env.PATH, each.command).toMatch(/\/usr\/local\/bin/)
      expect(each.env.GATEWAY_CONFIG_DIR, each.command).toBe('/etc/gateway')
      expect(`${Object.values(each.env).join(' ')} ${each.command}`, each.command).not.toMatch(/\/tmp\b/)
    }
  })

  it('the export: a good run mails nothing; a failed one mails its error and leaves the previous file whole', async () => {
    const export_ = job('gateway deposits list')
    const {dirs, run, read, logIn} = machine('export')
    const files = () => readdirSync(dirs.exports)

    // No login: exit 3, the error mailed, no file written and nothing left behind.
    const none = await run(export_)
    expect(none.code).toBe(3)
    expect(none.mail).toMatch(STAMPED_ERROR)
    expect(none.mail).toMatch(/not logged in/)
    expect(files()).toEqual([])

    // A good run: nothing printed, so nothing mailed; the whole CSV in its file.
    await logIn()
    const done = await run(export_)
    expect(done.code, done.mail).toBe(0)
    expect(done.mail).toBe('')
    const [csv] = files()
    expect(csv).toMatch(/^paid-\d{4}-\d\d-\d\d\.csv$/)
    expect(files()).toEqual([csv])
    const good = read(join(dirs.exports, csv))
    expect(good.split('\r\n')[0]).toMatch(/^id,/)

    // The gateway failing (503 after every retry): exit 7, the error mailed, the previous file as it was.
    await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'GET /core/deposit', status: 503, count: 4})
    const refused = await run(export_)
    expect(refused.code).toBe(7)
    expect(refused.mail).toMatch(STAMPED_ERROR)
    expect(refused.mail).toMatch(/503/)
    expect(files()).toEqual([csv])
    expect(read(join(dirs.exports, csv))).toBe(good)
  })

  it.skipIf(Boolean(tmpfsRefused))('the export on a full disk: exit 1, one line mailed naming the file and the disk, the last good file intact', async () => {
    const export_ = job('gateway deposits list')
    const {dirs, run, read, logIn} = machine('export-full')
    // /var/exports on a small file system of its own.
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0755', 'tmpfs', dirs.exports], {encoding: 'utf8'})
    expect(mounted.status, mounted.stderr).toBe(0)
    try {
      await logIn()
      const done = await run(export_)
      expect(done.code, done.mail).toBe(0)
      const [csv] = readdirSync(dirs.exports)
      const good = read(join(dirs.exports, csv))
      // Filled to the last byte.
      const filler = join(dirs.exports, 'filler')
      for (;;) {
        try {
          writeFileSync(filler, Buffer.alloc(4096, 1), {flag: 'a'})
        } catch {
          break
        }
      }
      const full = await run(export_)
      expect(full.code).toBe(1)
      expect(full.mail.split('\n').filter(Boolean)).toHaveLength(1)
      expect(full.mail).toMatch(STAMPED_ERROR)
      expect(full.mail).toContain(`cannot write --output-file ${join(dirs.exports, csv)}: the disk is full; the file was left as it was`)
      expect(read(join(dirs.exports, csv))).toBe(good)
      expect(readdirSync(dirs.exports).sort()).toEqual([csv, 'filler'].sort())
    } finally {
      spawnSync('umount', [dirs.exports])
    }
  })

  it('the charge: a good run mails nothing; a failure mails its error and what journal retry did; the data file gets a line each run', async () => {
    const charge = job('gateway tx create')
    const {dirs, run, read, logIn} = machine('charge')
    const data = join(dirs.log, 'charges.ndjson')
    const lines = () => read(data).split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>)

    // No login: exit 3, the error document in the data file, the error mailed.
    const none = await run(charge)
    expect(none.code, none.mail).toBe(3)
    expect(lines()).toHaveLength(1)
    expect(lines()[0].error).toMatchObject({exitCode: 3})
    expect(none.mail).toMatch(STAMPED_ERROR)
    expect(none.mail).toMatch(/not logged in/)

    // Logged in: exit 0, nothing mailed (no idempotency note), one line with the picked fields.
    await logIn()
    const made = await run(charge)
    expect(made.code, made.mail).toBe(0)
    expect(made.mail).toBe('')
    const [, created] = lines()
    expect(Object.keys(created)).toEqual(['id', 'status', 'amount', 'externalCode', 'idempotencyKey'])
    expect(created).toMatchObject({amount: 7980, externalCode: expect.stringMatching(/^fee-4711-\d{4}-\d\d$/)})

    // The same line again in the month: the repeat guard refuses it, exit 2, mailed; nothing charged twice.
    const again = await run(charge)
    expect(again.code).toBe(2)
    expect(lines()[2].error).toMatchObject({exitCode: 2})
    expect(again.mail).toMatch(STAMPED_ERROR)
    expect(again.mail).toContain(created.idempotencyKey)
  })

  it('the charge failing at the gateway (503 after every retry): exit 7 kept, and the mail says journal retry made it', async () => {
    const charge = job('gateway tx create')
    const {dirs, run, read, logIn} = machine('charge-refused')
    await logIn()
    await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', status: 503, count: 4})
    const refused = await run(charge)
    expect(refused.code).toBe(7)
    const [line] = read(join(dirs.log, 'charges.ndjson')).split('\n')
    expect(JSON.parse(line).error).toMatchObject({exitCode: 7, status: 503})
    expect(refused.mail).toMatch(STAMPED_ERROR)
    // journal retry ran, after the failure, and replayed the pending charge under its key.
    expect(refused.mail).toMatch(/^Replayed 1: 1 done, 0 failed, 0 still pending/m)
    expect(refused.mail).toContain(JSON.parse(line).idempotencyKey as string)
  })

  it('the reconciliations: a day paid as expected mails nothing; discrepancies and failures are mailed', async () => {
    const [report, log] = [job('gateway deposits reconcile'), job('gateway deposits reconcile', 1)]
    // A separate gateway with no seeded deposits: yesterday holds only the charge made here.
    const own = await startTestSandbox({now: () => clock ?? Date.now()})
    try {
      const {dirs, run, read} = machine('reconcile')
      const login = await runCli(['login', '--base-url', own.baseUrl, '--client-id', 'sandbox'], {env: {GATEWAY_CONFIG_DIR: dirs.etc, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
      expect(login.code, login.stderr).toBe(0)
      // A charge made and paid yesterday at noon (the crontab's time zone is the machine's).
      const noon = new Date()
      noon.setDate(noon.getDate() - 1)
      noon.setHours(12, 0, 0, 0)
      clock = noon.getTime()
      let id: string
      try {
        const made = await runCli(['tx', 'create', '--amount', '4990', '--external-code', 'CRON-REC-0001', '--json'], {env: {GATEWAY_CONFIG_DIR: dirs.etc}})
        expect(made.code, made.stderr).toBe(0)
        id = JSON.parse(made.stdout).id as string
        const paid = await runCli(['sandbox', 'pay', id], {env: {GATEWAY_CONFIG_DIR: dirs.etc}})
        expect(paid.code, paid.stderr).toBe(0)
      } finally {
        clock = undefined
      }
      const day = execFileSync('date', ['-d', 'yesterday', '+%F'], {encoding: 'utf8', env: {PATH: '/usr/bin:/bin'}}).trim()
      const expected = join(dirs.erp, `expected-${day}.csv`)
      const discrepancies = join(dirs.log, 'discrepancies.ndjson')

      // Every charge paid as expected: nothing printed by either line, nothing logged.
      writeFileSync(expected, 'external-code,amount\nCRON-REC-0001,4990\n')
      for (const each of [report, log]) {
        const good = await run(each)
        expect(good.mail, each.command).toBe('')
      }
      expect(read(discrepancies)).toBe('')

      // A charge never paid: the first line mails the report, the second logs the row and mails its error.
      writeFileSync(expected, 'external-code,amount\nCRON-REC-0001,4990\nCRON-REC-0002,1000\n')
      const mailed = await run(report)
      expect(mailed.code).toBe(10)
      expect(mailed.mail).toMatch(/missing/)
      expect(mailed.mail).toContain('CRON-REC-0002')
      expect(mailed.mail).toMatch(STAMPED_ERROR)
      const logged = await run(log)
      expect(logged.mail).toMatch(STAMPED_ERROR)
      const rows = read(discrepancies).split('\n').filter(Boolean).map((line) => JSON.parse(line) as {class: string; externalCode: string})
      expect(rows).toEqual([expect.objectContaining({class: 'missing', externalCode: 'CRON-REC-0002'})])

      // The gateway failing: both lines mail the error.
      for (const each of [report, log]) {
        await control(own.baseUrl, '/_sandbox/faults', {route: 'GET /core/deposit', status: 503, count: 4})
        const failed = await run(each)
        expect(failed.mail, each.command).toMatch(STAMPED_ERROR)
        expect(failed.mail, each.command).toMatch(/503/)
      }
      // No file of the day's expected charges: mailed as well.
      rmSync(expected)
      for (const each of [report, log]) {
        const missing = await run(each)
        expect(missing.mail, each.command).toMatch(STAMPED_ERROR)
      }
    } finally {
      await own.close()
    }
  })

  it.runIf(asRoot)('as a user who is not root, after the set-up as root the README shows: the charge, the export and the log of discrepancies are written, and nothing is mailed', async () => {
    const {dirs, run, read, place} = machine('as-ops', {bare: true, user: OPS})
    // The set-up, as root, word for word but for the folders (the test's own) and the user (a uid).
    for (const line of readmeSetUp()) {
      const setUp = spawnSync('/bin/sh', ['-c', place(line).replace(/ -o ops /g, ` -o ${OPS} `)], {encoding: 'utf8'})
      expect(setUp.status, `${line}\n${setUp.stderr}`).toBe(0)
    }
    expect(statSync(dirs.etc).uid).toBe(OPS)
    expect(statSync(dirs.etc).mode & 0o777).toBe(0o700)
    // The login, as the user, word for word but for the gateway and its client.
    const login = await run(
      {env: {}, command: readmeLogin().replace('https://api.example.com', sandbox.baseUrl).replace('my-client', 'sandbox')},
      ['PATH=' + dirs.bin + ':/usr/bin:/bin', 'GATEWAY_CLIENT_SECRET=sandbox-secret'],
    )
    expect(login.code, login.mail).toBe(0)
    expect(statSync(join(dirs.etc, 'credentials.json')).uid).toBe(OPS)

    const charge = await run(job('gateway tx create'))
    expect(charge.code, charge.mail).toBe(0)
    expect(charge.mail).toBe('')
    const [made] = read(join(dirs.log, 'charges.ndjson')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as {id?: string})
    expect(made.id).toMatch(/^[0-9a-f-]{36}$/)

    const exported = await run(job('gateway deposits list'))
    expect(exported.code, exported.mail).toBe(0)
    expect(exported.mail).toBe('')
    const [csv] = readdirSync(dirs.exports)
    expect(statSync(join(dirs.exports, csv)).uid).toBe(OPS)

    // The file of yesterday's expected charges, which the operator's system writes: one never paid.
    const day = execFileSync('date', ['-d', 'yesterday', '+%F'], {encoding: 'utf8', env: {PATH: '/usr/bin:/bin'}}).trim()
    writeFileSync(join(dirs.erp, `expected-${day}.csv`), 'external-code,amount\nCRON-OPS-0001,1000\n', {mode: 0o644})
    await run(job('gateway deposits reconcile', 1))
    const rows = read(join(dirs.log, 'discrepancies.ndjson')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as {class: string; externalCode: string})
    expect(rows).toContainEqual(expect.objectContaining({class: 'missing', externalCode: 'CRON-OPS-0001'}))
  })
})
