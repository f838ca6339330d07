import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'
import {recordFigures} from '../helpers/figures.js'
import {TRANSACTION_RECORD_FIELDS, TX_CREATE_RECORD_FIELDS, WITHDRAW_RECORD_FIELDS} from '../../src/output/fields.js'

/**
 * Random wrong values for every flag of every command, run in-process through the command
 * context: each must exit 2 with one line that names the flag, no stack trace, and send nothing.
 */

const manifest = JSON.parse(readFileSync(fileURLToPath(new URL('../../oclif.manifest.json', import.meta.url)), 'utf8')) as {
  commands: Record<string, {flags: Record<string, {type: string; helpGroup?: string; options?: string[]}>; args: Record<string, {required?: boolean}>}>
}

const UUID = '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11'
const SEED = 20261122

// Building blocks of wrong values.
const emoji = fc.constantFrom('💸', '🇧🇷', '👍🏽', '🙂', '🧾')
const control = fc.constantFrom('\u0000', '\u0007', '\u001b[31m', '\r', '\n', '\t', '\u007f', '\u202e')
const huge = fc.integer({min: 300, max: 4000}).map((length) => 'x'.repeat(length))
const hugeDigits = fc.integer({min: 30, max: 400}).map((length) => '9'.repeat(length))
const anyText = fc.string({unit: 'binary', maxLength: 40})
/** A text that holds at least one character no plain field accepts: a control character or an emoji. */
const tainted = fc.tuple(fc.string({maxLength: 10}), fc.oneof(control, emoji), fc.string({maxLength: 10})).map(([a, b, c]) => `${a}${b}${c}`)
const junk = fc.oneof(fc.constant(''), fc.constant(' '), control, emoji, huge, tainted)

const negative = fc.integer({min: -100_000_000, max: -1}).map(String)
const decimal = fc.tuple(fc.integer({min: 0, max: 99_999}), fc.integer({min: 1, max: 99})).map(([units, cents]) => `${units}.${String(cents).padStart(2, '0')}`)
const notANumber = fc.oneof(fc.constantFrom('abc', '1e3', '0x10', '١٠٠', '10 reais', 'NaN', 'Infinity', '--1'), junk)
/** Cents outside 1..10,000,000, decimals, negatives, and text. */
const wrongCents = fc.oneof(negative, decimal, fc.constant('0'), fc.integer({min: 10_000_001, max: Number.MAX_SAFE_INTEGER}).map(String), hugeDigits, notANumber)
const wrongInteger = (min: number, max: number) =>
  fc.oneof(
    fc.integer({min: Number.MIN_SAFE_INTEGER, max: min - 1}).map(String),
    fc.integer({min: max + 1, max: Number.MAX_SAFE_INTEGER}).map(String),
    decimal,
    notANumber,
  )
const lengthOutside = (min: number, max: number) =>
  fc.oneof(
    fc.string({unit: 'binary', maxLength: min - 1}).filter((value) => value.length < min),
    fc.integer({min: max + 1, max: max + 3000}).map((length) => 'a'.repeat(length)),
  )
const notIn = (options: readonly string[]) => fc.oneof(anyText, junk).filter((value) => !options.includes(value))
const malformedUuid = fc.oneof(
  fc.constantFrom('3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c1', '3f0c1c8e2a4b4f7e9d516b8f0a6e2c11x', 'g0000000-0000-4000-8000-000000000000', '{3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11}'),
  fc.uuid().map((uuid) => `${uuid}0`),
  fc.uuid().map((uuid) => uuid.replaceAll('-', '_')),
  junk,
)
const malformedDate = fc.oneof(
  fc.constantFrom('2026-13-01T00:00:00Z', '2026-02-30T00:00:00Z', '31/02/2026', '11/27/2026', '20-11-2026', '20/11/26', 'soon', '2026-11-20T25:00:00Z', '5 days', '1.5d', '2026-11-20T10:00Z+99'),
  junk,
)
const malformedDuration = fc.oneof(fc.constantFrom('abc', 'soon', '0', '0s', '-5s', '5 minutes', '1.5.5s', '10x', 'ms'), junk)
const wrongUrl = fc.oneof(fc.constantFrom('http://hooks.example.com/x', 'https://localhost', 'https://hooks.example.com/x#frag', 'ftp://example.com', 'example.com', 'https://', '//example.com'), junk)
const wrongDocument = fc.oneof(
  fc.constantFrom('529.982.247-24', '111.111.111-11', '12.345.678/0001-00', '12abc34501de36', '1234567890', '529982247250'),
  fc.string({unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 10}),
  fc.string({unit: fc.constantFrom(...'0123456789'), minLength: 15, maxLength: 30}),
  junk,
)
const wrongName = fc.oneof(tainted, fc.constantFrom('', '   ', 'Ana@Lima', 'Ana_Lima', 'Ana <script>', 'Ana#1'))
const wrongPhone = fc.oneof(fc.constantFrom('(00) 98765-4321', '(11) 8765-432', '123', '+1 555 0100', '(11) 987654-3210'), junk)
const wrongPath = fc.string({unit: fc.constantFrom(...'abcxyz019-_'), minLength: 1, maxLength: 12}).map((name) => `/no/such/dir/${name}`)

/** Wrong values by flag name, for every command that has the flag. */
/** A --fields list that names something no record has, or is no list of names. */
const RECORD_FIELDS = new Set<string>([...TX_CREATE_RECORD_FIELDS, ...TRANSACTION_RECORD_FIELDS, ...WITHDRAW_RECORD_FIELDS])
const wrongFields = fc.oneof(
  fc.stringMatching(/^[a-zA-Z.]{1,20}$/).filter((name) => !RECORD_FIELDS.has(name)).map((name) => `id,${name}`),
  fc.constantFrom('id,,status', ',', 'id,', ' '),
)

const WRONG: Record<string, fc.Arbitrary<string>> = {
  fields: wrongFields,
  // tx create
  amount: wrongCents,
  'external-code': lengthOutside(8, 255),
  'idempotency-key': lengthOutside(8, 255),
  'webhook-url': wrongUrl,
  'expiration-seconds': wrongInteger(60, 86_400),
  'customer-name': wrongName,
  'customer-document': wrongDocument,
  'customer-email': fc.oneof(fc.constantFrom('maria', 'maria@', '@example.com', 'maria@@example.com', 'maria example@x.com'), junk),
  'customer-mobile': wrongPhone,
  'customer-landline': fc.oneof(fc.constantFrom('(11) 98765-4321', '(00) 3000-0000', '3000-0000', '123'), junk),
  'customer-ip': fc.oneof(fc.constantFrom('300.1.1.1', '1.2.3', '::g', '1.2.3.4.5', 'localhost'), junk),
  'customer-birthdate': malformedDate,
  'seller-name': wrongName,
  'seller-document': wrongDocument,
  'address-postal-code': fc.oneof(fc.constantFrom('1234-567', '0131010', '013101000', 'ABCDE-FGH'), junk),
  'address-number': fc.oneof(fc.constantFrom('12A', 'S/N', '12345678901', '-1'), junk),
  'address-street': lengthOutside(2, 200),
  'address-neighborhood': lengthOutside(2, 100),
  'address-city': lengthOutside(2, 100),
  'address-state': lengthOutside(2, 50),
  'address-country': lengthOutside(2, 60),
  'address-complement': lengthOutside(2, 150),
  item: fc.oneof(
    fc.constantFrom('title=Cap', 'unitPrice=100', 'title=C,unitPrice=100', 'title=Cap,unitPrice=-1', 'title=Cap,unitPrice=1.50', 'title=Cap,unitPrice=100,quantity=0', 'title=Cap,unitPrice=100,quantity=101', 'colour=red', '{"title":', '[]'),
    wrongCents.map((cents) => `title=Cap,unitPrice=${cents}`),
    junk,
  ),
  metadata: fc.oneof(fc.constantFrom('order', '=4711', ''), fc.string({maxLength: 10}).filter((value) => !value.includes('=') || value.startsWith('='))),
  body: wrongPath,
  'qr-png': wrongPath.map((path) => `${path}/q.png`),
  // tx get
  interval: malformedDuration,
  until: notIn(['PENDING', 'PIX_QRCODE_GENERATED', 'PAID', 'PROCESSING_REFUND', 'PROCESSING_INFRACTION', 'REFUNDED', 'INFRACTION', 'FAILED', 'BLOCKED']),
  output: notIn(['table', 'json', 'ndjson', 'csv', 'text']),
  // deposits list
  status: notIn(['PENDING', 'PIX_QRCODE_GENERATED', 'PAID', 'PROCESSING_REFUND', 'PROCESSING_INFRACTION', 'REFUNDED', 'INFRACTION', 'FAILED', 'BLOCKED', 'DEPOSIT_PIXKEY_GENERATED', 'PENDING_COMPLIANCE'].flatMap((status) => [status, status.toLowerCase()])),
  origin: notIn(['QRCODE', 'PIX_KEY', 'qrcode', 'pix_key']),
  from: malformedDate,
  to: malformedDate,
  'min-amount': wrongCents,
  'max-amount': wrongCents,
  // Page and page size: positive integers; the gateway judges the rest (decisions.md).
  page: fc.oneof(fc.integer({min: -1000, max: 0}).map(String), decimal, notANumber),
  'per-page': fc.oneof(fc.integer({min: -1000, max: 0}).map(String), decimal, notANumber),
  concurrency: wrongInteger(1, 16),
  // journal retry: a key the journal does not hold
  key: fc.oneof(anyText, junk),
  // journal resolve
  as: notIn(['done', 'failed', 'not-sent']),
  id: malformedUuid,
  note: fc.oneof(lengthOutside(1, 200), tainted, fc.constant('   ')),
  // sandbox start
  host: fc.oneof(fc.constantFrom('0.0.0.0', '192.168.0.10', 'example.com', '::', '8.8.8.8'), junk),
  port: wrongInteger(0, 65_535),
  'token-ttl': wrongInteger(1, 86_400 * 30),
  'auto-pay': fc.oneof(fc.integer({min: -1000, max: 0}).map(String), decimal, notANumber),
  'seed-deposits': fc.oneof(negative, decimal, notANumber),
  'seed-reconcile': fc.oneof(negative, decimal, notANumber),
  // sandbox start --expected-file: it needs --seed-reconcile
  'expected-file': wrongPath,
  'forward-webhooks': fc.oneof(fc.constantFrom('ftp://127.0.0.1:4020/', 'example.com', 'https://', '//127.0.0.1'), junk),
  faults: fc.oneof(fc.constantFrom('-0.1', '1.5', '30%', '0,3', 'half'), negative, junk),
  'fault-kinds': fc.oneof(fc.constantFrom('404', 'timeout', '500,,503', 'RESET', '500;503'), junk),
  'fault-seed': fc.oneof(decimal, notANumber),
  latency: fc.oneof(negative, decimal, notANumber),
  // webhooks listen: a tunnel's host name alone, no scheme, port, path or spaces
  'public-host': fc.oneof(fc.constantFrom('', ' ', 'https://abc.ngrok.app', 'abc.ngrok.app:443', 'abc.ngrok.app/hooks', 'a b.example', '-abc.example', 'abc..example'), control),
  // deposits reconcile: a file that is not there
  expected: wrongPath,
  // deposits summary
  chart: fc.oneof(notIn(['none', 'png']), fc.constantFrom('svg', 'png=x')),
  // withdraw
  'pix-key': fc.oneof(fc.constantFrom('not-a-key', '123', 'maria@', '+55 11 1234', '529.982.247-24', '12.345.678/0001-00', 'g0000000-0000-4000-8000-000000000000', '+1 555 0100', '3f0c1c8e-2a4b-4f7e-9d51', '11987654321'), junk),
  'pix-key-type': notIn(['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP', 'cpf', 'cnpj', 'email', 'phone', 'evp']),
  // withdraw --batch and tx create --batch: a file that is not there, and limits that are no limits
  batch: wrongPath,
  'max-rows': wrongInteger(1, 1_000_000),
  'max-total': fc.oneof(fc.integer({min: Number.MIN_SAFE_INTEGER, max: 0}).map(String), fc.constant('0'), negative, decimal, notANumber),
  // webhooks listen and resend
  'forward-to': fc.oneof(fc.constantFrom('ftp://127.0.0.1:3000/', 'ftp://127.0.0.1:9/', 'example.com', 'http://', 'https://', '//127.0.0.1'), junk),
  'forward-timeout': malformedDuration,
  'reference-id': fc.oneof(fc.constant(''), control),
  tag: fc.oneof(fc.constant(''), control),
  'override-url': wrongUrl,
  // withdraw and login
  'withdraw-path': fc.oneof(fc.constantFrom('core/withdraw', 'https://example.com/withdraw', 'https://api.example.com/withdraw', '/with draw', '/core withdraw', '/withdraw?x=1', '/core/withdraw?x=1', '/withdraw#x', '/core/withdraw#x', '/core/../withdraw', ''), control, junk),
  'client-id': fc.oneof(fc.constantFrom('', ' ', '\t'), tainted.filter((value) => /[\u0000-\u001f\u007f]/.test(value))),
  // login: a client certificate, its key, a .p12 and a CA file that are not there
  cert: wrongPath,
  p12: wrongPath,
  // deposits list and summary: a file in a folder that is not there
  'output-file': wrongPath,
  'ca-file': wrongPath,
  // global
  'base-url': wrongUrl.filter((url) => !/^https:\/\/(localhost|hooks\.example\.com)/.test(url)),
  timeout: malformedDuration,
  retries: wrongInteger(0, 10),
}

/** Wrong values of a flag that one command reads otherwise than the others. */
const WRONG_IN: Record<string, Record<string, fc.Arbitrary<string>>> = {
  // login's --key is the client certificate's key file (journal retry's --key is an idempotency key).
  login: {key: wrongPath},
  // A listener may listen on any address of this machine (it warns when that is not loopback).
  'webhooks listen': {host: fc.oneof(fc.constantFrom('', ' ', 'not a host', '999.1.1.1', 'example.invalid'), control)},
  // A resend may go to a local listener: https or loopback http.
  'webhooks resend': {'override-url': wrongUrl.filter((url) => !/^https:\/\/localhost/.test(url))},
}

/** Tried on every flag: empty, a line break, control characters, an emoji, a huge string. */
const HUGE = 'x'.repeat(5000)
const ALWAYS = ['', 'a\nb', '\u001b[2J\u0007', '💸', HUGE]
/**
 * Those that are right for a flag: a name of letters may be long; odd file names can be written;
 * address fields have only length rules (the reference gives no others).
 */
const ADDRESS_TEXT = ['a\nb', '\u001b[2J\u0007', '💸']
const RIGHT: Record<string, string[]> = {
  ...Object.fromEntries(['street', 'neighborhood', 'city', 'state', 'country', 'complement'].map((field) => [`address-${field}`, ADDRESS_TEXT])),
  'customer-name': [HUGE],
  'seller-name': [HUGE],
  'qr-png': ['a\nb', '\u001b[2J\u0007', '💸'],
  'output-file': ['a\nb', '\u001b[2J\u0007', '💸'],
  'client-id': ['💸', HUGE],
  // Ids and tags are opaque text to the CLI: any printable one may be a notification's.
  'reference-id': ['💸', HUGE],
  tag: ['💸', HUGE],
}
const WRONG_ALWAYS = (flag: string, value: string) => !(RIGHT[flag] ?? []).includes(value)

/** Flags no value of which is wrong to the CLI: the gateway is the judge. */
const EXEMPT: Record<string, string> = {
  profile: 'any name is a profile name; an unknown one has no login (exit 3)',
  snapshot: 'opaque: only the gateway knows its snapshots (answered 422)',
  message: 'free text: the error message a failed withdrawal is given (sandbox settle --fail)',
  sheet: 'any text names a sheet: a workbook without it is refused when it is read (exit 2), and a CSV has none',
}

/** Valid flags for each command, so that the one wrong flag is the only problem. */
const VALID: Record<string, string[]> = {
  // --fault-kinds and --fault-seed need --faults; a value taken for right would start a sandbox on any port.
  'sandbox start': ['--port=0', '--faults=0.3'],
  // A value taken for right would pay out: the check that nothing was sent catches it.
  withdraw: ['--amount=1000', '--pix-key=maria@example.com', '--yes'],
  'webhooks listen': ['--port=0'],
  // --expected is required; the window's flags are checked before the file is read.
  'deposits reconcile': ['--expected=-'],
  // --id goes with --as done; the key is not in the journal, but the flags are checked first.
  'journal resolve': ['--as=done'],
  'webhooks resend': ['--from=10m'],
  'tx create': [
    '--amount=7980',
    '--external-code=order-000001',
    '--idempotency-key=prop-key-0001',
    '--webhook-url=https://hooks.example.com/pix',
    '--expiration-seconds=600',
    '--customer-name=Maria Silva',
    '--customer-document=529.982.247-25',
    '--customer-email=maria@example.com',
    '--customer-mobile=(11) 98765-4321',
    '--customer-landline=(11) 3000-0000',
    '--customer-ip=10.0.0.1',
    '--customer-birthdate=1990-01-01',
    '--seller-name=Loja Azul',
    '--seller-document=12ABC34501DE35',
    '--physical',
    '--address-postal-code=01310-100',
    '--address-number=1000',
    '--address-street=Avenida Paulista',
    '--address-neighborhood=Bela Vista',
    '--address-city=São Paulo',
    '--address-state=SP',
    '--address-country=BR',
    '--address-complement=Sala 1',
    '--item=title=Cap,unitPrice=7980',
    '--metadata=order=4711',
  ],
}

/** A second set of valid flags for a command that reads its flags on another path too: each flag is tried beside both. */
const VALID_TOO: Record<string, string[]> = {
  // --dry-run: a value taken for right is shown, not sent (and still fails the property: exit 0).
  withdraw: ['--amount=990', '--pix-key=maria@example.com', '--pix-key-type=EMAIL', '--yes', '--dry-run'],
  // One notification by its id, instead of a window of them.
  'webhooks resend': [`--reference-id=${UUID}`],
}

/** A valid batch file, for the flags that go with --batch. */
const BATCH_DIR = mkdtempSync(join(tmpdir(), 'gateway-batch-flags-'))
const BATCH_FILE = join(BATCH_DIR, 'rows.csv')
/** The flags that go with --batch are tried beside a valid batch and --dry-run, not beside the single record's flags. */
const WITH_BATCH: Record<string, string[]> = {batch: ['--dry-run'], 'max-rows': [`--batch=${BATCH_FILE}`, '--dry-run'], 'max-total': [`--batch=${BATCH_FILE}`, '--dry-run']}

/** The arguments a command needs, valid. */
function argsOf(id: string): string[] {
  return Object.values(manifest.commands[id].args ?? {})
    .filter((arg) => arg.required)
    .map(() => UUID)
}

/** Fixed hints a command prints after its one error line. */
const HINTS = ['Paste the whole copy-and-paste code: it starts with 000201 and ends with 6304 and four hex digits.']

/** Each argument, its wrong values, and how its error names it. */
const ARGUMENTS: Record<string, {wrong: fc.Arbitrary<string>; named: string}> = {
  id: {wrong: malformedUuid, named: 'ID'},
  // journal resolve: a key the journal does not hold
  key: {wrong: fc.oneof(anyText, junk), named: 'KEY'},
  code: {
    wrong: fc.oneof(fc.constantFrom('000201', '0002010102', '00020101021226', 'pix.example.com'), fc.string({unit: 'binary', maxLength: 60}), junk),
    named: 'PIX code',
  },
  // completion: a shell it makes no script for
  shell: {wrong: fc.oneof(anyText, junk).filter((value) => value !== 'bash' && value !== 'zsh'), named: 'SHELL'},
}

const commands = Object.keys(manifest.commands).filter((id) => !/^(help|autocomplete)/.test(id))

describe('every flag of every command, with random wrong values', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  let tried = 0
  let checked = 0

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
    writeFileSync(BATCH_FILE, 'amount,pix-key,external-code\n1000,maria@example.com,flags-00001\n')
  })
  afterAll(async () => {
    rmSync(BATCH_DIR, {recursive: true, force: true})
    recordFigures('bad-input', {commands: commands.length, flagsAndArguments: checked, badInputsTried: tried})
    await sandbox.close()
    config.remove()
  })

  /** Runs `argv`; it must exit 2 with one Error line naming `name`, nothing on stdout, no stack, and no request. */
  async function refused(argv: string[], name: string): Promise<void> {
    const before = (await stats(sandbox.baseUrl)).requests
    // A value taken for right would start a server (sandbox start): it stops at a stand-in Ctrl-C, and fails below.
    const result = await runCommand(argv, {env, sleep: async () => {}, interrupted: () => new Promise((resolve) => setTimeout(() => resolve('SIGINT'), 2000).unref())})
    tried += 1
    const where = `gateway ${argv.map((word) => JSON.stringify(word)).join(' ')}`
    expect(result.code, `${where}\n${result.stderr}`).toBe(2)
    // --fields prints the --json document: the error's, there.
    if (name === '--fields') expect(JSON.parse(result.stdout).error, where).toMatchObject({code: 'USAGE', exitCode: 2})
    else expect(result.stdout, where).toBe('')
    // One line says what is wrong; only a command's fixed hint may follow it.
    const lines = result.stderr.replace(/\n$/, '').split('\n').filter((line) => !HINTS.includes(line))
    expect(lines, `${where}: one line in ${JSON.stringify(result.stderr)}`).toHaveLength(1)
    expect(lines[0], where).toMatch(/^Error: /)
    expect(lines[0], where).toContain(name)
    expect(result.stderr, where).not.toMatch(/\n\s+at /)
    expect((await stats(sandbox.baseUrl)).requests, `${where} sent a request`).toBe(before)
  }

  it('has wrong values for every flag that takes one', () => {
    const missing = commands.flatMap((id) =>
      Object.entries(manifest.commands[id].flags)
        .filter(([name, flag]) => flag.type === 'option' && !(name in WRONG) && !(name in EXEMPT))
        .map(([name]) => `${id.replaceAll(':', ' ')} --${name}`),
    )
    expect(missing).toEqual([])
  })

  for (const id of commands) {
    const words = id.split(':')
    const command = words.join(' ')
    const flags = Object.entries(manifest.commands[id].flags).filter(([name, flag]) => flag.type === 'option' && name in WRONG && (flag.helpGroup !== 'GLOBAL' || id === 'tx:get'))
    for (const [name] of flags) {
      const baselines = WITH_BATCH[name] ? [WITH_BATCH[name]] : [VALID[command] ?? [], ...(VALID_TOO[command] ? [VALID_TOO[command]] : [])]
      for (const [index, baseline] of baselines.entries()) {
        it(`${command} --${name}${index === 0 ? '' : `, beside ${baseline.join(' ')}`}`, async () => {
          if (index === 0) checked += 1
          const valid = baseline.filter((word) => !word.startsWith(`--${name}=`))
          await fc.assert(
            fc.asyncProperty(WRONG_IN[command]?.[name] ?? WRONG[name], async (value) => {
              await refused([...words, ...argsOf(id), ...valid, `--${name}=${value}`], `--${name}`)
            }),
            // Every flag also meets the values that break output most often, whatever the draw.
            {numRuns: 12, seed: SEED, examples: ALWAYS.filter((value) => WRONG_ALWAYS(name, value)).map((value) => [value])},
          )
        })
      }
    }
    for (const arg of Object.keys(manifest.commands[id].args ?? {})) {
      it(`${command} ${arg.toUpperCase()}`, async () => {
        checked += 1
        const {wrong, named} = ARGUMENTS[arg]
        await fc.assert(
          fc.asyncProperty(wrong, async (value) => {
            await refused([...words, value], named)
          }),
          {numRuns: 12, seed: SEED, examples: ALWAYS.map((value) => [value])},
        )
      })
    }
  }
})
