import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCommand} from '../helpers/context.js'
import {variablesRead} from '../helpers/env-vars.js'
import {deadPort} from '../helpers/network.js'

/**
 * No value of any variable the CLI reads makes it exit 1 or speak of a bug: every one is fed
 * garbage, and each command ends with a code that means something (0, 2, 3, 4, 7...). The
 * variables are those the sources read (found in src/ here, so a new one is covered), and those
 * its libraries read.
 */
const GARBAGE = [
  '',
  ' ',
  '%',
  '\\%',
  '-1',
  '0',
  'NaN',
  '1e999',
  '99999999999999999999999',
  'x'.repeat(5000),
  '../../../../etc/passwd',
  '/dev/null',
  '/nonexistent/path',
  '\u001b[31mred\u001b[0m',
  '{"json": [',
  'ç😀\u202e',
  'http://ops@corp:p@ss:w%rd#1@127.0.0.1:3128',
  'https://[::1',
  '*',
  'true',
]

describe('every variable the CLI reads, fed garbage', () => {
  let base: string
  let dead: number
  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'gateway-garbage-'))
    dead = await deadPort()
  })
  afterAll(() => rmSync(base, {recursive: true, force: true}))

  const variables = variablesRead()

  it('finds the variables in the sources', () => {
    expect(variables).toEqual(expect.arrayContaining(['GATEWAY_BASE_URL', 'GATEWAY_CONFIG_DIR', 'GATEWAY_RETRIES', 'HTTPS_PROXY', 'no_proxy', 'SSL_CERT_FILE', 'TZ', 'COLUMNS']))
  })

  it.each(variables)('%s: never exit 1, never "bug"', async (variable) => {
    let run = 0
    for (const value of GARBAGE) {
      run += 1
      const env = {
        GATEWAY_CONFIG_DIR: join(base, `${variable}-${run}`),
        GATEWAY_CLIENT_ID: 'garbage-client',
        GATEWAY_CLIENT_SECRET: 'garbage-secret-value',
        [variable]: value,
      }
      for (const args of [
        ['tx', 'get', '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11', '--base-url', `https://gateway.invalid:${dead}`, '--retries', '0', '--timeout', '2s'],
        ['deposits', 'list', '--base-url', `http://127.0.0.1:${dead}`, '--retries', '0'],
        ['journal', 'list'],
        ['auth', 'status'],
      ]) {
        const result = await runCommand(args, {env})
        const text = `${result.stdout}\n${result.stderr}`
        expect(result.code, `${variable}=${JSON.stringify(value.slice(0, 40))} gateway ${args.join(' ')}: ${text.slice(0, 400)}`).not.toBe(1)
        expect(text, `${variable}=${JSON.stringify(value.slice(0, 40))} gateway ${args.join(' ')}`).not.toMatch(/\bbug\b/i)
      }
    }
  })
})
