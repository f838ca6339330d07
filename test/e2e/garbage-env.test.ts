import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli} from '../helpers/cli.js'
import {variablesRead} from '../helpers/env-vars.js'
import {deadPort} from '../helpers/network.js'

/**
 * The same as test/security/garbage-env.test.ts, as a process: the launcher, the fast path and
 * oclif read the environment too. Every variable, a few garbage values, both paths: never exit 1,
 * never "bug".
 */
describe('every variable the CLI reads, fed garbage, in a real process', () => {
  let base: string
  let dead: number
  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'gateway-garbage-e2e-'))
    dead = await deadPort()
  })
  afterAll(() => rmSync(base, {recursive: true, force: true}))

  it.each(variablesRead())('%s', async (variable) => {
    for (const value of ['\\%', '-1', 'http://ops@corp:p@ss:w%rd#1@127.0.0.1:3128']) {
      for (const fast of ['1', '0']) {
        const env = {GATEWAY_CONFIG_DIR: join(base, variable), GATEWAY_CLIENT_ID: 'garbage-client', GATEWAY_CLIENT_SECRET: 'garbage-secret-value', GATEWAY_FAST_PATH: fast, [variable]: value}
        const result = await runCli(['tx', 'get', '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11', '--base-url', `https://gateway.invalid:${dead}`, '--retries', '0', '--timeout', '2s'], {env})
        const text = `${result.stdout}\n${result.stderr}`
        expect(result.code, `${variable}=${value} (fast path ${fast}): ${text.slice(0, 400)}`).not.toBe(1)
        expect(text).not.toMatch(/\bbug\b/i)
      }
    }
  })
})
