import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand} from '../helpers/context.js'
import {control, startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

/** An alphanumeric CNPJ (letters and digits, two numeric check digits), as an operator may type it: lower case. */
const ALPHANUMERIC_CNPJ = '12abc34501de35'

describe('tx create and deposits list at their edges', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>

  const cli = (args: string[], options: Parameters<typeof runCommand>[1] = {}) => runCommand(args, {env, sleep: async () => {}, ...options})
  const requests = async () => (await stats(sandbox.baseUrl)).requests

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 60})
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
  })

  it('refuses a --qr-png path that cannot be written before creating anything, under --json too', async () => {
    const before = await requests()
    for (const json of [[], ['--json']]) {
      const result = await cli(['tx', 'create', '--amount', '1000', '--qr-png', '/no/such/dir/q.png', ...json])
      expect(result.code).toBe(2)
      const message = json.length > 0 ? JSON.parse(result.stdout).error.message : result.stderr
      expect(message).toContain('--qr-png /no/such/dir/q.png cannot be written: the folder /no/such/dir does not exist')
    }
    const folder = await cli(['tx', 'create', '--amount', '1000', '--qr-png', config.dir])
    expect(folder.code).toBe(2)
    expect(folder.stderr).toBe(`Error: --qr-png ${config.dir} is a folder, not a file\n`)
    expect(await requests()).toBe(before)
  })

  it('sends a lowercase alphanumeric CNPJ in upper case, from a flag or from --body', async () => {
    const flag = await cli(['tx', 'create', '--amount', '1000', '--seller-name', 'Loja Azul', '--seller-document', ALPHANUMERIC_CNPJ, '--debug', '--json'])
    expect(flag.code).toBe(0)
    const sent = flag.stderr.split('\n').find((line) => line.startsWith('> {'))!
    expect(JSON.parse(sent.slice(2)).seller.document).toBe('12ABC34501DE35')
    const file = join(config.dir, 'body.json')
    writeFileSync(file, JSON.stringify({amount: 1000, customer: {name: 'Ana Lima', document: ALPHANUMERIC_CNPJ}}))
    const body = await cli(['tx', 'create', '--body', file, '--debug', '--json'])
    expect(body.code).toBe(0)
    const fromFile = body.stderr.split('\n').find((line) => line.startsWith('> {'))!
    expect(JSON.parse(fromFile.slice(2)).customer.document).toBe('12ABC34501DE35')
    // The record the sandbox keeps holds what it received (masked to its last four on lookup).
    const {id} = JSON.parse(body.stdout) as {id: string}
    const lookup = await cli(['tx', 'get', id, '--json'])
    expect(JSON.parse(lookup.stdout).customer.document.value).toMatch(/^\*{10}DE35$/)
  })

  it('refuses an explicit null for paymentMethod or pix in --body, naming the field, and sends nothing', async () => {
    const before = await requests()
    for (const field of ['paymentMethod', 'pix']) {
      const file = join(config.dir, `null-${field}.json`)
      writeFileSync(file, JSON.stringify({amount: 1000, [field]: null}))
      const result = await cli(['tx', 'create', '--body', file])
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(new RegExp(`^Error: --body field ${field} `))
      expect(result.stderr.trim().split('\n')).toHaveLength(1)
    }
    expect(await requests()).toBe(before)
  })

  it('deposits list --all --json that fails on a later page: the array stays open on stdout, the error is JSON on stderr', async () => {
    let injected = false
    const result = await cli(['deposits', 'list', '--all', '--json', '--per-page', '10', '--concurrency', '1'], {
      // Once the first page is being written, every later page fails, for all its attempts.
      async onStdout() {
        if (injected) return
        injected = true
        await control(sandbox.baseUrl, '/_sandbox/faults', {route: 'GET /core/deposit', status: 503, count: 4})
      },
    })
    expect(result.code).toBe(7)
    expect(result.stdout.startsWith('[')).toBe(true)
    expect(result.stdout.trimEnd().endsWith(']')).toBe(false)
    const written = result.stdout.split('\n').filter((line) => line.startsWith('{'))
    expect(written).toHaveLength(10)
    const error = JSON.parse(result.stderr)
    expect(error.error).toMatchObject({code: 'UNAVAILABLE', exitCode: 7, status: 503})
    expect(error.error.message).toContain('gave up after 4 attempts')
  })
})
