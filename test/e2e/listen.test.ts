import {spawn} from 'node:child_process'

import {describe, expect, it} from 'vitest'

import {BIN, cleanEnv} from '../helpers/cli.js'

describe('webhooks listen as a process', () => {
  it('says where it listens, shows what arrives, and ends with exit 0 on SIGINT', async () => {
    const child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', '0'], {env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk
        const match = /Listening for notifications on (http:\/\/[\d.]+:\d+)/.exec(stderr)
        if (match) resolve(match[1])
      })
      child.once('exit', () => reject(new Error(`exited early: ${stderr}`)))
    })
    const answer = await fetch(url, {
      method: 'POST',
      headers: {'content-type': 'application/json', 'x-notification-id': 'ntf-1'},
      body: JSON.stringify({id: 'ntf-1', referenceId: 'rec-1', kind: 'transaction', status: 'RECEIVED', tags: ['transaction', 'PAID'], data: {status: 'PAID'}}),
    })
    expect(answer.status).toBe(200)
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    child.kill('SIGINT')
    expect(await exited).toBe(0)
    expect(stdout).toMatch(/^\d\d:\d\d:\d\d {2}ntf-1 {2}transaction {2}PAID {2}\[RECEIVED\] {2}ref rec-1\n$/)
    expect(stderr).toMatch(/Stopped \(SIGINT\): 1 received, 0 failed\.\n$/)
  })
})
