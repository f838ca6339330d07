import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import jsqr from 'jsqr'
import {PNG} from 'pngjs'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {logIn, runCommand, type RunOptions} from '../helpers/context.js'
import {startTestSandbox, stats, type Sandbox} from '../helpers/sandbox.js'

/** jsqr is CommonJS: under NodeNext its typed decoder is the module's `default`. */
const jsQR = jsqr.default
const isQrLine = (line: string) => line.length >= 21 && /^[█▀▄ ]+$/.test(line)
const charges = (counts: Record<string, number>) => Object.entries(counts).filter(([route]) => route.startsWith('POST ') && route.includes('transaction')).reduce((sum, [, count]) => sum + count, 0)

describe('a QR code got again: tx get --qr and --qr-png, from the charge itself', () => {
  let sandbox: Sandbox
  let config: ReturnType<typeof tempConfigDir>
  let env: Record<string, string>
  let dir: string
  const cli = (args: string[], options: RunOptions = {}) => runCommand(args, {env, ...options})
  const terminal = (columns: number, rows: number): RunOptions => ({tty: {stdout: true, stderr: true, stdin: true}, columns, rows, env: {...env, NO_COLOR: '1'}})

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    config = tempConfigDir()
    env = {GATEWAY_CONFIG_DIR: config.dir}
    await logIn(sandbox.baseUrl, env)
    dir = mkdtempSync(join(tmpdir(), 'gateway-qr-'))
  })
  afterAll(async () => {
    await sandbox.close()
    config.remove()
    rmSync(dir, {recursive: true, force: true})
  })

  it('at 80×24 tx create names `tx get <its id> --qr-png FILE`, which writes the image of that charge and makes none', async () => {
    const created = await cli(['tx', 'create', '--amount', '4990'], terminal(80, 24))
    expect(created.code, created.stderr).toBe(0)
    const code = /Pix copia e cola:\n(.+)/.exec(created.stdout)![1]
    const suggested = /Get the image with `gateway tx get ([0-9a-f-]{36}) --qr-png FILE`/.exec(created.stderr)
    expect(suggested, created.stderr).not.toBeNull()
    const id = suggested![1]
    expect(created.stdout).toContain(id)
    expect(created.stderr).not.toMatch(/tx create[^\n]*--qr-png/)

    const before = charges((await stats(sandbox.baseUrl)).byRoute)
    const file = join(dir, 'x.png')
    const got = await cli(['tx', 'get', id, '--qr-png', file])
    expect(got.code, got.stderr).toBe(0)
    expect(got.stderr).toContain(`QR code of transaction ${id} written to ${file}`)
    expect(charges((await stats(sandbox.baseUrl)).byRoute)).toBe(before)
    const png = PNG.sync.read(readFileSync(file))
    const found = jsQR(new Uint8ClampedArray(png.data), png.width, png.height)
    expect(found?.data).toBe(code)
  })

  it('tx get --qr draws the code by the same fitting rule: whole on a tall screen, left out at 80×24 naming tx get', async () => {
    const created = await cli(['tx', 'create', '--amount', '1000', '--json'])
    const {id, pixResponse} = JSON.parse(created.stdout) as {id: string; pixResponse: {uri: string}}
    const tall = await cli(["tx", "get", id, "--qr"], terminal(80, 90))
    expect(tall.code, tall.stderr).toBe(0)
    expect(tall.stdout.split('\n').filter(isQrLine).length).toBeGreaterThan(20)
    const short = await cli(['tx', 'get', id, '--qr'], terminal(80, 24))
    expect(short.code).toBe(0)
    expect(short.stdout.split('\n').filter(isQrLine)).toEqual([])
    expect(short.stderr).toContain(`Get the image with \`gateway tx get ${id} --qr-png FILE\``)
    // Piped, --qr draws it all the same.
    const piped = await cli(['tx', 'get', id, '--qr'])
    expect(piped.stdout.split('\n').filter(isQrLine).length).toBeGreaterThan(20)
    expect(pixResponse.uri).toMatch(/^000201/)
  })

  it('--qr-png to a folder that does not exist is refused before the lookup (exit 2)', async () => {
    const created = await cli(['tx', 'create', '--amount', '1000', '--json'])
    const {id} = JSON.parse(created.stdout) as {id: string}
    const result = await cli(['tx', 'get', id, '--qr-png', join(dir, 'none', 'x.png')])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/--qr-png .* cannot be written: the folder .* does not exist/)
  })
})
