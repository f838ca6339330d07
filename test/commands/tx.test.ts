import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {logIn, refusedBeforeSending, runCommand} from '../helpers/context.js'
import {control, startTestSandbox, tokenFor, type Sandbox} from '../helpers/sandbox.js'

const CPF = '529.982.247-25'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const full = [
  '--amount',
  '7980',
  '--customer-name',
  'Maria Silva',
  '--customer-document',
  CPF,
  '--customer-email',
  'maria@example.com',
  '--customer-mobile',
  '(11) 98765-4321',
  '--item',
  'title=T-shirt,unitPrice=2990,quantity=2',
  '--item',
  'title=Cap,unitPrice=2000',
  '--metadata',
  'order=4711',
]

describe('tx create, tx get and the life-cycle controls, end to end', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  let token: string

  const cli = (args: string[], extra: {input?: string} = {}) => runCommand(args, {env, ...extra})
  const create = async (args: string[] = full) => {
    const result = await cli(['tx', 'create', ...args, '--json'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    return JSON.parse(result.stdout) as {id: string; idempotencyKey: string; pixResponse: {uri: string; qrCodeBase64: string}}
  }
  const lookup = async (id: string) => {
    const response = await fetch(`${sandbox.baseUrl}/core/transaction/${id}`, {headers: {authorization: `Bearer ${token}`}})
    return (await response.json()) as Record<string, any>
  }
  const expectNothingSent = (args: string[], message: RegExp) => refusedBeforeSending(sandbox.baseUrl, () => cli(args), message)

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
    token = await tokenFor(sandbox.baseUrl)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  describe('tx create', () => {
    it('creates a charge with a customer and items, and answers the create response plus the key it made', async () => {
      const created = await create()
      expect(created).toMatchObject({amount: 7980, type: 'TRANSACTION', status: 'PIX_QRCODE_GENERATED'})
      expect(created.id).toMatch(UUID)
      expect(created.idempotencyKey).toMatch(UUID)
      expect(created.pixResponse.uri).toMatch(/^000201/)
      const record = await lookup(created.id)
      expect(record.items).toEqual([
        {title: 'T-shirt', unitPrice: 2990, quantity: 2},
        {title: 'Cap', unitPrice: 2000, quantity: 1},
      ])
      expect(record.customer.name).toBe('Maria Silva')
      expect(record.metadata).toEqual({order: '4711'})
    })

    it('shows the copy-and-paste code, id, status, amount and expiry; the key goes to stderr', async () => {
      const result = await cli(['tx', 'create', '--amount', '1000'])
      expect(result.code).toBe(0)
      expect(result.stdout).toContain('Pix copia e cola:')
      expect(result.stdout).toMatch(/^000201.+6304[0-9A-F]{4}$/m)
      expect(result.stdout).toMatch(/ID: +[0-9a-f-]{36}/)
      expect(result.stdout).toMatch(/Status: +PIX_QRCODE_GENERATED/)
      expect(result.stdout).toMatch(/Amount: +R\$ 10,00/)
      expect(result.stdout).toMatch(/Expires: +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in 30m\)/)
      // Not a terminal: no QR drawing, no colour, and the key note stays off stdout.
      expect(result.stdout).not.toMatch(/[▄█▀]/)
      expect(result.stdout).not.toMatch(/\u001B\[/)
      expect(result.stderr).toMatch(/^Idempotency key: [0-9a-f-]{36} \(to retry this exact charge safely, pass --idempotency-key/)
    })

    it('draws the QR code with --qr, and writes the PNG with --qr-png', async () => {
      const png = join(config.dir, 'qr.png')
      const result = await cli(['tx', 'create', '--amount', '1000', '--qr', '--qr-png', png])
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/[▄█▀]{10}/)
      const id = /ID: +(\S+)/.exec(result.stdout)![1]
      const record = await lookup(id)
      const written = readFileSync(png)
      expect(written.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')
      expect(written.toString('base64')).toBe(record.pixResponse.qrCodeBase64.replace(/^data:image\/png;base64,/, ''))
    })

    it('replays with the same idempotency key and refuses the key with another body', async () => {
      const key = `order-${Date.now()}`
      const first = await create(['--amount', '1500', '--idempotency-key', key])
      // Paid since: the replay says the charge was created earlier and shows its status now, not the first answer's.
      expect((await cli(['sandbox', 'pay', first.id])).code).toBe(0)
      const replay = await cli(['tx', 'create', '--amount', '1500', '--idempotency-key', key, '--json'])
      expect(replay.code).toBe(0)
      expect(replay.stderr).toBe(`This charge was created earlier with the idempotency key ${key}: the gateway answered with the original record. The status shown is its current one.\n`)
      const again = JSON.parse(replay.stdout)
      expect(again).toMatchObject({id: first.id, idempotencyKey: key, replayed: true, status: 'PAID'})
      const human = await cli(['tx', 'create', '--amount', '1500', '--idempotency-key', key])
      expect(human.stdout).toMatch(/Status: +PAID/)
      expect(human.stderr).toContain('created earlier')
      const other = await cli(['tx', 'create', '--amount', '1600', '--idempotency-key', key, '--json'])
      expect(other.code).toBe(5)
      expect(JSON.parse(other.stdout).error).toMatchObject({code: 'REJECTED', status: 422})
    })

    it('takes a whole body from a file or stdin, flags overriding its fields', async () => {
      const body = {amount: 500, customer: {name: 'João Souza', document: CPF}, externalCode: 'from-a-file'}
      const file = join(config.dir, 'body.json')
      writeFileSync(file, JSON.stringify(body))
      const fromFile = await create(['--body', file, '--amount', '700'])
      expect((await lookup(fromFile.id)).amount).toBe(700)
      const result = await cli(['tx', 'create', '--body', '-', '--json'], {input: JSON.stringify(body)})
      expect(result.code).toBe(0)
      const record = await lookup(JSON.parse(result.stdout).id)
      expect(record).toMatchObject({amount: 500, externalCode: 'from-a-file', customer: {name: 'João Souza'}})
    })

    it('reads a document typed with spaces as the CPF it is, and sends it with its formatting removed', async () => {
      const created = await create(['--amount', '900', '--customer-name', 'Ana Lima', '--customer-document', '529 982 247 25'])
      const stored = [...sandbox.domain.records.newestFirst()].find((entry) => entry.id === created.id)
      expect(stored?.data.customer).toMatchObject({document: {value: '52998224725', type: 'CPF'}})
    })

    it('creates a physical product with its address', async () => {
      const created = await create([
        '--amount',
        '5000',
        '--physical',
        '--address-postal-code',
        '01310-100',
        '--address-number',
        '1000',
        '--address-street',
        'Avenida Paulista',
        '--address-neighborhood',
        'Bela Vista',
        '--address-city',
        'São Paulo',
        '--address-state',
        'SP',
        '--address-country',
        'BR',
      ])
      expect(await lookup(created.id)).toMatchObject({isInfoProduct: false, address: {postalCode: '01310-100', city: 'São Paulo'}})
    })

    it.each([
      [['--amount', '10.00'], /^Error: --amount takes integer cents, not a decimal: 10.00 is --amount 1000$/m],
      [['--amount', '0'], /^Error: --amount must be from 1 to 10000000 cents$/m],
      [['--amount', '10000001'], /--amount must be from 1 to 10000000 cents/],
      [[], /^Error: --amount is required$/m],
      [['--amount', '100', '--customer-name', 'Ana', '--customer-document', '123.456.789-00'], /--customer-document must be a valid CPF or CNPJ/],
      [['--amount', '100', '--customer-name', 'Ana', '--customer-document', '3.6.8.8.9.2.5.5.4.8.8'], /^Error: --customer-document must be a valid CPF or CNPJ, written as one: a CPF is 11 digits, together or in groups of 3, 3, 3 and 2/],
      [['--amount', 'R$ 1.050,00'], /^Error: --amount takes integer cents, not a decimal: R\$ 1\.050,00 is --amount 105000\n$/],
      [['--amount', '100', '--customer-document', CPF], /^Error: --customer-name is required: the gateway's reference requires a customer's name and document whenever a customer is given\n$/],
      [['--amount', '100', '--webhook-url', 'http://hooks.example.com'], /--webhook-url must use https/],
      [['--amount', '100', '--webhook-url', 'https://hooks.example.com/x#frag'], /--webhook-url must not carry a fragment/],
      [['--amount', '100', '--external-code', 'short'], /--external-code must be 8 to 255 characters long/],
      [['--amount', '100', '--idempotency-key', 'short'], /--idempotency-key must be 8 to 255 characters long/],
      [['--amount', '100', '--expiration-seconds', '59'], /--expiration-seconds must be an integer from 60 to 86400/],
      [['--amount', '100', '--physical'], /--physical needs an address/],
      [['--amount', '100', '--item', 'title=Cap,unitPrice=100', '--item', 'title=Cap,unitPrice=200'], /--item #2 title must be unique/],
      [['--amount', '100', '--item', 'title=Cap,unitPrice=100,quantity=101'], /--item #1 quantity must be an integer from 1 to 100/],
      [['--amount', '100', '--customer-name', 'Ana', '--customer-document', CPF, '--customer-mobile', '(11) 3000-0000'], /--customer-mobile must be a Brazilian mobile number/],
      [['--amount', '100', '--customer-name', 'Ana', '--customer-document', CPF, '--customer-birthdate', '1990-01-01T10:00:00'], /--customer-birthdate must be an ISO date without time/],
      [['--amount', '100', '--customer-name', 'Ana', '--customer-document', CPF, '--customer-ip', '300.1.1.1'], /--customer-ip must be a valid IPv4 or IPv6 address/],
      [['--amount', '100', '--body', '/nonexistent/body.json'], /--body: cannot read/],
    ])('refuses %j with exit 2, naming the flag and the rule, and sends nothing', async (args, message) => {
      await expectNothingSent(['tx', 'create', ...args], message)
    })

    it('refuses an unknown field of a --body file', async () => {
      const file = join(config.dir, 'typo.json')
      writeFileSync(file, JSON.stringify({amount: 100, externalcode: 'abcdefgh'}))
      await expectNothingSent(['tx', 'create', '--body', file], /unknown field externalcode/)
    })

    it('lists every problem, one line each, and as one JSON document under --json', async () => {
      const args = ['tx', 'create', '--amount', '1.5', '--webhook-url', 'ftp://x']
      const human = await cli(args)
      expect(human.code).toBe(2)
      expect(human.stderr.trim().split('\n')).toEqual(['Error: --amount takes integer cents, not a decimal: 1.5 is --amount 150'])
      const many = await cli(['tx', 'create', '--amount', '100', '--webhook-url', 'ftp://x', '--external-code', 'x', '--json'])
      expect(many.code).toBe(2)
      const error = JSON.parse(many.stdout).error
      expect(error.code).toBe('USAGE')
      expect(error.messages).toEqual(['--webhook-url must use https', '--external-code must be 8 to 255 characters long'])
    })

    it('exits 6 on a 429 and 7 on a 500 once the retries run out, naming the key to reuse', async () => {
      const instant = {sleep: async () => {}}
      await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', status: 429, count: 4})
      const limited = await runCommand(['tx', 'create', '--amount', '100', '--json'], {env, ...instant})
      expect(limited.code).toBe(6)
      const document = JSON.parse(limited.stdout)
      expect(document.error.code).toBe('RATE_LIMITED')
      expect(document.idempotencyKey).toMatch(UUID)
      expect(document.error.message).toContain(`idempotency key ${document.idempotencyKey}`)
      expect(document.error.message).toContain('gave up after 4 attempts')
      await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', status: 500, count: 4})
      const failed = await runCommand(['tx', 'create', '--amount', '100', '--idempotency-key', 'order-4711-500'], {env, ...instant})
      expect(failed.code).toBe(7)
      expect(failed.stderr).toContain('the gateway failed (500)')
      expect(failed.stderr).toContain('--idempotency-key order-4711-500')
      // One failure fewer than the attempts: the retry creates the charge.
      await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'POST /core/transaction', status: 503, count: 3})
      const retried = await runCommand(['tx', 'create', '--amount', '100', '--json'], {env, ...instant})
      expect(retried.code).toBe(0)
    })
  })

  describe('tx get', () => {
    it('prints the record exactly as the gateway returned it under --json', async () => {
      const {id} = await create()
      const result = await cli(['tx', 'get', id, '--json'])
      expect(result.code).toBe(0)
      const printed = JSON.parse(result.stdout)
      const direct = await lookup(id)
      // The current status's duration grows between the two reads; everything else is identical.
      printed.statusHistory.at(-1).durationInMilliseconds = direct.statusHistory.at(-1).durationInMilliseconds
      expect(printed).toEqual(direct)
    })

    it('shows amounts in BRL, the timeline, the parties, the items and the payment', async () => {
      const {id} = await create()
      expect((await cli(['sandbox', 'pay', id])).code).toBe(0)
      const result = await cli(['tx', 'get', id])
      expect(result.code).toBe(0)
      const out = result.stdout
      expect(out).toContain(`Transaction ${id}  PAID`)
      expect(out).toMatch(/Amount: +R\$ 79,80/)
      expect(out).toMatch(/Status history\n {2}○ .+ PENDING +\S+\n {2}○ .+ PIX_QRCODE_GENERATED +\S+\n {2}● .+ PAID +\S+ so far/)
      expect(out).toMatch(/Customer\n {2}Name: +Maria Silva\n {2}Document: +\*+\d{4} \(CPF\)/)
      expect(out).toContain('2 × T-shirt  R$ 29,90 each = R$ 59,80')
      expect(out).toMatch(/Payment\n {2}Paid at: .+\n {2}End-to-end: +E\d{20}[A-Z0-9]{11}/)
      expect(out).not.toContain(CPF.replace(/\D/g, ''))
    })

    it('exits 2 for a bad id without sending, and 4 for an unknown one', async () => {
      await expectNothingSent(['tx', 'get', 'not-a-uuid'], /ID must be a UUID/)
      const missing = await cli(['tx', 'get', '00000000-0000-4000-8000-000000000000'])
      expect(missing.code).toBe(4)
      expect(missing.stderr).toContain('not found (404)')
    })

    it('--watch exits 0 once the record is paid, printing each change to stderr', async () => {
      const {id} = await create()
      const watching = cli(['tx', 'get', id, '--watch', '--interval', '100ms', '--json'])
      await new Promise((resolve) => setTimeout(resolve, 700))
      expect((await cli(['sandbox', 'pay', id])).code).toBe(0)
      const result = await watching
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({id, status: 'PAID'})
      expect(result.stderr).toMatch(/^\d\d:\d\d:\d\d UTC(?:[+-]\d+(?::\d\d)?)? PIX_QRCODE_GENERATED\n\d\d:\d\d:\d\d UTC(?:[+-]\d+(?::\d\d)?)? PIX_QRCODE_GENERATED → PAID\n$/)
    })

    it('--watch prints its times in the operator\'s zone (TZ), with the zone, as the tables do', async () => {
      const {id} = await create()
      const now = Date.parse('2026-11-21T14:03:07Z')
      const zoned = await runCommand(['tx', 'get', id, '--watch', '--until', 'PIX_QRCODE_GENERATED'], {env: {...env, TZ: 'America/Sao_Paulo'}, now: () => now})
      expect(zoned.code, zoned.stderr).toBe(0)
      expect(zoned.stderr).toMatch(/^11:03:07 UTC-3 PIX_QRCODE_GENERATED\n/)
      const utc = await runCommand(['tx', 'get', id, '--watch', '--until', 'PIX_QRCODE_GENERATED'], {env: {...env, TZ: 'UTC'}, now: () => now})
      expect(utc.stderr).toMatch(/^14:03:07 UTC PIX_QRCODE_GENERATED\n/)
    })

    it('--watch in human mode shows the record once it reaches --until', async () => {
      const {id} = await create()
      expect((await cli(['sandbox', 'pay', id])).code).toBe(0)
      const watching = cli(['tx', 'get', id, '--watch', '--until', 'REFUNDED', '--interval', '100ms'])
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect((await cli(['sandbox', 'refund', id, '--amount', '1000'])).code).toBe(0)
      const result = await watching
      expect(result.code).toBe(0)
      expect(result.stdout).toContain(`Transaction ${id}  REFUNDED`)
      expect(result.stdout).toMatch(/Refund\n {2}Amount: +R\$ 10,00/)
      expect(result.stderr).toContain('PAID → REFUNDED')
    })

    it('--watch exits 8 when it times out', async () => {
      const {id} = await create()
      const result = await cli(['tx', 'get', id, '--watch', '--interval', '100ms', '--timeout', '600ms', '--json'])
      expect(result.code).toBe(8)
      const error = JSON.parse(result.stdout).error
      expect(error).toMatchObject({code: 'WATCH_TIMEOUT', exitCode: 8, body: {id, status: 'PIX_QRCODE_GENERATED'}})
    })

    it('--watch exits 9 when the record settles in another final status', async () => {
      const {id} = await create()
      expect((await cli(['sandbox', 'fail', id])).code).toBe(0)
      const result = await cli(['tx', 'get', id, '--watch', '--interval', '100ms'])
      expect(result.code).toBe(9)
      expect(result.stderr).toContain(`transaction ${id} settled in FAILED, not PAID`)
    })

    it('--watch --until a status the record can no longer reach exits 9 at once', async () => {
      const {id} = await create()
      expect((await cli(['sandbox', 'pay', id])).code).toBe(0)
      let slept = 0
      const result = await runCommand(['tx', 'get', id, '--watch', '--until', 'PENDING', '--interval', '10s'], {
        env,
        sleep: async () => {
          slept += 1
        },
      })
      expect(result.code).toBe(9)
      expect(slept).toBe(0)
      expect(result.stderr).toContain(`transaction ${id} is PAID, from which it can no longer become PENDING`)
    })

    it('--watch reaches PAID by itself when the sandbox pays QR codes automatically', async () => {
      const auto = await startTestSandbox({autoPayMs: 300})
      try {
        const autoEnv = {...env, GATEWAY_BASE_URL: auto.baseUrl, GATEWAY_CLIENT_ID: 'sandbox', GATEWAY_CLIENT_SECRET: 'sandbox-secret'}
        const created = await runCommand(['tx', 'create', '--amount', '100', '--json'], {env: autoEnv})
        expect(created.code).toBe(0)
        const result = await runCommand(['tx', 'get', JSON.parse(created.stdout).id, '--watch', '--interval', '100ms', '--json'], {env: autoEnv})
        expect(result.code).toBe(0)
        expect(JSON.parse(result.stdout).status).toBe('PAID')
      } finally {
        await auto.close()
      }
    })
  })

  describe('sandbox life-cycle controls', () => {
    it('pays, refunds in part, and refuses an illegal step with exit 5', async () => {
      const {id} = await create()
      const paid = await cli(['sandbox', 'pay', id, '--json'])
      expect(paid.code).toBe(0)
      expect(JSON.parse(paid.stdout)).toMatchObject({status: 'PAID', amountPaid: 7980})
      const refunded = await cli(['sandbox', 'refund', id, '--amount', '2990'])
      expect(refunded.code).toBe(0)
      expect(refunded.stdout).toContain(`transaction ${id} is now REFUNDED`)
      expect(refunded.stdout).toContain('Refunded R$ 29,90')
      const again = await cli(['sandbox', 'pay', id])
      expect(again.code).toBe(5)
      expect(again.stderr).toContain('cannot pay a record in status REFUNDED')
    })

    it('opens an infraction, blocks and fails', async () => {
      const a = await create()
      expect((await cli(['sandbox', 'pay', a.id])).code).toBe(0)
      const infraction = JSON.parse((await cli(['sandbox', 'infraction', a.id, '--json'])).stdout)
      expect(infraction).toMatchObject({status: 'INFRACTION', infractionAmount: 7980})
      const b = await create()
      expect((await cli(['sandbox', 'pay', b.id])).code).toBe(0)
      expect(JSON.parse((await cli(['sandbox', 'block', b.id, '--json'])).stdout).status).toBe('BLOCKED')
      const c = await create()
      const failed = JSON.parse((await cli(['sandbox', 'fail', c.id, '--json'])).stdout)
      expect(failed.status).toBe('FAILED')
      expect(failed.errorMessage).toBeTruthy()
    })

    it('checks the id and the amount before sending', async () => {
      await expectNothingSent(['sandbox', 'pay', 'nope'], /ID must be a UUID/)
      await expectNothingSent(['sandbox', 'refund', '00000000-0000-4000-8000-000000000000', '--amount', '1.5'], /--amount takes integer cents/)
    })
  })
})
