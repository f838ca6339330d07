import {randomUUID} from 'node:crypto'

import {generatePixPayload, getPixPayloadInfo} from '@brazilian-utils/brazilian-utils'
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {describeError, ExitCode} from '../../src/cli/errors.js'
import type {CreateTransactionResponse} from '../../src/api/types.js'
import {amountToCents, crc16, decodePix, PixDecodeError} from '../../src/pix/decode.js'
import {brCode, MERCHANT, txidFor} from '../../src/sandbox/domain/fixtures.js'
import {startTestSandbox, tokenFor, type Sandbox} from '../helpers/sandbox.js'

// ---------------------------------------------------------------------------------------------
// Codes made by hand, field by field
// ---------------------------------------------------------------------------------------------

const tlv = (id: string, value: string) => `${id}${String(value.length).padStart(2, '0')}${value}`

/** Appends field 63 with the right CRC. */
const signed = (body: string) => `${body}6304${crc16(`${body}6304`)}`

/** Recomputes the CRC of a code whose content was changed on purpose. */
const resign = (code: string) => signed(code.slice(0, -8))

interface HandMade {
  account?: string
  amount?: string
  name?: string
  city?: string
  additional?: string
  extra?: string
}

/** A static code as a PSP would write it, each part replaceable; `null` leaves a field out. */
function handMade(parts: {[K in keyof HandMade]?: string | null} = {}): string {
  const pick = (key: keyof HandMade, fallback: string) => (parts[key] === null ? '' : (parts[key] ?? fallback))
  return signed(
    tlv('00', '01') +
      pick('account', tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('01', MERCHANT.pixKey))) +
      tlv('52', '0000') +
      tlv('53', '986') +
      pick('amount', tlv('54', '10.50')) +
      tlv('58', 'BR') +
      pick('name', tlv('59', 'Loja Exemplo')) +
      pick('city', tlv('60', 'Recife')) +
      pick('additional', tlv('62', tlv('05', 'PEDIDO42'))) +
      (parts.extra ?? ''),
  )
}

function decodeError(code: string): PixDecodeError {
  try {
    decodePix(code)
  } catch (error) {
    if (error instanceof PixDecodeError) return error
    throw error
  }
  throw new Error(`decoded without an error: ${code}`)
}

/** Replaces the two length digits of the first field `marker` opens. */
function withLength(code: string, marker: string, length: number): string {
  const at = code.indexOf(marker)
  if (at < 0) throw new Error(`${marker} is not in ${code}`)
  return code.slice(0, at + 2) + String(length).padStart(2, '0') + code.slice(at + 4)
}

// ---------------------------------------------------------------------------------------------

describe('crc16', () => {
  it('is CRC16-CCITT-FALSE', () => {
    expect(crc16('123456789')).toBe('29B1') // the algorithm's published check value
    expect(crc16('')).toBe('FFFF')
  })

  it('agrees with the CRC brazilian-utils writes', () => {
    const code = brCode(1234, 'ABC123')
    expect(crc16(code.slice(0, -4))).toBe(code.slice(-4))
  })
})

describe('amountToCents', () => {
  it('reads the amount from its digits, with no float error', () => {
    expect(amountToCents('10.50')).toBe(1050)
    expect(amountToCents('10.5')).toBe(1050)
    expect(amountToCents('10')).toBe(1000)
    expect(amountToCents('0.01')).toBe(1)
    expect(amountToCents('1.10')).toBe(110)
    expect(amountToCents('4.35')).toBe(435) // 4.35 * 100 is 434.99999999999994 as a float
    expect(amountToCents('9999999999.99')).toBe(999_999_999_999)
  })

  it('refuses what breaks the rule', () => {
    for (const bad of ['', '10,50', '10.505', '.50', '10.', '-1.00', '1e3', ' 10.50', '99999999999.99']) {
      expect(amountToCents(bad), bad).toBeUndefined()
    }
  })
})

describe('decodePix', () => {
  it("decodes the sandbox's codes: static, its key, the amount in cents, merchant, txid, a valid CRC", () => {
    const id = randomUUID()
    const code = brCode(7980, txidFor(id))
    const decoded = decodePix(code)
    expect(decoded).toMatchObject({
      kind: 'static',
      key: MERCHANT.pixKey,
      amountCents: 7980,
      merchantName: MERCHANT.name,
      merchantCity: MERCHANT.city,
      txid: txidFor(id),
      merchantCategoryCode: '0000',
      crc: {valid: true, expected: code.slice(-4), found: code.slice(-4)},
    })
    expect(decoded.url).toBeUndefined()
    expect(decoded.fields.map((field) => field.id)).toEqual(['00', '26', '52', '53', '54', '58', '59', '60', '62', '63'])
    const account = decoded.fields.find((field) => field.id === '26')!
    expect(account.fields).toEqual([
      {id: '26-00', name: 'GUI', position: 10, value: 'br.gov.bcb.pix'},
      {id: '26-01', name: 'PIX key', position: 28, value: MERCHANT.pixKey},
    ])
  })

  it('decodes a dynamic code: its location URL, no key; the location rules the amount and txid', () => {
    const code = generatePixPayload({url: 'pix.example.com/qr/v2/cobv/9d36b84f', merchantName: 'Fulano de Tal', merchantCity: 'Brasilia'})!
    const decoded = decodePix(code)
    expect(decoded).toMatchObject({
      kind: 'dynamic',
      url: 'pix.example.com/qr/v2/cobv/9d36b84f',
      merchantName: 'Fulano de Tal',
      merchantCity: 'Brasilia',
      crc: {valid: true},
    })
    expect(decoded.key).toBeUndefined()
    expect(decoded.amountCents).toBeUndefined()
    expect(decoded.txid).toBeUndefined()
    expect(decoded.fields.find((field) => field.id === '01')).toMatchObject({name: 'Point of Initiation Method', value: '12'})
  })

  it('leaves the amount and txid out of a code where the payer types the amount', () => {
    const code = generatePixPayload({key: 'maria@example.com', merchantName: 'Maria', merchantCity: 'Natal', description: 'Doacao'})!
    const decoded = decodePix(code)
    expect(decoded).toMatchObject({kind: 'static', key: 'maria@example.com', description: 'Doacao', merchantName: 'Maria'})
    expect(decoded.amountCents).toBeUndefined()
    expect(decoded.txid).toBeUndefined() // "***"
  })

  it('reads amounts written with one decimal or none, and the optional fields', () => {
    expect(decodePix(handMade({amount: tlv('54', '10.5')})).amountCents).toBe(1050)
    expect(decodePix(handMade({amount: tlv('54', '25')})).amountCents).toBe(2500)
    expect(decodePix(handMade({amount: tlv('54', '0.01')})).amountCents).toBe(1)
    expect(decodePix(handMade({additional: null})).txid).toBeUndefined()
    expect(decodePix(handMade({extra: tlv('61', '50030230')})).postalCode).toBe('50030230')
  })

  it('accepts a code wrapped over lines, surrounding blanks and a lower-case CRC', () => {
    const code = brCode(1000, 'WRAPPED1')
    expect(decodePix(`  ${code.slice(0, 50)}\r\n${code.slice(50, 100)}\n${code.slice(100)}\n`).amountCents).toBe(1000)
    const lower = code.slice(0, -4) + code.slice(-4).toLowerCase()
    expect(decodePix(lower).crc).toEqual({valid: true, expected: code.slice(-4), found: code.slice(-4).toLowerCase()})
  })

  describe('a broken CRC', () => {
    it('names field 63 and gives the CRC found and the one expected', () => {
      const code = brCode(1050, 'ABC123')
      const found = code.endsWith('0') ? `${code.slice(-4, -1)}1` : `${code.slice(-4, -1)}0`
      const error = decodeError(code.slice(0, -4) + found)
      expect(error).toBeInstanceOf(PixDecodeError)
      expect(error.exitCode).toBe(ExitCode.Usage)
      expect(error.field).toEqual({id: '63', name: 'CRC'})
      expect(error.crc).toEqual({valid: false, expected: code.slice(-4), found})
      expect(error.message).toBe(
        `PIX code field 63 (CRC) does not match: the code carries ${found}, its content gives ${code.slice(-4)}; the code was altered or mistyped`,
      )
    })

    it('still says what an altered code asks for', () => {
      const code = brCode(1050, 'ABC123').replace('540510.50', '540599.50')
      const error = decodeError(code)
      expect(error.field?.id).toBe('63')
      expect(error.decoded).toMatchObject({amountCents: 9950, key: MERCHANT.pixKey, crc: {valid: false}})
    })

    it('refuses a CRC that is not four hex digits', () => {
      const error = decodeError(`${brCode(1050, 'ABC123').slice(0, -4)}XYZ!`)
      expect(error.field?.id).toBe('63')
      expect(error.rule).toMatch(/^must be four hex digits; found "XYZ!"/)
    })
  })

  describe('a broken amount (field 54)', () => {
    it.each([
      ['10,50', 'a decimal comma'],
      ['1O.50', 'a letter'],
      ['10.505', 'three decimals'],
      ['-10.50', 'a sign'],
      ['12345678901.00', 'more than 13 characters'],
    ])('%s (%s) is refused, naming field 54', (amount) => {
      const error = decodeError(handMade({amount: tlv('54', amount)}))
      expect(error.field).toEqual({id: '54', name: 'Transaction Amount'})
      expect(error.rule).toContain(`found "${amount}"`)
      expect(error.crc?.valid).toBe(true)
    })

    it('refuses a zero amount in a static code', () => {
      const error = decodeError(handMade({amount: tlv('54', '0.00')}))
      expect(error.field?.id).toBe('54')
      expect(error.rule).toBe('must be greater than zero; found "0.00"')
    })

    it('names field 54 before the CRC when both are broken', () => {
      const code = brCode(1050, 'ABC123').replace('540510.50', '540510,50')
      expect(decodeError(code).field?.id).toBe('54')
    })
  })

  describe('a broken length', () => {
    const code = brCode(1050, 'ABC123')

    it.each([
      ['540510.50', 'Transaction Amount'],
      ['5920Gateway', 'Merchant Name'],
      ['6009Sao', 'Merchant City'],
      ['5303986', 'Transaction Currency'],
      ['26580014', 'Merchant Account Information'],
    ])('names the field whose length is wrong (%s, %s), one more or one less, CRC re-signed or not', (marker, name) => {
      const id = marker.slice(0, 2)
      const length = Number(marker.slice(2, 4))
      for (const wrong of [length - 1, length + 1]) {
        const altered = withLength(code, marker, wrong)
        for (const variant of [altered, resign(altered)]) {
          const error = decodeError(variant)
          expect(error.field, variant).toEqual({id, name})
          expect(error.rule, variant).toMatch(new RegExp(`^has length ${String(wrong).padStart(2, '0')}, .*${String(length).padStart(2, '0')}$`))
        }
      }
    })

    it('names a field inside a template: the key (26-01), the GUI (26-00), the txid (62-05)', () => {
      expect(decodeError(resign(withLength(code, '0136', 35))).field).toEqual({id: '26-01', name: 'PIX key'})
      expect(decodeError(withLength(code, '0014br', 15)).field).toEqual({id: '26-00', name: 'GUI'})
      expect(decodeError(resign(withLength(code, '0506ABC', 7))).field).toEqual({id: '62-05', name: 'Reference Label (txid)'})
    })

    it('says when a length runs past the end of the code, after saying that the CRC field is missing', () => {
      const error = decodeError(handMade({extra: '6199123'}).slice(0, -8))
      expect(error.field).toEqual({id: '63', name: 'CRC'})
      expect(error.rule).toMatch(/^is missing: .*; besides, field 61 \(Postal Code\) has length 99, which runs past the end of the code/)
    })

    it('says when the code was cut short', () => {
      const error = decodeError(code.slice(0, -2))
      expect(error.field?.id).toBe('63')
      expect(error.rule).toBe('runs past the end of the code: 2 of its 4 characters are there; the code was cut short')
    })

    it('refuses a length that is not two digits', () => {
      const error = decodeError(resign(code.replace('5802BR', '58X2BR')))
      expect(error.field).toEqual({id: '58', name: 'Country Code'})
      expect(error.rule).toMatch(/^must have a two-digit length after its id; found "X2"/)
    })
  })

  describe('a missing or wrong mandatory field', () => {
    it.each([
      ['name', '59', 'is missing'],
      ['city', '60', 'is missing'],
    ] as const)('without its %s, names field %s', (part, id, rule) => {
      const error = decodeError(handMade({[part]: null}))
      expect(error.field?.id).toBe(id)
      expect(error.rule).toBe(rule)
    })

    it('names the PIX template when no template carries the PIX GUI', () => {
      const error = decodeError(handMade({account: tlv('26', tlv('00', 'br.gov.bcb.xyz') + tlv('01', 'key'))}))
      expect(error.field).toEqual({id: '26', name: 'Merchant Account Information'})
      expect(decodeError(handMade({account: null})).rule).toMatch(/^is missing: no template from 26 to 51/)
    })

    it('names the key when the template has neither a key nor a location, and refuses both at once', () => {
      expect(decodeError(handMade({account: tlv('26', tlv('00', 'br.gov.bcb.pix'))})).field).toEqual({id: '26-01', name: 'PIX key'})
      const both = tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('01', 'a@b.co') + tlv('25', 'pix.example.com/qr/1'))
      expect(decodeError(handMade({account: both})).rule).toBe('must carry either a PIX key (26-01) or a location (26-25), not both')
    })

    it('refuses a location with a scheme, and says so', () => {
      const account = tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('25', 'https://pix.example.com/qr/1'))
      const error = decodeError(handMade({account, amount: null}))
      expect(error.field).toEqual({id: '26-25', name: 'Location URL'})
      expect(error.rule).toMatch(/^must be written without its scheme \(https:\/\/\)/)
    })

    const located = (where: string) => handMade({account: tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('25', where)), amount: null})

    it.each(['localhost:5001/api/testaccount/qr/v1/ab68', 'pix.example.com:8443/qr/v2/abc', 'localhost/qr/1', '127.0.0.1:8080/qr/1', '[::1]:5001/qr/1', 'psp.example.com.br/cob/9'])(
      'decodes a location with any host and an optional port: %s',
      (where) => {
        const decoded = decodePix(located(where))
        expect(decoded.kind).toBe('dynamic')
        expect(decoded.url).toBe(where)
      },
    )

    it.each([
      ['pix.example.com:0/qr/1', /^has the port 0, which is not from 1 to 65535/],
      ['pix.example.com:65536/qr/1', /^has the port 65536, which is not from 1 to 65535/],
      ['pix example.com/qr/1', /^must be a host, an optional :port and a path, e\.g\. pix\.example\.com\/qr\/v2\/1234; found "pix example\.com\/qr\/1"$/],
      ['pix.example.com:/qr/1', /^must be a host, an optional :port and a path/],
    ])('refuses the location %s without speaking of a scheme it does not carry', (where, rule) => {
      const error = decodeError(located(where))
      expect(error.field?.id).toBe('26-25')
      expect(error.rule).toMatch(rule)
      expect(error.rule).not.toMatch(/scheme/)
    })

    it('refuses another currency, another country, a bad point of initiation, a field given twice', () => {
      const code = handMade()
      expect(decodeError(resign(code.replace('5303986', '5303840'))).field?.id).toBe('53')
      expect(decodeError(resign(code.replace('5802BR', '5802US'))).field?.id).toBe('58')
      expect(decodeError(resign(code.replace('000201', '0002010102XX'))).field?.id).toBe('01')
      expect(decodeError(handMade({extra: tlv('59', 'Outra Loja')})).rule).toMatch(/^appears twice/)
    })

    it('refuses a payload format other than 01, and field 63 anywhere but last', () => {
      expect(decodeError(resign(handMade().replace('000201', '000202'))).field?.id).toBe('00')
      const body = handMade().slice(0, -8)
      expect(decodeError(`${body}6304${crc16(`${body}6304`)}${tlv('99', 'x')}`).rule).toBe('must be the last field')
    })
  })

  describe('what is no PIX code at all', () => {
    it.each(['', '   ', '\n'])('an empty code (%j)', (input) => {
      expect(decodeError(input).message).toBe('PIX code is empty')
    })

    it.each(['hello world', 'https://pix.example.com/qr/1', '{"amount": 1000}', '12345'])('%s names field 00', (input) => {
      const error = decodeError(input)
      expect(error.field?.id).toBe('00')
      expect(error.exitCode).toBe(2)
    })

    it('a text longer than any BR Code, and long runs of digits', () => {
      expect(decodeError(`${brCode(100, 'A1')}${'0'.repeat(600)}`).message).toMatch(/^PIX code is \d+ characters long; a BR Code has at most 512$/)
      for (const digits of ['0'.repeat(512), `000201${'1234567890'.repeat(50)}`.slice(0, 512), `0002012699${'9'.repeat(500)}`]) {
        expect(decodeError(digits)).toBeInstanceOf(PixDecodeError)
      }
    })

    it('digits that start like a code but break at once', () => {
      const error = decodeError('000201XY')
      expect(error.message).toMatch(/^PIX code is broken: "XY" at position 6 after field 00/)
    })

    it('serialises the error for --json with the field and the rule', () => {
      const {payload} = describeError(decodeError(handMade({amount: tlv('54', '1,00')})))
      expect(payload).toMatchObject({code: 'USAGE', exitCode: 2, body: {field: {id: '54', name: 'Transaction Amount'}, rule: expect.stringContaining('"1,00"')}})
    })
  })

  describe('properties', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9]{1,8}$/)
    const name = (max: number) => fc.array(word, {minLength: 1, maxLength: 4}).map((words) => words.join(' ').slice(0, max).trim()).filter((text) => text.length > 0)
    const cents = fc.tuple(fc.integer({min: 0, max: 999_999_999}), fc.integer({min: 0, max: 99})).map(([reais, centavos]) => reais * 100 + centavos).filter((value) => value > 0)
    const code = fc.record({
      key: fc.uuid({version: 4}),
      merchantName: name(25),
      merchantCity: name(15),
      amountCents: fc.option(cents, {nil: undefined}),
      txid: fc.option(fc.stringMatching(/^[A-Za-z0-9]{1,25}$/), {nil: undefined}),
    })

    it('generated codes round-trip: every field comes back as given, the amount to the cent', () => {
      fc.assert(
        fc.property(code, (params) => {
          const payload = generatePixPayload({...params, amount: params.amountCents === undefined ? undefined : params.amountCents / 100})
          expect(payload).not.toBeNull()
          const decoded = decodePix(payload!)
          expect(decoded.kind).toBe('static')
          expect(decoded.key).toBe(params.key.toLowerCase())
          expect(decoded.amountCents).toBe(params.amountCents)
          expect(decoded.merchantName).toBe(params.merchantName)
          expect(decoded.merchantCity).toBe(params.merchantCity)
          expect(decoded.txid).toBe(params.txid)
          expect(decoded.crc.valid).toBe(true)
        }),
        {numRuns: 300},
      )
    })

    it('a mistyped length of any field is named, whatever the length typed', () => {
      fc.assert(
        fc.property(code, fc.nat(), fc.integer({min: 0, max: 99}), (params, pick, typed) => {
          const payload = generatePixPayload({...params, amount: params.amountCents === undefined ? undefined : params.amountCents / 100})!
          const fields = decodePix(payload).fields.filter((field) => field.id !== '00' && field.id !== '63')
          const field = fields[pick % fields.length]
          fc.pre(typed !== field.value.length)
          const altered = payload.slice(0, field.position + 2) + String(typed).padStart(2, '0') + payload.slice(field.position + 4)
          const error = decodeError(altered)
          expect(error.field, altered).toEqual({id: field.id, name: field.name})
          expect(error.rule).toMatch(new RegExp(`^has length ${String(typed).padStart(2, '0')}, .*${String(field.value.length).padStart(2, '0')}$`))
        }),
        {numRuns: 500},
      )
    })

    it('an altered code is refused whenever brazilian-utils refuses it, and only ever with a PixDecodeError', () => {
      const alteration = fc.record({
        at: fc.nat(),
        kind: fc.constantFrom('replace', 'delete', 'insert'),
        char: fc.integer({min: 0x20, max: 0x7e}).map((point) => String.fromCharCode(point)),
        resign: fc.boolean(),
      })
      fc.assert(
        fc.property(code, alteration, (params, change) => {
          const payload = generatePixPayload({...params, amount: params.amountCents === undefined ? undefined : params.amountCents / 100})!
          const at = change.at % payload.length
          let altered =
            change.kind === 'replace'
              ? payload.slice(0, at) + change.char + payload.slice(at + 1)
              : change.kind === 'delete'
                ? payload.slice(0, at) + payload.slice(at + 1)
                : payload.slice(0, at) + change.char + payload.slice(at)
          if (change.resign && altered.length > 8) altered = resign(altered)
          const info = getPixPayloadInfo(altered)
          let decoded
          try {
            decoded = decodePix(altered)
          } catch (error) {
            expect(error).toBeInstanceOf(PixDecodeError)
            expect((error as PixDecodeError).message).toMatch(/^PIX code /)
            return
          }
          expect(info, `decoded a code brazilian-utils refuses: ${altered}`).not.toBeNull()
          expect(decoded.key).toBe(info!.key)
          expect(decoded.merchantName).toBe(info!.merchantName)
          expect(decoded.txid).toBe(info!.txid)
          expect(decoded.amountCents === undefined ? undefined : decoded.amountCents / 100).toBe(info!.amount)
        }),
        {numRuns: 2000},
      )
    })
  })
})

describe('decodePix against the sandbox', () => {
  let sandbox: Sandbox
  beforeAll(async () => {
    sandbox = await startTestSandbox()
  })
  afterAll(() => sandbox.close())

  it("decodes the copy-and-paste code of a charge the sandbox made: its key, amount and txid", async () => {
    const token = await tokenFor(sandbox.baseUrl)
    const response = await fetch(`${sandbox.baseUrl}/core/transaction`, {
      method: 'POST',
      headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
      body: JSON.stringify({amount: 12_345, paymentMethod: 'PIX', idempotencyKey: randomUUID(), pix: {}}),
    })
    expect(response.status).toBe(201)
    const created = (await response.json()) as CreateTransactionResponse
    const decoded = decodePix(created.pixResponse!.uri)
    expect(decoded).toMatchObject({
      kind: 'static',
      key: MERCHANT.pixKey,
      amountCents: 12_345,
      merchantName: MERCHANT.name,
      merchantCity: MERCHANT.city,
      txid: txidFor(created.id),
      crc: {valid: true},
    })
  })
})
