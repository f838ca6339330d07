import {writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {Journal} from '../../src/journal/journal.js'
import {ndjson, payoutCsv, payouts, sandboxWithdrawals, type PayoutRow} from '../helpers/batch.js'
import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand, type RunOptions} from '../helpers/context.js'
import {control, startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

interface Result {
  line: number
  externalCode: string | null
  idempotencyKey: string
  amount: number
  id: string | null
  status: string | null
  replayed: boolean
  outcome: string
  exitCode: number
  error: string | null
  pixKeyType?: string
  pixKey?: string
  pixCode?: string | null
}

describe('withdraw --batch and tx create --batch', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  let files = 0

  const run = (args: string[], options: RunOptions = {}) => runCommand(args, {env, ...options})
  /** Writes a batch file beside the config folder; answers its path. */
  const file = (text: string, extension = 'csv') => {
    const path = join(dirname(config.dir), `batch-${++files}.${extension}`)
    writeFileSync(path, text)
    return path
  }
  /** The batch's own withdrawals in the sandbox, by external code. */
  const heldWithTag = async (tag: string) => (await sandboxWithdrawals(sandbox.baseUrl)).filter((withdrawal) => withdrawal.externalCode?.startsWith(`${tag}-`))

  /** Runs a command that must exit 2 with the sandbox receiving no request at all. */
  const expectNothingSent = async (args: string[], options: RunOptions = {}) => {
    const before = (await stats(sandbox.baseUrl)).requests
    const result = await run(args, options)
    expect(result.code, result.stderr).toBe(2)
    expect((await stats(sandbox.baseUrl)).requests).toBe(before)
    return result
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  describe('200 withdrawals', () => {
    const tag = 'payroll'
    let rows: PayoutRow[]
    let path: string
    let first: Result[]

    beforeAll(async () => {
      rows = payouts(200, tag)
      // Row 57 carries its own key, already used by a single withdrawal of another amount: the gateway refuses it.
      rows[56].idempotencyKey = 'used-elsewhere-0057'
      const earlier = await run(['withdraw', '--amount', '100', '--pix-key', 'someone@example.com', '--idempotency-key', 'used-elsewhere-0057', '--yes'])
      expect(earlier.code, earlier.stderr).toBe(0)
      path = file(payoutCsv(rows))
    })

    it('sends every row but two: one refused by the gateway (exit 5), one lost to a 503 (exit 7); exits 7, the worst, naming both lines', async () => {
      // The next withdrawal request fails with 503, and --retries 0 leaves it failed: its row's outcome is unknown.
      await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/withdraw', status: 503, count: 1})
      const result = await run(['withdraw', '--batch', path, '--yes', '--retries', '0'])
      expect(result.code, result.stderr).toBe(7)
      first = ndjson<Result>(result.stdout)
      expect(first.map((row) => row.line)).toEqual(rows.map((_, index) => index + 2))
      const failed = first.filter((row) => row.outcome === 'failed')
      expect(failed).toHaveLength(2)
      const rejected = failed.find((row) => row.exitCode === 5)!
      const lost = failed.find((row) => row.exitCode === 7)!
      expect(rejected).toMatchObject({line: 58, externalCode: `${tag}-00057`, idempotencyKey: 'used-elsewhere-0057', id: null, status: null})
      expect(rejected.error).toMatch(/already used with another body/)
      expect(lost.error).toMatch(/503|unavailable/i)
      for (const row of first.filter((candidate) => candidate.outcome !== 'failed')) {
        expect(row).toMatchObject({outcome: 'done', status: 'PENDING', replayed: false, exitCode: 0})
        expect(row.id).toMatch(/^[0-9a-f-]{36}$/)
      }
      // Derived keys: the file's hash and the row; the row with its own key keeps it.
      expect(first[0].idempotencyKey).toMatch(/^payout-[0-9a-f]{32}-1$/)
      expect(first[199].idempotencyKey).toBe(first[0].idempotencyKey.replace(/-1$/, '-200'))
      expect(result.stderr).toMatch(/^200 withdrawals: 198 done, 0 replayed, 2 failed\.$/m)
      expect(result.stderr).toMatch(new RegExp(`^Error: 2 of 200 withdrawals failed \\(lines (58, ${lost.line}|${lost.line}, 58);`, 'm'))
      expect(result.stderr).toContain(`The outcome of line ${lost.line} is unknown`)
      expect(result.stderr).toContain('line 58 was refused and sent nothing')
      // The summary came first: count, total, largest, key types.
      const total = rows.reduce((sum, row) => sum + row.amount, 0)
      expect(result.stderr).toContain('from ' + path + ' (CSV): 200 withdrawals')
      expect(result.stderr).toContain(`Total:      R$ ${(total / 100).toFixed(2).replace('.', ',').replace(/\B(?=(\d{3})+(?!\d))/g, '.')}`)
      expect(result.stderr).toMatch(/Key types: {2}CPF 50, EMAIL 50, EVP 50, PHONE 50/)
      expect(await heldWithTag(tag)).toHaveLength(198)
      // Every row went through the journal; the lost one is pending.
      const entries = (await new Journal(config.dir).entries()).filter((entry) => entry.command === 'withdraw --batch' && entry.externalCode?.startsWith(`${tag}-`))
      expect(entries).toHaveLength(200)
      expect(entries.find((entry) => entry.idempotencyKey === lost.idempotencyKey)?.state).toBe('pending')
      expect(entries.find((entry) => entry.idempotencyKey === 'used-elsewhere-0057')?.state).toBe('failed')
    })

    it('the same file again: the rows done come back as replays with the same ids, the lost row is sent once, the refused one refused again (exit 5)', async () => {
      const before = await heldWithTag(tag)
      const result = await run(['withdraw', '--batch', path, '--yes', '--output', 'ndjson'])
      expect(result.code, result.stderr).toBe(5)
      const again = ndjson<Result>(result.stdout)
      const lostLine = first.find((row) => row.exitCode === 7)!.line
      for (const [index, row] of again.entries()) {
        if (row.line === 58) expect(row).toMatchObject({outcome: 'failed', exitCode: 5})
        else if (row.line === lostLine) expect(row).toMatchObject({outcome: 'done', replayed: false})
        else expect(row).toMatchObject({outcome: 'replayed', replayed: true, id: first[index].id})
      }
      expect(result.stderr).toMatch(/^200 withdrawals: 1 done, 198 replayed, 1 failed\./m)
      expect(result.stderr).toMatch(/^Error: 1 of 200 withdrawals failed \(line 58;/m)
      const held = await heldWithTag(tag)
      expect(held).toHaveLength(before.length + 1)
      expect(new Set(held.map((withdrawal) => withdrawal.externalCode)).size).toBe(199)
    })
  })

  it('honours 429 and Retry-After through the client: the rows are retried under their keys and all succeed', async () => {
    const rows = payouts(6, 'limited')
    await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/withdraw', status: 429, count: 3})
    const before = (await stats(sandbox.baseUrl)).faultsInjected['429'] ?? 0
    const result = await run(['withdraw', '--batch', file(payoutCsv(rows)), '--yes', '--concurrency', '2'], {sleep: async () => {}})
    expect(result.code, result.stderr).toBe(0)
    expect((await stats(sandbox.baseUrl)).faultsInjected['429']).toBe(before + 3)
    expect(ndjson<Result>(result.stdout).every((row) => row.outcome === 'done')).toBe(true)
    expect(await heldWithTag('limited')).toHaveLength(6)
  })

  it('a file with bad rows: every one reported with its line, field and rule, exit 2, nothing sent', async () => {
    const csv = [
      'amount,pix-key,pix-key-type,external-code,webhook-url',
      '1000,maria@example.com,,bad-rows-00001,', // fine
      '10.50,maria@example.com,,bad-rows-00002,', // a decimal
      '1000,123.456.789-00,,bad-rows-00003,', // no key type fits
      '0,maria@example.com,,bad-rows-00004,', // below the minimum
      '1000,529.982.247-25,EMAIL,bad-rows-00005,', // the key is not of the type given
      '1000,maria@example.com,,short,', // external code too short
      '1000,maria@example.com,,bad-rows-00007,http://hooks.example.com/pix', // not https
      '1000,maria@example.com,,bad-rows-00008', // a field missing
      ',maria@example.com,,bad-rows-00009,', // no amount
    ].join('\n')
    const result = await expectNothingSent(['withdraw', '--batch', file(csv), '--yes'])
    expect(result.stdout).toBe('')
    const errors = result.stderr.split('\n').filter((line) => line.startsWith('Error: '))
    expect(errors).toEqual([
      'Error: line 3: amount takes integer cents, not a decimal: 10.50 is amount 1050',
      expect.stringMatching(/^Error: line 4: pix-key is not a valid CPF: its check digits do not match$/),
      'Error: line 5: amount must be from 1 to 10000000 cents',
      expect.stringMatching(/^Error: line 6: pix-key is not a valid e-mail address; it reads as a CPF key/),
      expect.stringMatching(/^Error: line 7: external-code must be 8 to 255 characters/),
      expect.stringMatching(/^Error: line 8: webhook-url must use https/),
      'Error: line 9 has 4 fields; the header has 5',
      'Error: line 10: amount is required',
    ])
    expect(result.stderr).toContain('8 lines have problems')
    expect(await heldWithTag('bad-rows')).toHaveLength(0)

    const json = await expectNothingSent(['withdraw', '--batch', file(csv), '--yes', '--json'])
    const {error} = JSON.parse(json.stdout) as {error: {exitCode: number; body: {problems: Array<{line: number; field?: string; message: string}>}}}
    expect(error.exitCode).toBe(2)
    expect(error.body.problems.map((problem) => [problem.line, problem.field])).toEqual([
      [3, 'amount'],
      [4, 'pix-key'],
      [5, 'amount'],
      [6, 'pix-key'],
      [7, 'external-code'],
      [8, 'webhook-url'],
      [9, undefined],
      [10, 'amount'],
    ])
  })

  it('NDJSON rows: camelCase names, unknown fields, nulls, keys shared by two rows; all reported, nothing sent', async () => {
    const text = [
      JSON.stringify({amount: 1000, pixKey: 'maria@example.com', idempotencyKey: 'shared-key-0001'}),
      JSON.stringify({amount: 1000, pixKey: 'joao@example.com', idempotencyKey: 'shared-key-0001'}),
      JSON.stringify({amount: 1000, pixkey: 'joao@example.com'}),
      JSON.stringify({amount: null, pixKey: 'joao@example.com'}),
      '{"amount": 1000,',
    ].join('\n')
    const result = await expectNothingSent(['withdraw', '--batch', file(text, 'ndjson'), '--yes'])
    const errors = result.stderr.split('\n').filter((line) => line.startsWith('Error: '))
    expect(errors).toEqual([
      'Error: line 2: idempotency-key is the key of line 1 too: each row needs its own',
      'Error: line 3: pixkey is not a field of withdraw; did you mean pix-key?',
      // The key it meant is not said to be missing too, nor its type, which is read from the key.
      'Error: line 4: amount is null: leave the field out, or give it a value',
      expect.stringMatching(/^Error: line 5 is not valid JSON/),
    ])
  })

  it('a batch over 10,000 rows is refused unless --max-rows raises the limit; nothing sent', async () => {
    const big = payoutCsv(payouts(10_001, 'too-many'))
    const path = file(big)
    const refused = await expectNothingSent(['withdraw', '--batch', path, '--yes'])
    expect(refused.stderr).toMatch(/^Error: the batch file has more than 10000 rows: nothing was sent$/m)
    expect(refused.stderr).toContain('--max-rows')
    const small = file(payoutCsv(payouts(6, 'few-rows')))
    const capped = await expectNothingSent(['withdraw', '--batch', small, '--yes', '--max-rows', '5'])
    expect(capped.stderr).toMatch(/more than 5 rows/)
    const raised = await run(['withdraw', '--batch', path, '--dry-run', '--max-rows', '10001', '--max-total', '100000000'])
    expect(raised.code, raised.stderr).toBe(0)
    expect(raised.stderr).toContain('10001 withdrawals')
  }, 120_000)

  it('a batch over --max-total (default R$ 100.000,00) is refused, naming the total and how to raise it; nothing sent', async () => {
    const rows: PayoutRow[] = [
      {amount: 6_000_000, pixKey: 'maria@example.com', externalCode: 'big-total-00001'},
      {amount: 4_000_001, pixKey: 'joao@example.com', externalCode: 'big-total-00002'},
    ]
    const path = file(payoutCsv(rows))
    const refused = await expectNothingSent(['withdraw', '--batch', path, '--yes'])
    expect(refused.stderr).toMatch(/^Error: the batch totals R\$ 100\.000,01 \(10000001 cents\), over the limit of R\$ 100\.000,00 \(--max-total 10000000\): nothing was sent$/m)
    expect(refused.stderr).toContain('--max-total 10000001')
    const lower = await expectNothingSent(['withdraw', '--batch', file(payoutCsv(payouts(3, 'low-limit'))), '--yes', '--max-total', '100'])
    expect(lower.stderr).toContain('over the limit of R$ 1,00')
    const raised = await run(['withdraw', '--batch', path, '--yes', '--max-total', '10000001'])
    expect(raised.code, raised.stderr).toBe(0)
    expect(await heldWithTag('big-total')).toHaveLength(2)
  })

  it('an edited file sent again is refused, naming every row the journal shows was sent under its external code, the edited one too; --allow-repeats sends them', async () => {
    const rows = payouts(4, 'edited')
    const sent = await run(['withdraw', '--batch', file(payoutCsv(rows)), '--yes'])
    expect(sent.code, sent.stderr).toBe(0)
    // One amount corrected: a new batch, every derived key new.
    rows[2] = {...rows[2], amount: rows[2].amount + 1}
    const edited = file(payoutCsv(rows))
    const refused = await expectNothingSent(['withdraw', '--batch', edited, '--yes'])
    const errors = refused.stderr.split('\n').filter((line) => line.startsWith('Error: '))
    expect(errors.map((line) => /^Error: line (\d+): external-code (\S+): a withdrawal with this external code was sent at \S+ \(R\$ [\d.]+,\d\d to key \S+\) under the key payout-[0-9a-f]{32}-\d \(done in the journal\); this row's key is payout-[0-9a-f]{32}-\d$/.exec(line)?.slice(1))).toEqual([
      ['2', 'edited-00001'],
      ['3', 'edited-00002'],
      // The edited row too: one payout per external code, whatever its amount.
      ['4', 'edited-00003'],
      ['5', 'edited-00004'],
    ])
    expect(refused.stderr).toContain('--allow-repeats')
    expect(await heldWithTag('edited')).toHaveLength(4)
    // Said to be meant: every row goes out again, as new withdrawals.
    const allowed = await run(['withdraw', '--batch', edited, '--yes', '--allow-repeats'])
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(await heldWithTag('edited')).toHaveLength(8)
  })

  it('Ctrl-C between rows stops the batch: no row starts, the rest are reported not sent (exit 130); the same file again sends them', async () => {
    const path = file(payoutCsv(payouts(10, 'interrupted')))
    let stop!: (signal: NodeJS.Signals) => void
    const signal = new Promise<NodeJS.Signals>((resolve) => (stop = resolve))
    const result = await run(['withdraw', '--batch', path, '--yes', '--concurrency', '1'], {
      interrupted: () => signal,
      onStdout: (chunk) => {
        if (chunk.includes('"outcome":"done"')) stop('SIGINT')
      },
    })
    expect(result.code).toBe(130)
    const results = ndjson<Result>(result.stdout)
    expect(results).toHaveLength(10)
    const done = results.filter((row) => row.outcome === 'done').length
    const notSent = results.filter((row) => row.outcome === 'not-sent')
    expect(done + notSent.length).toBe(10)
    expect(notSent.length).toBeGreaterThan(0)
    expect(notSent.every((row) => row.id === null && row.exitCode === 130)).toBe(true)
    expect(result.stderr).toMatch(new RegExp(`^10 withdrawals: ${done} done, 0 replayed, 0 failed, ${notSent.length} not sent\\.$`, 'm'))
    expect(result.stderr).toContain('Run the same file again, unchanged, to send them')
    expect(await heldWithTag('interrupted')).toHaveLength(done)
    const again = await run(['withdraw', '--batch', path, '--yes'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain(`10 withdrawals: ${notSent.length} done, ${done} replayed, 0 failed.`)
    expect(await heldWithTag('interrupted')).toHaveLength(10)
  })

  it('--dry-run shows the summary and sends nothing', async () => {
    const rows = payouts(8, 'dry-run')
    const before = (await stats(sandbox.baseUrl)).requests
    const result = await run(['withdraw', '--batch', file(payoutCsv(rows)), '--dry-run'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe('')
    const largest = Math.max(...rows.map((row) => row.amount))
    expect(result.stderr).toContain(': 8 withdrawals')
    expect(result.stderr).toContain(`Largest:    R$ ${(largest / 100).toFixed(2).replace('.', ',')} (line ${rows.findIndex((row) => row.amount === largest) + 2})`)
    expect(result.stderr).toMatch(/Key types: {2}CPF 2, EMAIL 2, EVP 2, PHONE 2/)
    expect(result.stderr).toContain('Dry run: nothing was sent.')
    expect((await stats(sandbox.baseUrl)).requests).toBe(before)
    const json = await run(['withdraw', '--batch', file(payoutCsv(rows)), '--dry-run', '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({dryRun: true, summary: {rows: 8, byKeyType: {CPF: 2, EMAIL: 2, EVP: 2, PHONE: 2}, keys: {derived: 8, own: 0}}})
  })

  it('without a terminal, --yes is required: exit 2, nothing sent; stdin (-) needs --yes too', async () => {
    const csv = payoutCsv(payouts(3, 'no-tty'))
    const result = await expectNothingSent(['withdraw', '--batch', file(csv)])
    expect(result.stderr).toMatch(/^Error: a batch of 3 withdrawals needs a confirmation: give --yes when there is no terminal to ask in \(nothing was sent\)$/m)
    const piped = await expectNothingSent(['withdraw', '--batch', '-'], {input: csv, tty: {stdin: true, stderr: true}})
    expect(piped.stderr).toMatch(/--batch - reads the rows from stdin/)
    const sent = await run(['withdraw', '--batch', '-', '--yes'], {input: csv})
    expect(sent.code, sent.stderr).toBe(0)
    expect(ndjson(sent.stdout)).toHaveLength(3)
  })

  it('in a terminal: a confirmation that defaults to no, a progress bar on stderr, a table on stdout', async () => {
    const path = file(payoutCsv(payouts(5, 'in-terminal')))
    const tty = {stdin: true, stderr: true, stdout: true}
    const declined = await expectNothingSent(['withdraw', '--batch', path], {tty, input: '\n', columns: 200})
     
    expect(declined.stderr.replace(/\u001B\[\d+m/g, '')).toMatch(/Send 5 withdrawals, R\$ [\d.,]+ in all, to http:\/\/127\.0\.0\.1:\d+\/core\/withdraw\? \[y\/N\]/)
    expect(declined.stderr).toContain('not confirmed: nothing was sent')
    const accepted = await run(['withdraw', '--batch', path], {tty, input: 'y\n', columns: 200})
    expect(accepted.code, accepted.stderr).toBe(0)
    expect(accepted.stderr).toMatch(/█+ 5\/5 {2}done 5 · replayed 0 · failed 0/)
     
    const table = accepted.stdout.replace(/\u001B\[\d+m/g, '')
    expect(table).toMatch(/Line.*External code.*Idempotency key.*Amount.*ID.*Status or error/)
    for (const line of [2, 3, 4, 5, 6]) expect(table).toMatch(new RegExp(`│\\s+${line} │ in-terminal-0000${line - 1}`))
    expect(await heldWithTag('in-terminal')).toHaveLength(5)
  })

  it('--batch excludes the single record\'s flags', async () => {
    const path = file(payoutCsv(payouts(2, 'excluded')))
    const withAmount = await expectNothingSent(['withdraw', '--batch', path, '--amount', '100', '--yes'])
    expect(withAmount.stderr).toMatch(/^Error: --amount cannot be used with --batch$/m)
    const withBody = await expectNothingSent(['tx', 'create', '--batch', path, '--body', path])
    expect(withBody.stderr).toMatch(/--body cannot be used with --batch/)
    const concurrency = await expectNothingSent(['withdraw', '--amount', '100', '--pix-key', 'a@example.com', '--concurrency', '2', '--yes'])
    expect(concurrency.stderr).toMatch(/^Error: --concurrency needs --batch$/m)
  })

  describe('tx create --batch', () => {
    const text = [
      JSON.stringify({amount: 7980, externalCode: 'charges-00001', customerName: 'Maria Silva', customerDocument: '529.982.247-25', item: ['title=T-shirt,unitPrice=2990,quantity=2', {title: 'Cap', unitPrice: 2000}], metadata: {order: '4711'}}),
      JSON.stringify({amount: 1500, 'external-code': 'charges-00002', metadata: ['a=1', 'b=2']}),
      JSON.stringify({amount: 990, externalCode: 'charges-00003', idempotencyKey: 'charge-own-key-0003'}),
    ].join('\n')
    let path: string

    beforeAll(() => {
      path = file(text, 'ndjson')
    })

    it('creates a charge per row, each result with its copy-and-paste code; the same file again answers replays', async () => {
      const result = await run(['tx', 'create', '--batch', path, '--yes', '--output', 'ndjson'])
      expect(result.code, result.stderr).toBe(0)
      const created = ndjson<Result>(result.stdout)
      expect(created.map((row) => [row.line, row.externalCode, row.outcome])).toEqual([
        [1, 'charges-00001', 'done'],
        [2, 'charges-00002', 'done'],
        [3, 'charges-00003', 'done'],
      ])
      expect(created[2].idempotencyKey).toBe('charge-own-key-0003')
      expect(created[0].idempotencyKey).toMatch(/^charge-[0-9a-f]{32}-1$/)
      for (const row of created) expect(row.pixCode).toMatch(/^000201.*6304[0-9A-F]{4}$/)
      expect(result.stderr).toContain(': 3 charges')
      expect(result.stderr).not.toContain('Key types')

      const tx = await run(['tx', 'get', created[0].id!, '--json'])
      expect(JSON.parse(tx.stdout)).toMatchObject({amount: 7980, externalCode: 'charges-00001', items: [{title: 'T-shirt', quantity: 2}, {title: 'Cap'}], metadata: {order: '4711'}})

      const again = await run(['tx', 'create', '--batch', path, '--yes', '--output', 'csv'])
      expect(again.code, again.stderr).toBe(0)
      const lines = again.stdout.trim().split('\r\n')
      expect(lines[0]).toBe('line,externalCode,idempotencyKey,amount,id,status,replayed,outcome,exitCode,error,pixCode')
      expect(lines.slice(1).map((line) => line.split(',')[4])).toEqual(created.map((row) => row.id))
      expect(lines.slice(1).every((line) => line.includes(',true,replayed,0,'))).toBe(true)
    })

    it('checks every row by the rules of tx create; nothing sent', async () => {
      const bad = [
        JSON.stringify({amount: 1000, customerName: 'Maria Silva'}),
        JSON.stringify({amount: 1000, item: 'title=Cap'}),
        JSON.stringify({amount: 1000, physical: true}),
        JSON.stringify({amount: 1000, 'expiration-seconds': 5}),
      ].join('\n')
      const result = await expectNothingSent(['tx', 'create', '--batch', file(bad, 'ndjson'), '--yes'])
      const errors = result.stderr.split('\n').filter((line) => line.startsWith('Error: '))
      expect(errors).toEqual([
        "Error: line 1: customer-document is required: the gateway's reference requires a customer's name and document whenever a customer is given",
        expect.stringMatching(/^Error: line 2: item #1 unitPrice/),
        expect.stringMatching(/^Error: line 3: physical needs an address/),
        expect.stringMatching(/^Error: line 4: expiration-seconds/),
      ])
    })
  })
})
