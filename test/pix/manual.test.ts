import {describe, expect, it} from 'vitest'

import {crc16, decodePix, PixDecodeError} from '../../src/pix/decode.js'
import {runCommand} from '../helpers/context.js'
import {loggedInSandbox} from '../helpers/world.js'

/** One field, its length in code points as the BR Code manual counts it. */
const field = (id: string, value: string) => `${id}${String(Array.from(value).length).padStart(2, '0')}${value}`
/** A whole code: the fields, then 6304 and the CRC16 of everything before it. */
const signed = (...fields: string[]) => {
  const body = `${fields.join('')}6304`
  return body + crc16(body)
}
const envelope = (merchant: string) => [field('52', '0000'), field('53', '986'), field('58', 'BR'), field('59', merchant), field('60', 'BRASILIA'), field('62', field('05', '***'))]

describe('pix decode by the BR Code manual', () => {
  it('reads a recurrence-only code (Pix Automático): template 26 holding only its GUI, the recurrence in field 80', () => {
    const code = signed(field('00', '01'), field('26', field('00', 'br.gov.bcb.pix')), ...envelope('Fulano de Tal'), field('80', field('00', 'br.gov.bcb.pix') + field('25', 'pix.example.com/rec/v1/9f2c')))
    const decoded = decodePix(code)
    expect(decoded).toMatchObject({kind: 'recurrence', merchantName: 'Fulano de Tal', merchantCity: 'BRASILIA', recurrence: 'pix.example.com/rec/v1/9f2c', recurrenceField: '80', crc: {valid: true}})
    expect(decoded.key).toBeUndefined()
  })

  it('refuses a template 26 with only its GUI and no recurrence, and a recurrence without its GUI or location', () => {
    const bare = signed(field('00', '01'), field('26', field('00', 'br.gov.bcb.pix')), ...envelope('Fulano de Tal'))
    expect(() => decodePix(bare)).toThrow(/neither a PIX key .* nor a location .*, and no recurrence \(a template of 80 to 99 with the GUI "br.gov.bcb.pix"\) follows/)
    const noLocation = signed(field('00', '01'), field('26', field('00', 'br.gov.bcb.pix')), ...envelope('Fulano de Tal'), field('80', field('00', 'br.gov.bcb.pix')))
    expect(() => decodePix(noLocation)).toThrow(/is missing: a recurrence carries the location/)
  })

  it('reads templates 80 to 99 by their GUI: br.gov.bcb.pix in any case is the recurrence, in whichever of them; any other GUI is shown as written', () => {
    const account = field('26', field('00', 'br.gov.bcb.pix') + field('01', 'maria@example.com'))
    const upper = signed(field('00', '01'), field('26', field('00', 'BR.GOV.BCB.PIX')), ...envelope('Fulano de Tal'), field('85', field('00', 'BR.GOV.BCB.PIX') + field('25', 'pix.example.com/rec/v1/77')))
    expect(decodePix(upper)).toMatchObject({kind: 'recurrence', recurrence: 'pix.example.com/rec/v1/77', recurrenceField: '85'})
    expect(decodePix(upper).fields.find((one) => one.id === '85')).toMatchObject({name: 'Recurrence (Pix Automático)', fields: [{id: '85-00', name: 'GUI'}, {id: '85-25', name: 'Recurrence location'}]})

    const other = signed(field('00', '01'), account, ...envelope('Fulano de Tal'), field('80', field('00', 'BR.COM.OUTRO') + field('25', 'not a location') + field('07', 'x')))
    const decoded = decodePix(other)
    expect(decoded).toMatchObject({kind: 'static', key: 'maria@example.com'})
    expect(decoded.recurrence).toBeUndefined()
    expect(decoded.templates).toEqual([
      {
        id: '80',
        name: 'Unreserved Template',
        gui: 'BR.COM.OUTRO',
        fields: [
          expect.objectContaining({id: '80-00', name: 'GUI', value: 'BR.COM.OUTRO'}),
          expect.objectContaining({id: '80-25', name: 'template field', value: 'not a location'}),
          expect.objectContaining({id: '80-07', name: 'template field', value: 'x'}),
        ],
      },
    ])

    const both = signed(field('00', '01'), field('26', field('00', 'br.gov.bcb.pix')), ...envelope('Fulano de Tal'), field('80', field('00', 'br.gov.bcb.pix') + field('25', 'pix.example.com/rec/1')), field('81', field('00', 'br.gov.bcb.pix') + field('25', 'pix.example.com/rec/2')))
    expect(() => decodePix(both)).toThrow(/^PIX code field 81 \(Unreserved Template\) is a second recurrence \(GUI "br.gov.bcb.pix"\): field 80 already carries one$/)
  })

  it('pix decode shows a recurrence-only code as nothing paid now, and --json carries kind and reusable', async () => {
    const code = signed(field('00', '01'), field('26', field('00', 'br.gov.bcb.pix')), ...envelope('Fulano de Tal'), field('80', field('00', 'br.gov.bcb.pix') + field('25', 'pix.example.com/rec/v1/9f2c')))
    const human = await runCommand(['pix', 'decode', code])
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/^ {2}Type: +recurrence only \(Pix Automático\): nothing is paid now$/m)
    expect(human.stdout).toMatch(/^ {2}Payer: +asked only to authorise the recurrence .*; nothing is paid now$/m)
    expect(human.stdout).not.toMatch(/payer types it|set by the location/)
    const json = await runCommand(['pix', 'decode', code, '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({kind: 'recurrence', reusable: true, recurrence: 'pix.example.com/rec/v1/9f2c'})
    const once = signed(field('00', '01'), field('01', '12'), field('26', field('00', 'br.gov.bcb.pix') + field('01', 'maria@example.com')), ...envelope('Fulano de Tal'))
    expect(JSON.parse((await runCommand(['pix', 'decode', once, '--json'])).stdout)).toMatchObject({kind: 'static', reusable: false, key: 'maria@example.com'})
  })

  it('pix decode reads a location with a port (Woovi and OpenPix documentation codes), and never speaks of a scheme the code lacks', async () => {
    const woovi =
      '00020101021226910014br.gov.bcb.pix2569localhost:5001/api/testaccount/qr/v1/5b2970f464a740378aa472c6dad0bf8352040000530398654071234.565802BR5905Woovi6009SAO_PAULO610804556300622905255b2970f464a740378aa472c6d63046BA9'
    const human = await runCommand(['pix', 'decode', woovi])
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toMatch(/Location: +localhost:5001\/api\/testaccount\/qr\/v1\/5b2970f464a740378aa472c6dad0bf83/)
    const signed = (body: string) => `${body}6304${crc16(`${body}6304`)}`
    const withLocation = (where: string) =>
      signed(`000201010212${'26'}${String(22 + where.length).padStart(2, '0')}0014br.gov.bcb.pix25${String(where.length).padStart(2, '0')}${where}5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***`)
    expect(JSON.parse((await runCommand(['pix', 'decode', withLocation('pix.example.com:8443/qr/v2/abc'), '--json'])).stdout)).toMatchObject({kind: 'dynamic', url: 'pix.example.com:8443/qr/v2/abc'})
    const refused = await runCommand(['pix', 'decode', withLocation('pix.example.com:99999/qr/v2/abc')])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/26-25.*has the port 99999, which is not from 1 to 65535/)
    expect(refused.stderr).not.toMatch(/scheme/)
  })

  it('counts lengths in code points: a merchant name with an emoji and accents is as long as its characters', () => {
    const merchant = 'Café Açaí 😀'
    expect(merchant.length).toBe(Array.from(merchant).length + 1)
    const code = signed(field('00', '01'), field('26', field('00', 'br.gov.bcb.pix') + field('01', 'maria@example.com')), ...envelope(merchant))
    expect(decodePix(code)).toMatchObject({merchantName: merchant, key: 'maria@example.com', crc: {valid: true}})
  })

  it('reads a code wrapped over lines, and refuses any other control character in it', () => {
    const code = signed(field('00', '01'), field('26', field('00', 'br.gov.bcb.pix') + field('01', 'maria@example.com')), ...envelope('Fulano de Tal'))
    expect(decodePix(`${code.slice(0, 40)}\r\n${code.slice(40)}`).key).toBe('maria@example.com')
    const hostile = signed(field('00', '01'), field('26', field('00', 'br.gov.bcb.pix') + field('01', 'maria@example.com')), ...envelope('Fulano\u001b]0;pwned\u0007'))
    expect(() => decodePix(hostile)).toThrow(PixDecodeError)
    expect(() => decodePix(hostile)).toThrow(/holds a control character \(\\u001b\) at position \d+/)
  })

  it('pix decode exits 2 for a code whose merchant name holds terminal escapes, and prints none of them', async () => {
    const hostile = signed(field('00', '01'), field('26', field('00', 'br.gov.bcb.pix') + field('01', 'maria@example.com')), ...envelope('x\u001b[2J\u009b31m'))
    const result = await runCommand(['pix', 'decode', hostile])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).not.toMatch(/[\u001b\u009b]/)
  })
})

describe('record ids in any case', () => {
  const world = loggedInSandbox()

  it('tx get and the sandbox controls find an existing id typed in upper case; the CLI sends it lower case', async () => {
    const created = await runCommand(['tx', 'create', '--amount', '1000', '--json'], {env: world.env})
    const {id} = JSON.parse(created.stdout) as {id: string}
    const upper = id.toUpperCase()
    const got = await runCommand(['tx', 'get', upper, '--json', '--debug'], {env: world.env})
    expect(got.code, got.stderr).toBe(0)
    expect(JSON.parse(got.stdout).id).toBe(id)
    expect(got.stderr).toContain(`/core/transaction/${id}`)
    expect((await runCommand(['sandbox', 'pay', upper], {env: world.env})).code).toBe(0)
    // The sandbox itself finds either case.
    const token = (await (await fetch(`${world.sandbox.baseUrl}/auth/token`, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: 'grant_type=client_credentials&client_id=sandbox&client_secret=sandbox-secret'})).json()) as {access_token: string}
    const direct = await fetch(`${world.sandbox.baseUrl}/core/transaction/${upper}`, {headers: {authorization: `Bearer ${token.access_token}`}})
    expect(direct.status).toBe(200)
    expect(((await direct.json()) as {status: string}).status).toBe('PAID')
  })
})
