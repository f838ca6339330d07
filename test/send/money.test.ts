import {spawn} from 'node:child_process'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {NoRecordError, RejectedError, UnavailableError} from '../../src/api/errors.js'
import {CommandContext} from '../../src/cli/context.js'
import {configDir} from '../../src/api/store.js'
import {journalOf} from '../../src/journal/journaled.js'
import {sendMoney} from '../../src/send/money.js'
import {BIN, cleanEnv, tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand, testIO, type RunOptions} from '../helpers/context.js'
import {loggedInSandbox} from '../helpers/world.js'
import {control, startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

/**
 * The one send path: its unit (every step in order, every outcome), then the single commands, a
 * batch and `journal retry` end to end against the sandbox, including a 201 without the record and
 * a profile logged in to another gateway.
 */

const instant: RunOptions = {sleep: async () => {}}

describe('the send operation (unit)', () => {
  const world = loggedInSandbox()

  const context = () => {
    const io = testIO({env: world.env})
    return {io, ctx: new CommandContext({io, env: world.env, configDir: configDir(world.env), sleep: async () => {}})}
  }
  const body = (key: string, externalCode?: string) => ({amount: 100, idempotencyKey: key, ...(externalCode ? {externalCode} : {})})
  const spec = (key: string, externalCode?: string) => ({
    command: 'tx create',
    idempotencyKey: key,
    amount: 100,
    ...(externalCode ? {externalCode} : {}),
    request: {method: 'POST' as const, path: '/core/transaction', body: body(key, externalCode)},
  })
  const stateOf = async (ctx: CommandContext, key: string) => (await (await journalOf(ctx)).entries()).find((entry) => entry.idempotencyKey === key)

  it('checks the login and the repeat guard before the last word, and writes the entry before sending', async () => {
    const {ctx} = context()
    const steps: string[] = []
    const sent = await sendMoney(
      ctx,
      {
        one: 'charge',
        spec: spec('unit-1', 'unit-order-1'),
        post: async () => {
          steps.push(`post: entry ${(await stateOf(ctx, 'unit-1'))?.state}`)
          return {body: {id: 'rec-1', status: 'CREATED'}, replayed: false}
        },
      },
      {beforeSend: async () => void steps.push(`before: entry ${(await stateOf(ctx, 'unit-1'))?.state ?? 'none'}`)},
    )
    expect(steps).toEqual(['before: entry none', 'post: entry pending'])
    expect(sent).toEqual({record: {id: 'rec-1', status: 'CREATED'}, replayed: false, status: 'CREATED'})
    expect(await stateOf(ctx, 'unit-1')).toMatchObject({state: 'done', outcome: {id: 'rec-1', by: 'tx create'}})

    // The same fields and external code under another key: refused before the last word, nothing written.
    let asked = false
    const posted: string[] = []
    await expect(
      sendMoney(ctx, {one: 'charge', spec: spec('unit-2', 'unit-order-1'), post: async () => (posted.push('x'), {body: {id: 'rec-2'}, replayed: false})}, {beforeSend: () => void (asked = true)}),
    ).rejects.toThrow(/^external code unit-order-1: the same charge was sent at \S+ \(R\$ [\d.]+,\d\d\) under the key unit-1 \(done in the journal\); this one's key is unit-2$/)
    expect({asked, posted: posted.length, entry: await stateOf(ctx, 'unit-2')}).toEqual({asked: false, posted: 0, entry: undefined})
    // Allowed, it goes.
    await sendMoney(ctx, {one: 'charge', spec: spec('unit-2', 'unit-order-1'), post: async () => ({body: {id: 'rec-2'}, replayed: false})}, {allowRepeats: true})
    expect((await stateOf(ctx, 'unit-2'))?.state).toBe('done')
  })

  it.each([
    ['an answer without the record', new NoRecordError('no record', {status: 201, retryable: true}), 'pending'],
    ['a refusal', new RejectedError('refused', {status: 422}), 'failed'],
    ['a failure after sending', new UnavailableError('reset', {retryable: true}), 'pending'],
    ['a connection that never opened', new UnavailableError('refused', {retryable: true, notSent: true}), 'not-sent'],
  ])('records %s as %s, and passes the error on', async (_what, error, state) => {
    const {ctx} = context()
    const key = `unit-${state}-${Math.random().toString(36).slice(2)}`
    await expect(sendMoney(ctx, {one: 'charge', spec: spec(key), post: async () => Promise.reject(error)})).rejects.toBe(error)
    expect((await stateOf(ctx, key))?.state).toBe(state)
  })

  it('leaves no entry when the login fails: nothing could have been sent', async () => {
    const other = tempConfigDir()
    const io = testIO({})
    const ctx = new CommandContext({io, env: {GATEWAY_CONFIG_DIR: other.dir}, configDir: other.dir})
    ctx.globals = {...ctx.globals, baseUrl: world.sandbox.baseUrl}
    await expect(sendMoney(ctx, {one: 'charge', spec: spec('unit-no-login'), post: async () => ({body: {id: 'x'}, replayed: false})})).rejects.toThrow(/not logged in/)
    expect(await (await journalOf(ctx)).entries()).toEqual([])
    other.remove()
  })

  it('on a signal while the request is out, names the key, leaves the entry pending and ends 130 (143 for SIGTERM)', async () => {
    for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
      const key = `unit-signal-${signal}`
      const io = testIO({env: world.env})
      let fire!: (signal: NodeJS.Signals) => void
      const ctx = new CommandContext({io, env: world.env, configDir: configDir(world.env), interrupted: () => new Promise((resolve) => (fire = resolve))})
      const never = new Promise<never>(() => {})
      const sending = sendMoney(ctx, {one: 'withdrawal', spec: spec(key), post: async () => (setTimeout(() => fire(signal), 10), never)})
      await expect(sending).rejects.toMatchObject({exitCode: code})
      expect(io.stderrText()).toContain(`Interrupted (${signal}) while sending the withdrawal, idempotency key ${key}`)
      expect(io.stderrText()).toContain('pending in the journal')
      expect((await stateOf(ctx, key))?.state).toBe('pending')
    }
  })
})

describe('money moves once, and only where meant (end to end)', () => {
  let a: Sandbox
  let b: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  const cli = (args: string[], options: RunOptions = {}) => runCommand(args, {...instant, ...options, env: {...env, ...options.env}})
  const entries = async (extra: string[] = []) => {
    const result = await cli(['journal', 'list', '--json', ...extra])
    expect(result.code, result.stderr).toBe(0)
    return JSON.parse(result.stdout) as Array<Record<string, any>>
  }
  const entryOf = async (key: string) => (await entries()).find((entry) => entry.idempotencyKey === key)
  const withdrawals = async (sandbox: Sandbox) => ((await (await fetch(`${sandbox.baseUrl}/_sandbox/withdrawals`)).json()) as {total: number}).total
  const charges = async (sandbox: Sandbox, externalCode: string) => {
    const result = await runCommand(['deposits', 'list', '--all', '--output', 'ndjson'], {env: {GATEWAY_CONFIG_DIR: env.GATEWAY_CONFIG_DIR, GATEWAY_BASE_URL: sandbox.baseUrl}})
    expect(result.code, result.stderr).toBe(0)
    return result.stdout
      .split('\n')
      .filter(Boolean)
      .filter((line) => (JSON.parse(line) as {externalCode?: string}).externalCode === externalCode).length
  }

  beforeAll(async () => {
    a = await startTestSandbox()
    b = await startTestSandbox({clients: [{clientId: 'other-gateway', clientSecret: 'secret-of-gateway-b', scopes: ['transaction', 'withdraw', 'deposit', 'resend_dispatcher']}]})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(a.baseUrl, env)
  })
  afterAll(async () => {
    await a.close()
    await b.close()
    config.remove()
  })

  describe('the same command run twice', () => {
    it('withdraw with an external code: the second run is refused (exit 2, naming the first key), --allow-repeats makes a second', async () => {
      const args = ['withdraw', '--amount', '990', '--pix-key', 'maria@example.com', '--external-code', 'payout-dup-0001', '--yes']
      const first = await cli([...args, '--json'])
      expect(first.code, first.stderr).toBe(0)
      const {idempotencyKey} = JSON.parse(first.stdout)
      const before = await withdrawals(a)
      const again = await cli(args)
      expect(again.code).toBe(2)
      expect(again.stdout).toBe('')
      expect(again.stderr).toMatch(new RegExp(`^Error: external code payout-dup-0001: a withdrawal with this external code was sent at \\S+ \\(R\\$ 9,90 to key \\*{13}\\.com\\) under the key ${idempotencyKey} \\(done in the journal\\)`, 'm'))
      expect(again.stderr).toContain(`--idempotency-key ${idempotencyKey}`)
      expect(again.stderr).toContain('--allow-repeats')
      expect(again.stderr).not.toContain('Idempotency key:')
      expect(await withdrawals(a)).toBe(before)
      // Replayed under the first key: the same withdrawal, nothing new.
      const replay = await cli([...args, '--idempotency-key', idempotencyKey, '--json'])
      expect(replay.code, replay.stderr).toBe(0)
      expect(JSON.parse(replay.stdout)).toMatchObject({replayed: true})
      expect(await withdrawals(a)).toBe(before)
      const second = await cli([...args, '--allow-repeats'])
      expect(second.code, second.stderr).toBe(0)
      expect(await withdrawals(a)).toBe(before + 1)
    })

    it('tx create with an external code: one charge however often it runs, as the cron line does; --allow-repeats makes a second', async () => {
      const args = ['tx', 'create', '--amount', '1500', '--external-code', 'order-cron-1']
      for (let run = 0; run < 3; run++) {
        const result = await cli(args)
        expect(result.code, result.stderr).toBe(run === 0 ? 0 : 2)
        // The cron line goes on to `journal retry --yes`: it settles nothing twice either.
        if (result.code !== 0) expect((await cli(['journal', 'retry', '--yes'])).code).toBe(0)
      }
      expect(await charges(a, 'order-cron-1')).toBe(1)
      expect((await cli([...args, '--allow-repeats'])).code).toBe(0)
      expect(await charges(a, 'order-cron-1')).toBe(2)
    })

    it('a request without an external code is not compared: the same amount may be meant again', async () => {
      const before = await withdrawals(a)
      for (let run = 0; run < 2; run++) expect((await cli(['withdraw', '--amount', '100', '--pix-key', 'maria@example.com', '--yes'])).code).toBe(0)
      expect(await withdrawals(a)).toBe(before + 2)
    })

    it('a refused request is no repeat: it can be sent again once corrected elsewhere', async () => {
      await control(a.baseUrl, '/_sandbox/faults', {route: 'POST /core/withdraw', status: 422, count: 1})
      const args = ['withdraw', '--amount', '700', '--pix-key', 'maria@example.com', '--external-code', 'payout-refused-1', '--yes']
      expect((await cli(args)).code).toBe(5)
      expect((await cli(args)).code).toBe(0)
    })
  })

  describe('an answer without the record', () => {
    it.each([
      ['tx create', 'no-record-html', 'POST /core/transaction', ['tx', 'create', '--amount', '2500']],
      ['withdraw', 'no-record-json', 'POST /core/withdraw', ['withdraw', '--amount', '2500', '--pix-key', 'maria@example.com', '--yes']],
    ])('%s answered 201 without the record (%s): exit 7, the entry pending; journal retry settles it as the record made', async (_name, kind, route, args) => {
      await control(a.baseUrl, '/_sandbox/faults', {route, kind, count: 1})
      const key = `no-record-${kind}`
      const result = await cli([...args, '--idempotency-key', key])
      expect(result.code).toBe(7)
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(/^Error: the gateway answered without the record \(.*201 with (a body that is not JSON|JSON without the record's id)\)/m)
      expect(await entryOf(key)).toMatchObject({state: 'pending', error: {code: 'NO_RECORD'}})
      const retry = await cli(['journal', 'retry', '--yes', '--key', key, '--json'])
      expect(retry.code, retry.stderr).toBe(0)
      expect(JSON.parse(retry.stdout)).toMatchObject({done: 1, retried: [{state: 'done', replayed: true}]})
    })

    it('in a batch, the row fails with exit 7 and stays pending; the same file again replays it', async () => {
      await control(a.baseUrl, '/_sandbox/faults', {route: 'POST /core/withdraw', kind: 'no-record-html', count: 1})
      const {writeFileSync} = await import('node:fs')
      const file = `${config.dir}/../no-record-batch.csv`
      writeFileSync(file, 'amount,pix-key,external-code\n300,maria@example.com,nr-batch-1\n')
      const first = await cli(['withdraw', '--batch', file, '--yes', '--output', 'json'])
      expect(first.code).toBe(7)
      expect(JSON.parse(first.stdout)).toMatchObject([{outcome: 'failed', exitCode: 7}])
      const again = await cli(['withdraw', '--batch', file, '--yes', '--output', 'json'])
      expect(again.code, again.stderr).toBe(0)
      expect(JSON.parse(again.stdout)).toMatchObject([{outcome: 'replayed'}])
      // The replay answered for the first run's entry too: nothing is left for journal retry.
      expect((await entries(['--pending'])).filter((entry) => entry.externalCode === 'nr-batch-1')).toEqual([])
    })
  })

  describe('credentials stay with their gateway', () => {
    it('journal retry never sends a profile to a gateway it no longer points at: the entry is left pending, named, exit 3, after the others', async () => {
      // A pending entry on gateway A, for the default profile, and one for another profile on A.
      await control(a.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', status: 503, count: 2})
      expect((await cli(['tx', 'create', '--amount', '111', '--idempotency-key', 'moved-default', '--retries', '0'])).code).toBe(7)
      expect((await cli(['login', '--profile', 'second', '--base-url', a.baseUrl, '--client-id', 'sandbox'], {env: {GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})).code).toBe(0)
      expect((await cli(['tx', 'create', '--amount', '222', '--idempotency-key', 'moved-second', '--retries', '0', '--profile', 'second'])).code).toBe(7)
      // The default profile now belongs to gateway B, with B's credentials.
      const relogin = await cli(['login', '--base-url', b.baseUrl, '--client-id', 'other-gateway'], {env: {GATEWAY_CLIENT_SECRET: 'secret-of-gateway-b'}})
      expect(relogin.code, relogin.stderr).toBe(0)
      const tokensAtA = (await stats(a.baseUrl)).tokenRequests
      const createsAtB = (await stats(b.baseUrl)).byRoute['POST /core/transaction'] ?? 0

      const retry = await cli(['journal', 'retry', '--yes', '--json'])
      expect(retry.code).toBe(3)
      const report = JSON.parse(retry.stdout)
      expect(report.retried.map((result: {idempotencyKey: string}) => result.idempotencyKey)).toEqual(['moved-default', 'moved-second'])
      expect(report).toMatchObject({done: 1, elsewhere: 1, error: {code: 'GATEWAY_MOVED', exitCode: 3}})
      expect(report.error.message).toContain(`key moved-default, sent to ${a.baseUrl}, profile "default" now at ${b.baseUrl}`)
      expect(report.error.hint).toContain('journal resolve moved-default')
      // B's secret never reached A (no token request at all), and B never saw A's request.
      expect((await stats(a.baseUrl)).tokenRequests).toBe(tokensAtA)
      expect((await stats(b.baseUrl)).byRoute['POST /core/transaction'] ?? 0).toBe(createsAtB)
      expect(await entryOf('moved-default')).toMatchObject({state: 'pending', baseUrl: a.baseUrl})
      expect(await entryOf('moved-second')).toMatchObject({state: 'done'})

      // --profile narrows the run: another profile's stuck entry changes nothing.
      expect((await cli(['journal', 'retry', '--yes', '--profile', 'second'])).code).toBe(0)
      // In a person's words, too.
      const text = await cli(['journal', 'retry', '--yes'])
      expect(text.code).toBe(3)
      expect(text.stdout).toContain(`not replayed: sent to ${a.baseUrl}, but profile "default" now points at ${b.baseUrl}`)

      // Settled by hand, it is closed, journalled, and never replayed.
      const resolved = await cli(['journal', 'resolve', 'moved-default', '--as', 'failed', '--note', 'checked on gateway A'])
      expect(resolved.code, resolved.stderr).toBe(0)
      expect(await entryOf('moved-default')).toMatchObject({state: 'failed', settledBy: 'journal resolve', note: 'checked on gateway A'})
      expect((await cli(['journal', 'retry', '--yes'])).code).toBe(0)
      expect((await stats(a.baseUrl)).tokenRequests).toBe(tokensAtA)
      // Back to A for the tests that follow.
      await logIn(a.baseUrl, env)
    })

    it('journal resolve refuses what it cannot close: an unknown key, a settled entry, --id without done', async () => {
      expect((await cli(['journal', 'resolve', 'no-such-key', '--as', 'done'])).stderr).toMatch(/^Error: KEY no-such-key: no such idempotency key in the journal$/m)
      const settled = await cli(['journal', 'resolve', 'moved-second', '--as', 'done'])
      expect(settled.code).toBe(2)
      expect(settled.stderr).toContain('the entry is not pending (it is done)')
      const bad = await cli(['journal', 'resolve', 'x', '--as', 'maybe'])
      expect(bad.code).toBe(2)
    })
  })

  describe('a request that never left', () => {
    it('is recorded not-sent, shown as such, and journal retry leaves it alone (exit 0)', async () => {
      // A profile whose gateway went away after the login: its token is cached, so only the create fails, to connect.
      const gone = await startTestSandbox()
      expect((await cli(['login', '--profile', 'dead', '--base-url', gone.baseUrl, '--client-id', 'sandbox'], {env: {GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})).code).toBe(0)
      await gone.close()
      const result = await cli(['tx', 'create', '--amount', '333', '--idempotency-key', 'never-left', '--profile', 'dead', '--retries', '1'])
      expect(result.code).toBe(7)
      expect(result.stderr).toMatch(/connection refused|could not reach/)
      expect(result.stderr).not.toContain('may or may not exist')
      expect(await entryOf('never-left')).toMatchObject({state: 'not-sent'})
      expect((await entries(['--pending'])).map((entry) => entry.idempotencyKey)).not.toContain('never-left')
      const retry = await cli(['journal', 'retry', '--yes', '--profile', 'dead'])
      expect(retry.code, retry.stderr).toBe(0)
      expect(retry.stderr).toContain('Nothing is pending for profile "dead"')
    })

    it('not logged in: the error alone, no idempotency key shown, no entry', async () => {
      const other = tempConfigDir()
      const result = await runCommand(['tx', 'create', '--amount', '1000', '--base-url', a.baseUrl], {env: {GATEWAY_CONFIG_DIR: other.dir}})
      expect(result.code).toBe(3)
      expect(result.stderr).not.toMatch(/Idempotency key/i)
      expect(result.stderr).toMatch(/^Error: not logged in/m)
      other.remove()
    })
  })

  it('a process interrupted while its withdrawal is out says what was cut short: the key, pending; exit 130', async () => {
    await control(a.baseUrl, '/_sandbox/faults', {route: 'POST /core/withdraw', kind: 'slow', delayMs: 20_000, count: 1})
    const sentBefore = (await stats(a.baseUrl)).byRoute['POST /core/withdraw'] ?? 0
    const child = spawn(process.execPath, [BIN, 'withdraw', '--amount', '444', '--pix-key', 'maria@example.com', '--idempotency-key', 'signal-key-1', '--yes'], {
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    // Interrupted once the request is out: the sandbox has it.
    const deadline = Date.now() + 15_000
    while (((await stats(a.baseUrl)).byRoute['POST /core/withdraw'] ?? 0) === sentBefore || !(await entryOf('signal-key-1'))) {
      if (Date.now() > deadline) throw new Error(`the withdrawal never went out: ${stderr}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    child.kill('SIGINT')
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code).toBe(130)
    expect(stderr).toContain('Interrupted (SIGINT) while sending the withdrawal, idempotency key signal-key-1')
    expect(stderr).toContain('journal retry')
    expect(await entryOf('signal-key-1')).toMatchObject({state: 'pending'})
  })
})
