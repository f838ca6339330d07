import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {crc16} from '../../src/pix/decode.js'
import {MERCHANT, txidFor} from '../../src/sandbox/domain/fixtures.js'
import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

/** Recomputes the CRC of a code whose content was changed on purpose, so only the change is wrong. */
const resign = (code: string) => `${code.slice(0, -4)}${crc16(code.slice(0, -4))}`

/** Replaces the two length digits of the field that `marker` (id + length + start of value) opens. */
function withLength(code: string, marker: string, length: number): string {
  const at = code.indexOf(marker)
  if (at < 0) throw new Error(`${marker} is not in ${code}`)
  return code.slice(0, at + 2) + String(length).padStart(2, '0') + code.slice(at + 4)
}

/** The "Label: value" lines of the human view, as a map. */
function labelled(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .trimEnd()
      .split('\n')
      .map((line) => /^\s*([^:]+):\s+(.*)$/.exec(line)!)
      .map((match) => [match[1], match[2]]),
  )
}

describe('pix decode', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  /** A charge the sandbox made: its id, amount and copy-and-paste code. */
  let charge: {id: string; amount: number; uri: string}

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
    const created = await runCommand(['tx', 'create', '--amount', '7980', '--json'], {env})
    expect(created.code).toBe(0)
    const body = JSON.parse(created.stdout) as {id: string; amount: number; pixResponse: {uri: string}}
    charge = {id: body.id, amount: body.amount, uri: body.pixResponse.uri}
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  const decode = (args: string[], options: {input?: string; tty?: {stdin?: boolean}} = {}) => runCommand(['pix', 'decode', ...args], {env, ...options})

  describe("the sandbox's own codes", () => {
    it('shows static, the key, the amount in BRL, merchant and city, the txid and a valid CRC', async () => {
      const before = await stats(sandbox.baseUrl)
      const result = await decode([charge.uri])
      expect(result.code).toBe(0)
      expect(result.stderr).toBe('')
      const view = labelled(result.stdout)
      expect(view).toEqual({
        Type: expect.stringMatching(/^static/),
        'PIX key': MERCHANT.pixKey,
        Amount: 'R$ 79,80',
        Payer: 'asked to confirm a payment of R$ 79,80 to the key above',
        Merchant: MERCHANT.name,
        City: MERCHANT.city,
        txid: txidFor(charge.id),
        CRC16: `valid (${charge.uri.slice(-4)})`,
      })
      // Decoding is offline: nothing reached the gateway.
      expect((await stats(sandbox.baseUrl)).requests).toBe(before.requests)
    })

    it('gives the fields with --json, the amount in cents', async () => {
      const result = await decode([charge.uri, '--json'])
      expect(result.code).toBe(0)
      const decoded = JSON.parse(result.stdout)
      expect(decoded).toMatchObject({
        kind: 'static',
        key: MERCHANT.pixKey,
        amountCents: charge.amount,
        merchantName: MERCHANT.name,
        merchantCity: MERCHANT.city,
        txid: txidFor(charge.id),
        crc: {valid: true, expected: charge.uri.slice(-4), found: charge.uri.slice(-4)},
      })
      expect(decoded.url).toBeUndefined()
      expect(decoded.fields.map((field: {id: string}) => field.id)).toContain('54')
    })

    it('decodes the code of a lookup as well (what tx get shows)', async () => {
      const lookup = await runCommand(['tx', 'get', charge.id, '--json'], {env})
      const uri = (JSON.parse(lookup.stdout) as {pixResponse: {uri: string}}).pixResponse.uri
      const result = await decode([uri, '--json'])
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({amountCents: 7980, txid: txidFor(charge.id)})
    })
  })

  describe('stdin', () => {
    it('reads the code from stdin with -', async () => {
      const result = await decode(['-', '--json'], {input: `${charge.uri}\n`})
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({amountCents: 7980, crc: {valid: true}})
    })

    it('reads stdin when no code is given and stdin is not a terminal, a wrapped code included', async () => {
      const wrapped = charge.uri.match(/.{1,40}/g)!.join('\r\n')
      const result = await decode([], {input: wrapped})
      expect(result.code).toBe(0)
      expect(labelled(result.stdout).txid).toBe(txidFor(charge.id))
    })

    it('asks for the code when none is given and stdin is a terminal', async () => {
      const result = await decode([], {tty: {stdin: true}})
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(/^Error: CODE is missing/)
    })

    it('says so when stdin is empty', async () => {
      const result = await decode(['-'], {input: '\n'})
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(/^Error: stdin holds no PIX code/)
    })
  })

  describe('broken codes exit 2 and name the field', () => {
    it('a wrong CRC: field 63, the CRC found and expected, and still what the code asks for', async () => {
      const good = charge.uri.slice(-4)
      const bad = good === '0000' ? '0001' : '0000'
      const result = await decode([charge.uri.slice(0, -4) + bad])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(`Error: PIX code field 63 (CRC) does not match: the code carries ${bad}, its content gives ${good}`)
      const view = labelled(result.stdout)
      expect(view.Amount).toBe('R$ 79,80')
      expect(view.CRC16).toBe(`INVALID: the code carries ${bad}, its content gives ${good}`)
    })

    it('a wrong CRC under --json: one document with the field, the rule, the CRC and the decoded fields', async () => {
      const bad = charge.uri.slice(-4) === 'FFFF' ? 'FFFE' : 'FFFF'
      const result = await decode([charge.uri.slice(0, -4) + bad, '--json'])
      expect(result.code).toBe(2)
      const {error} = JSON.parse(result.stdout)
      expect(error).toMatchObject({
        code: 'USAGE',
        exitCode: 2,
        body: {field: {id: '63', name: 'CRC'}, crc: {valid: false, found: bad, expected: charge.uri.slice(-4)}, decoded: {amountCents: 7980}},
      })
    })

    it.each([
      ['a decimal comma', '540579.80', '540579,80'],
      ['a letter', '540579.80', '54057O.80'],
    ])('a broken amount (%s): field 54 and its rule', async (_, from, to) => {
      expect(charge.uri).toContain(from)
      const result = await decode([resign(charge.uri.replace(from, to))])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(/^Error: PIX code field 54 \(Transaction Amount\) must be an amount in reais .*found "/)
      expect(result.stderr).toContain(to.slice(4))
    })

    it.each([
      ['5920Gateway', 'Merchant Name'],
      ['540579.80', 'Transaction Amount'],
      ['6009Sao', 'Merchant City'],
    ])('a length that does not match its value (%s): that field, the length found and the one that fits', async (marker, name) => {
      const length = Number(marker.slice(2, 4))
      const id = marker.slice(0, 2)
      for (const broken of [withLength(charge.uri, marker, length + 1), resign(withLength(charge.uri, marker, length - 1))]) {
        const result = await decode([broken, '--json'])
        expect(result.code, broken).toBe(2)
        const {error} = JSON.parse(result.stdout)
        expect(error.body.field, broken).toEqual({id, name})
        expect(error.message).toMatch(new RegExp(`^PIX code field ${id} \\(${name}\\) has length \\d{2}, .*${String(length).padStart(2, '0')}$`))
      }
    })

    it('a code cut short', async () => {
      const result = await decode([charge.uri.slice(0, -10)])
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(/^Error: PIX code field \d{2} \(.+\) /)
    })

    it('text that is no PIX code at all', async () => {
      const result = await decode(['hello'])
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(/^Error: PIX code field 00 \(Payload Format Indicator\) must open the code as "000201"/)
      expect(result.stderr).toContain('Paste the whole copy-and-paste code')
    })
  })
})
