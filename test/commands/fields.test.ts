import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {TRANSACTION_RECORD_FIELDS, TX_CREATE_RECORD_FIELDS, WITHDRAW_RECORD_FIELDS} from '../../src/output/fields.js'
import {createTransactionResponseSchema, pixResponseSchema, transactionSchema} from '../../src/schemas/records.js'
import {withdrawResponseSchema} from '../../src/schemas/withdraw.js'
import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

const CPF = '529.982.247-25'

/** --fields: the fields of a record a log needs, picked from the --json document. */
describe('--fields', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  const cli = (args: string[]) => runCommand(args, {env})

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

  it('offers exactly the fields of each record, as its response contract has them', () => {
    const pix = Object.keys(pixResponseSchema.shape).map((name) => `pixResponse.${name}`)
    expect([...TX_CREATE_RECORD_FIELDS].sort()).toEqual([...Object.keys(createTransactionResponseSchema.shape), ...pix, 'idempotencyKey', 'replayed'].sort())
    expect([...TRANSACTION_RECORD_FIELDS].sort()).toEqual([...Object.keys(transactionSchema.shape), ...pix].sort())
    expect([...WITHDRAW_RECORD_FIELDS].sort()).toEqual([...Object.keys(withdrawResponseSchema.shape), 'idempotencyKey', 'replayed'].sort())
  })

  it('tx create prints only the fields asked for, in that order, on one line, and implies --json', async () => {
    const full = await cli(['tx', 'create', '--amount', '1000', '--json'])
    expect(full.stdout.length).toBeGreaterThan(2000)
    const result = await cli(['tx', 'create', '--amount', '1234', '--external-code', 'fields-0001', '--fields', 'status,id,amount,externalCode'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.trimEnd()).not.toContain('\n')
    const picked = JSON.parse(result.stdout)
    expect(Object.keys(picked)).toEqual(['status', 'id', 'amount', 'externalCode'])
    expect(picked).toMatchObject({amount: 1234, externalCode: 'fields-0001', status: expect.any(String), id: expect.any(String)})
    expect(result.stdout.length).toBeLessThan(200)
  })

  it('picks a field inside another, keeps it nested, and gives null for one the record lacks', async () => {
    const result = await cli(['tx', 'create', '--amount', '1000', '--fields', 'id,pixResponse.uri,externalCode,replayed'])
    expect(result.code, result.stderr).toBe(0)
    const picked = JSON.parse(result.stdout)
    expect(picked.pixResponse).toEqual({uri: expect.stringMatching(/^000201/)})
    expect(picked.externalCode).toBeNull()
    expect(picked.replayed).toBeNull()
    expect(result.stdout).not.toContain('qrCodeBase64')
  })

  it('tx get and withdraw pick from their records too', async () => {
    const created = JSON.parse((await cli(['tx', 'create', '--amount', '1000', '--json'])).stdout) as {id: string}
    const got = await cli(['tx', 'get', created.id, '--fields', 'id,status,amount'])
    expect(got.code, got.stderr).toBe(0)
    expect(JSON.parse(got.stdout)).toEqual({id: created.id, status: expect.any(String), amount: 1000})
    const sent = await cli(['withdraw', '--amount', '500', '--pix-key', CPF, '--yes', '--fields', 'id,status,idempotencyKey'])
    expect(sent.code, sent.stderr).toBe(0)
    expect(Object.keys(JSON.parse(sent.stdout))).toEqual(['id', 'status', 'idempotencyKey'])
  })

  /** Exit 2, the line on stderr, the error document on stdout (--fields is --json), and not one request. */
  async function refusedBeforeSending(baseUrl: string, run: () => ReturnType<typeof cli>, message: RegExp) {
    const before = (await stats(baseUrl)).requests
    const result = await run()
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(message)
    expect(JSON.parse(result.stdout).error).toMatchObject({code: 'USAGE', exitCode: 2})
    expect((await stats(baseUrl)).requests).toBe(before)
    return result
  }

  it('refuses an unknown field before anything is sent, naming the flag and the fields there are', async () => {
    const refused = await refusedBeforeSending(sandbox.baseUrl, () => cli(['tx', 'create', '--amount', '1000', '--fields', 'id,qrcode']), /^Error: --fields does not know "qrcode": the fields are id, externalCode, amount, type, status, pixResponse, /m)
    expect(refused.stderr).toContain('idempotencyKey, replayed')
    await refusedBeforeSending(sandbox.baseUrl, () => cli(['withdraw', '--amount', '100', '--pix-key', CPF, '--yes', '--fields', 'id,type']), /^Error: --fields does not know "type": the fields are id, externalCode, amount, status, idempotencyKey, replayed$/m)
    await refusedBeforeSending(sandbox.baseUrl, () => cli(['tx', 'create', '--amount', '1000', '--fields', 'id,,status']), /^Error: --fields takes field names separated by commas/m)
  })

  it('does not go with --batch, withdraw --dry-run, or another --output', async () => {
    const batch = await cli(['tx', 'create', '--batch', 'orders.csv', '--fields', 'id'])
    expect(batch.code).toBe(2)
    expect(batch.stderr).toMatch(/^Error: --fields picks from one charge's record; with --batch/m)
    const dry = await cli(['withdraw', '--amount', '100', '--pix-key', CPF, '--dry-run', '--fields', 'id'])
    expect(dry.code).toBe(2)
    expect(dry.stderr).toMatch(/does not go with --dry-run/)
    const table = await cli(['tx', 'get', '00000000-0000-4000-8000-000000000000', '--fields', 'id', '--output', 'csv'])
    expect(table.code).toBe(2)
    expect(table.stderr).toMatch(/does not go with --output csv/)
  })

  it('an error is the whole error document, as under --json', async () => {
    const result = await cli(['tx', 'get', '00000000-0000-4000-8000-000000000000', '--fields', 'id,status'])
    expect(result.code).toBe(4)
    expect(JSON.parse(result.stdout).error).toMatchObject({exitCode: 4, code: 'NOT_FOUND'})
  })
})
