import {truncateSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {GatewayClient} from '../../src/api/client.js'
import {ProxyError, TlsError} from '../../src/api/errors.js'

import {tempConfigDir} from '../helpers/cli.js'
import {logIn, refusedBeforeSending, runCommand} from '../helpers/context.js'
import {control, startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

const CPF = '529.982.247-25'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('withdraw', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  const cli = (args: string[], extra: {input?: string; env?: Record<string, string>} = {}) =>
    runCommand(['withdraw', ...args], {env: {...env, ...extra.env}, input: extra.input})

  /** Runs a command that must exit 2 having sent nothing at all. */
  const expectNothingSent = (args: string[], message: RegExp) => refusedBeforeSending(sandbox.baseUrl, () => cli(args), message)

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

  /** How many withdrawals the sandbox holds, by its own list. */
  const withdrawals = async () => ((await (await fetch(`${sandbox.baseUrl}/_sandbox/withdrawals`)).json()) as {total: number}).total

  describe('offline', () => {
    it('refuses to send without a terminal and without --yes, exit 2, and the sandbox holds no new withdrawal', async () => {
      const before = await withdrawals()
      const result = await expectNothingSent(['--amount', '1000', '--pix-key', CPF], /^Error: a withdrawal sends money: confirm it with --yes/m)
      expect(result.stderr).toContain('nothing was sent')
      expect(await withdrawals()).toBe(before)
    })

    it.each([
      [CPF, 'CPF'],
      ['529 982 247 25', 'CPF'],
      ['11.222.333/0001-81', 'CNPJ'],
      ['11 222 333 0001 81', 'CNPJ'],
      ['12abc34501de35', 'CNPJ'],
      ['maria@example.com', 'EMAIL'],
      ['+55 11 98765-4321', 'PHONE'],
      ['71c7d9be-4b85-4e43-9f1c-1f3b8b4e9a2d', 'EVP'],
    ])('infers the type of %s as %s and says so on stderr', async (key, type) => {
      const result = await cli(['--amount', '1000', '--pix-key', key, '--dry-run', '--json'])
      expect(result.code).toBe(0)
      expect(result.stderr).toContain(`PIX key type: ${type}, inferred from the key (--pix-key-type sets it).`)
      expect(JSON.parse(result.stdout).request.body.pixKeyType).toBe(type)
    })

    it.each([
      [['--pix-key', 'not-a-key'], /^Error: --pix-key fits no PIX key type: it is none of CPF, CNPJ, EMAIL, PHONE, EVP/m],
      // Not CPF punctuation: refused as a key, as it is as a customer document.
      [['--pix-key', '3.6.8.8.9.2.5.5.4.8.8'], /^Error: --pix-key fits no PIX key type: it is none of CPF, CNPJ, EMAIL, PHONE, EVP \(a CPF of 11 digits, together or in groups of 3, 3, 3 and 2/m],
      [['--pix-key', '3.6.8.8.9.2.5.5.4.8.8', '--pix-key-type', 'CPF'], /^Error: --pix-key is not a CPF: a CPF key has 11 digits \(--pix-key-type CPF takes/m],
      [['--pix-key', '123.456.789-00'], /^Error: --pix-key is not a valid CPF: its check digits do not match$/m],
      [['--pix-key', '11.222.333/0001-80'], /^Error: --pix-key is not a valid CNPJ: its check digits do not match$/m],
      [['--pix-key', '+55 11 3000-0000'], /^Error: --pix-key is not a mobile number/m],
      [['--pix-key', '119.876.543-75'], /^Error: --pix-key is not a valid CPF: its check digits do not match$/m],
      [['--pix-key', '+55 98909-2712'], /^Error: --pix-key has no DDD/m],
      [['--pix-key', '+5561888888888'], /^Error: --pix-key is not a mobile number/m],
      [['--pix-key', CPF, '--pix-key-type', 'EMAIL'], /^Error: --pix-key is not a valid e-mail address; it reads as a CPF key/m],
      [['--pix-key', 'maria@example.com', '--pix-key-type', 'cpf'], /^Error: --pix-key is not a CPF: a CPF key has 11 digits; it reads as an EMAIL key/m],
      [['--pix-key', '123.456.789-00', '--pix-key-type', 'CPF'], /^Error: --pix-key is not a valid CPF: its check digits do not match \(--pix-key-type CPF takes a CPF of 11 digits/m],
      [['--pix-key', '11.222.333/0001-80', '--pix-key-type', 'CNPJ'], /^Error: --pix-key is not a valid CNPJ/m],
      [['--pix-key', '+55 11 3000-0000', '--pix-key-type', 'PHONE'], /^Error: --pix-key is not a mobile number/m],
      [['--pix-key', 'not@an@email', '--pix-key-type', 'EMAIL'], /^Error: --pix-key is not a valid e-mail address/m],
      [['--pix-key', '71c7d9be-4b85-4e43', '--pix-key-type', 'EVP'], /^Error: --pix-key is not a random key/m],
      [['--pix-key', CPF, '--pix-key-type', 'IBAN'], /^Error: --pix-key-type must be one of CPF, CNPJ, EMAIL, PHONE, EVP, got "IBAN"$/m],
    ])('refuses %j with exit 2 naming the flag, before asking anything', async (args, message) => {
      await expectNothingSent(['--amount', '1000', ...args, '--yes'], message)
    })

    it.each([
      [['--pix-key', CPF], /^Error: --amount is required$/m],
      [['--amount', '1000'], /^Error: --pix-key is required$/m],
      [['--amount', '10.00', '--pix-key', CPF], /^Error: --amount takes integer cents, not a decimal: 10.00 is --amount 1000$/m],
      [['--amount', '10000001', '--pix-key', CPF], /^Error: --amount must be from 1 to 10000000 cents$/m],
      [['--amount', '100', '--pix-key', CPF, '--webhook-url', 'http://hooks.example.com'], /^Error: --webhook-url must use https$/m],
      [['--amount', '100', '--pix-key', CPF, '--external-code', 'short'], /^Error: --external-code must be 8 to 255 characters long$/m],
      [['--amount', '100', '--pix-key', CPF, '--idempotency-key', 'short'], /^Error: --idempotency-key must be 8 to 255 characters long$/m],
    ])('refuses %j with exit 2, naming the flag and the rule', async (args, message) => {
      await expectNothingSent([...args, '--yes'], message)
    })

    it('names the --body field that broke a rule, refuses null and unknown fields', async () => {
      const file = join(config.dir, 'withdraw.json')
      writeFileSync(file, JSON.stringify({amount: 1000, pixKey: 'nope', webhookUrl: null, pixkeytype: 'CPF'}))
      const result = await expectNothingSent(['--body', file, '--yes'], /--body field pixKey fits no PIX key type/)
      expect(result.stderr).toContain('--body field webhookUrl must not be null')
      expect(result.stderr).toContain('unknown field pixkeytype')
    })

    it('--dry-run prints the request with the key masked, shows no idempotency key (the real run makes its own), and sends nothing', async () => {
      const before = await stats(sandbox.baseUrl)
      const result = await cli(['--amount', '12345', '--pix-key', CPF, '--external-code', 'payout-0001', '--dry-run'])
      expect(result.code).toBe(0)
      expect((await stats(sandbox.baseUrl)).requests).toBe(before.requests)
      const [requestLine, ...json] = result.stdout.trimEnd().split('\n')
      expect(requestLine).toBe(`POST ${sandbox.baseUrl}/core/withdraw`)
      const body = JSON.parse(json.join('\n'))
      expect(body).toEqual({amount: 12345, pixKey: '*******4725', pixKeyType: 'CPF', externalCode: 'payout-0001'})
      expect(result.stdout).not.toContain('52998224725')
      expect(result.stderr).toContain('Dry run: nothing was sent.')
      expect(result.stderr).toContain('The real run makes its own idempotency key')
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/)
      const asJson = await cli(['--amount', '12345', '--pix-key', CPF, '--dry-run', '--json'])
      const document = JSON.parse(asJson.stdout)
      expect(document).not.toHaveProperty('idempotencyKey')
      expect(document.request.body).not.toHaveProperty('idempotencyKey')
      expect(asJson.stderr).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/)
    })

    it('--dry-run --json gives the request, and honours GATEWAY_WITHDRAW_PATH', async () => {
      const result = await cli(['--amount', '500', '--pix-key', 'maria@example.com', '--idempotency-key', 'payout-key-0001', '--dry-run', '--json'], {
        env: {GATEWAY_WITHDRAW_PATH: '/v2/payouts/pix'},
      })
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout)).toEqual({
        dryRun: true,
        request: {
          method: 'POST',
          url: `${sandbox.baseUrl}/v2/payouts/pix`,
          body: {amount: 500, pixKey: '*************.com', pixKeyType: 'EMAIL', idempotencyKey: 'payout-key-0001'},
        },
        idempotencyKey: 'payout-key-0001',
      })
    })

    it('takes the withdraw path of the profile, and refuses a path that is not one', async () => {
      const other = tempConfigDir()
      try {
        const otherEnv = {GATEWAY_CONFIG_DIR: other.dir}
        const login = await runCommand(['login', '--base-url', sandbox.baseUrl, '--client-id', 'sandbox', '--withdraw-path', '/pix/withdraw'], {
          env: {...otherEnv, GATEWAY_CLIENT_SECRET: 'sandbox-secret'},
        })
        expect(login.code).toBe(0)
        const result = await runCommand(['withdraw', '--amount', '500', '--pix-key', CPF, '--dry-run', '--json'], {env: otherEnv})
        expect(JSON.parse(result.stdout).request.url).toBe(`${sandbox.baseUrl}/pix/withdraw`)
        const bad = await runCommand(['withdraw', '--amount', '500', '--pix-key', CPF, '--dry-run'], {env: {...otherEnv, GATEWAY_WITHDRAW_PATH: 'https://evil.example.com/x'}})
        expect(bad.code).toBe(2)
        expect(bad.stderr).toContain('GATEWAY_WITHDRAW_PATH must be an absolute path such as /core/withdraw')
      } finally {
        other.remove()
      }
    })
  })

  describe('sent', () => {
    const send = async (args: string[], extra: {env?: Record<string, string>} = {}) => {
      const result = await cli([...args, '--yes', '--json'], extra)
      expect(result.code).toBe(0)
      return {result, answer: JSON.parse(result.stdout) as {id: string; status: string; amount: number; idempotencyKey: string; replayed: boolean}}
    }

    it('sends once with --yes: the answer plus the key it made, the withdrawal PENDING in the sandbox', async () => {
      const before = await withdrawals()
      const {answer, result} = await send(['--amount', '15000', '--pix-key', CPF, '--external-code', 'payout-0002'])
      expect(answer).toEqual({id: expect.any(String), externalCode: 'payout-0002', amount: 15000, status: 'PENDING', idempotencyKey: expect.stringMatching(UUID), replayed: false})
      expect(result.stderr).toBe('PIX key type: CPF, inferred from the key (--pix-key-type sets it).\n')
      expect(await withdrawals()).toBe(before + 1)
      expect(sandbox.domain.withdrawals.get(answer.id)).toMatchObject({pixKey: '52998224725', pixKeyType: 'CPF', idempotencyKey: answer.idempotencyKey})
    })

    it.each([
      ['529.982.247-25', undefined, 'CPF', '52998224725'],
      ['11.222.333/0001-81', undefined, 'CNPJ', '11222333000181'],
      ['12.abc.345/01de-35', undefined, 'CNPJ', '12ABC34501DE35'],
      ['Maria@Example.com', undefined, 'EMAIL', 'maria@example.com'],
      ['(11) 98765-4321', 'phone', 'PHONE', '+5511987654321'],
      ['+5551998259765', undefined, 'PHONE', '+5551998259765'],
      ['71C7D9BE-4B85-4E43-9F1C-1F3B8B4E9A2D', undefined, 'EVP', '71c7d9be-4b85-4e43-9f1c-1f3b8b4e9a2d'],
    ])('sends the key %s (type %s) as %s %s, the form the sandbox takes', async (key, given, type, sent) => {
      const {answer} = await send(['--amount', '100', '--pix-key', key, ...(given ? ['--pix-key-type', given] : [])])
      expect(sandbox.domain.withdrawals.get(answer.id)).toMatchObject({pixKey: sent, pixKeyType: type})
    })

    it('prints the withdrawal for a person, the key masked, and the key it made on stderr', async () => {
      const result = await cli(['--amount', '2500', '--pix-key', 'maria@example.com', '--yes'])
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/^✓ Withdrawal created\n {2}ID: +[0-9a-f-]{36}\n {2}Status: +PENDING\n {2}Amount: +R\$ 25,00\n {2}To: +EMAIL key \*+.com\n$/)
      expect(result.stderr).toMatch(/^Idempotency key: [0-9a-f-]{36} \(to retry this exact withdrawal safely, pass --idempotency-key/m)
    })

    it('replays on the same idempotency key: one withdrawal, said to be created earlier; another body is refused', async () => {
      const key = `payout-${Date.now()}`
      const before = await withdrawals()
      const first = await send(['--amount', '4200', '--pix-key', CPF, '--idempotency-key', key])
      expect(first.answer.replayed).toBe(false)
      expect((await runCommand(['sandbox', 'settle', first.answer.id], {env})).code).toBe(0)
      const again = await cli(['--amount', '4200', '--pix-key', CPF, '--idempotency-key', key, '--yes'])
      expect(again.code).toBe(0)
      expect(again.stdout).toContain('✓ Withdrawal (created earlier)')
      expect(again.stdout).toContain(`ID:            ${first.answer.id}`)
      expect(again.stdout).toMatch(/Status: +PAID/)
      expect(again.stderr).toContain(`This withdrawal was created earlier with the idempotency key ${key}: the gateway answered it again, and nothing new was sent out.`)
      expect(again.stderr).toContain('Its current status cannot be looked up (the gateway has no withdrawal lookup): PAID is the status the gateway answered')
      const json = await send(['--amount', '4200', '--pix-key', CPF, '--idempotency-key', key])
      expect(json.answer).toMatchObject({id: first.answer.id, replayed: true, idempotencyKey: key})
      const other = await cli(['--amount', '4300', '--pix-key', CPF, '--idempotency-key', key, '--yes', '--json'])
      expect(other.code).toBe(5)
      expect(JSON.parse(other.stdout).error).toMatchObject({code: 'REJECTED', status: 422})
      expect(await withdrawals()).toBe(before + 1)
    })

    it('sends to the path GATEWAY_WITHDRAW_PATH names, and --output json without --json', async () => {
      const before = (await stats(sandbox.baseUrl)).byRoute['POST /withdraw'] ?? 0
      const result = await cli(['--amount', '100', '--pix-key', CPF, '--yes', '--output', 'json'], {env: {GATEWAY_WITHDRAW_PATH: '/withdraw'}})
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({status: 'PENDING', replayed: false})
      expect((await stats(sandbox.baseUrl)).byRoute['POST /withdraw']).toBe(before + 1)
    })

    it('asks for --yes with --body -, stdin being the body, even in a terminal', async () => {
      const before = await withdrawals()
      const result = await runCommand(['withdraw', '--body', '-'], {env, input: JSON.stringify({amount: 100, pixKey: CPF}), tty: {stdin: true, stdout: true, stderr: true}})
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('--body - reads the request from stdin, which leaves no terminal to ask in: confirm the withdrawal with --yes')
      expect(await withdrawals()).toBe(before)
      const sent = await runCommand(['withdraw', '--body', '-', '--yes', '--json'], {env, input: JSON.stringify({amount: 100, pixKey: CPF})})
      expect(sent.code).toBe(0)
      expect(await withdrawals()).toBe(before + 1)
    })

    it('exits 7 on a 500 and 6 on a 429 once the retries run out, with the key to retry safely', async () => {
      const instant = (args: string[]) => runCommand(['withdraw', ...args], {env, sleep: async () => {}})
      // Four answers: the first attempt and its three retries.
      await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/withdraw', status: 500, count: 4})
      const failed = await instant(['--amount', '100', '--pix-key', CPF, '--yes'])
      expect(failed.code).toBe(7)
      const key = /^Idempotency key: ([0-9a-f-]{36}) /m.exec(failed.stderr)![1]
      expect(failed.stderr).toContain('the withdrawal: the gateway failed (500)')
      expect(failed.stderr).toContain(`gave up after 4 attempts); idempotency key ${key}`)
      await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/withdraw', status: 429, count: 4})
      expect((await instant(['--amount', '100', '--pix-key', CPF, '--yes'])).code).toBe(6)
      // Fewer failures than attempts: the withdrawal goes through, once.
      await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/withdraw', kind: 'reset-after', count: 1})
      const through = await instant(['--amount', '777', '--pix-key', CPF, '--external-code', 'retried-once-1', '--yes', '--json'])
      expect(through.code).toBe(0)
      expect(JSON.parse(through.stdout)).toMatchObject({replayed: true, externalCode: 'retried-once-1'})
      const listed = (await (await fetch(`${sandbox.baseUrl}/_sandbox/withdrawals`)).json()) as {data: Array<{externalCode?: string}>}
      expect(listed.data.filter((withdrawal) => withdrawal.externalCode === 'retried-once-1')).toHaveLength(1)
    })

    it.each([
      ['a TLS handshake', TlsError, 'the TLS handshake with the gateway failed: unable to verify the first certificate'],
      ['a proxy refusing CONNECT', ProxyError, 'the proxy did not carry the request to the gateway: it answered 503 to CONNECT'],
    ])('after a reset that followed the payout, a retry that fails at %s leaves it pending and refuses the same payout again', async (_name, Type, message) => {
      const instant = (args: string[]) => runCommand(['withdraw', ...args], {env, sleep: async () => {}})
      // The transport names the last failure as it would a TLS or proxy failure: "nothing was sent" by itself.
      const original = (GatewayClient.prototype as unknown as {dispatchers: () => Promise<unknown>}).dispatchers
      const spy = vi.spyOn(GatewayClient.prototype as unknown as {dispatchers: () => Promise<unknown>}, 'dispatchers').mockImplementation(async function (this: {transport?: {name: (error: unknown) => Promise<unknown>}}) {
        const result = await original.call(this)
        if (this.transport) this.transport.name = async () => ({Type, message, notSent: true, retryable: false})
        return result
      })
      try {
        const before = await withdrawals()
        await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/withdraw', kind: 'reset-after', count: 4})
        const code = `named-after-reset-${Type.name}`
        const lost = await instant(['--amount', '654', '--pix-key', CPF, '--external-code', code, '--yes'])
        expect(lost.code).toBe(7)
        expect(await withdrawals()).toBe(before + 1)
        expect(lost.stderr).not.toContain('nothing was sent')
        expect(lost.stderr).toContain('an earlier attempt may have reached the gateway: the gateway may have made it')
        expect(lost.stderr).toContain('The withdrawal may or may not have been made: it is pending in the journal.')
        expect(lost.stderr).toContain('gateway journal retry')
        const pending = await runCommand(['journal', 'list', '--pending', '--json'], {env})
        expect(pending.stdout).toContain(code)
        await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/withdraw', kind: 'reset-after', count: 0})
        const again = await instant(['--amount', '654', '--pix-key', CPF, '--external-code', code, '--yes'])
        expect(again.code).toBe(2)
        expect(await withdrawals()).toBe(before + 1)
      } finally {
        spy.mockRestore()
      }
    })

    it('after a connection reset that followed the payout, says it may or may not exist and how to settle it, as tx create does', async () => {
      const instant = (args: string[]) => runCommand(['withdraw', ...args], {env, sleep: async () => {}})
      const before = await withdrawals()
      // Every attempt is carried out by the gateway, then its connection reset: the answer is lost.
      await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/withdraw', kind: 'reset-after', count: 4})
      const lost = await instant(['--amount', '321', '--pix-key', CPF, '--idempotency-key', 'payout-reset-0001', '--yes'])
      expect(lost.code).toBe(7)
      expect(await withdrawals()).toBe(before + 1)
      expect(lost.stderr).toMatch(/connection reset/)
      expect(lost.stderr).toContain('The withdrawal may or may not have been made: it is pending in the journal.')
      expect(lost.stderr).toContain('gateway journal retry')
      expect(lost.stderr).toContain('gateway journal resolve payout-reset-0001 --as done|failed')
      await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/withdraw', kind: 'reset-after', count: 4})
      const json = await instant(['--amount', '322', '--pix-key', CPF, '--idempotency-key', 'payout-reset-0002', '--yes', '--json'])
      expect(json.code).toBe(7)
      const document = JSON.parse(json.stdout)
      expect(document.idempotencyKey).toBe('payout-reset-0002')
      expect(document.error.hint).toContain('may or may not have been made')
    })
  })
  it('a damaged index line naming the code refuses the payout (exit 3, the file and line named), single and batch, and sends nothing', async () => {
    const {indexFile} = await import('../../src/journal/journal.js')
    const code = 'payout-damaged-1'
    const path = join(config.dir, indexFile(code))
    // Cut short by a crash: the line names the code, and the file ends inside it.
    writeFileSync(path, `{"c":${JSON.stringify(code)},"g":"${sandbox.baseUrl}","i":"client:sandbox","f":"withdraw","h":"ab`, {flag: 'a', mode: 0o600})
    const before = await withdrawals()
    const single = await cli(['--amount', '100', '--pix-key', CPF, '--external-code', code, '--yes'])
    expect(single.code, single.stderr).toBe(3)
    expect(single.stderr).toContain(`${path}, line`)
    expect(single.stderr).toContain('nothing was sent')
    const batch = join(config.dir, '..', 'damaged-batch.csv')
    writeFileSync(batch, `amount,pix-key,external-code\n100,${CPF},${code}\n`)
    const rows = await cli(['--batch', batch, '--yes'])
    expect(rows.code, rows.stderr).not.toBe(0)
    expect(rows.stderr).toContain(`${path}, line`)
    expect(await withdrawals()).toBe(before)
    // The test's own planted line goes, so that the other tests' config folder is as it was.
    truncateSync(path, 0)
  })

  it('a damaged journal line naming the code refuses the payout (exit 3, the journal and line named), single and batch, and sends nothing', async () => {
    const {existsSync, readFileSync} = await import('node:fs')
    const code = 'payout-damaged-2'
    const journal = join(config.dir, 'journal.jsonl')
    const before = existsSync(journal) ? readFileSync(journal) : Buffer.alloc(0)
    // A request record whose bytes were damaged (a colon lost): it names the code but cannot be read.
    writeFileSync(journal, `{"type""request","entry":"x","command":"withdraw","request":{"body":{"amount":100,"externalCode":${JSON.stringify(code)}}}}\n`, {flag: 'a', mode: 0o600})
    const line = before.toString('utf8').split('\n').length
    const sent = await withdrawals()
    const single = await cli(['--amount', '100', '--pix-key', CPF, '--external-code', code, '--yes'])
    expect(single.code, single.stderr).toBe(3)
    expect(single.stderr).toContain(`${journal}, line ${line}, names the external code "${code}" but cannot be read`)
    expect(single.stderr).toContain('nothing was sent')
    const batch = join(config.dir, '..', 'damaged-journal-batch.csv')
    writeFileSync(batch, `amount,pix-key,external-code\n100,${CPF},${code}\n`)
    const rows = await cli(['--batch', batch, '--yes'])
    expect(rows.code, rows.stderr).not.toBe(0)
    expect(rows.stderr).toContain(`${journal}, line ${line}`)
    expect(await withdrawals()).toBe(sent)
    writeFileSync(journal, before, {mode: 0o600})
  })
})
