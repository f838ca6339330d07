// Every example of every command's --help, run as an operator's shell runs it (bash, with `gateway`
// on PATH as the built CLI), against the sandbox, each in a folder and config folder of its own: the
// placeholders filled by the test (a real charge's id for the example's UUID, a real BR Code, the
// sandbox's address for the gateway's, the files an example reads), and each must end as its text
// says. Programs an example pipes from or to that are no part of a machine (erp-export, xclip,
// mail) are small stand-ins that say they ran. An example that serves until stopped (a sandbox, a
// listener) must say it is ready, and stops on SIGINT.
import {spawn} from 'node:child_process'
import {chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, cleanEnv, runInTerminal} from '../helpers/cli.js'
import {control} from '../helpers/sandbox.js'
import {runCommand} from '../helpers/context.js'
import {makePki, tlsFront, type Pki} from '../helpers/network.js'
import {loggedInSandbox} from '../helpers/world.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {hidden?: boolean; description?: string; examples?: Array<string | {command: string; description?: string}>}>
}
/** The UUID the examples use for "a transaction of yours". */
const SAMPLE_ID = '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11'

interface Example {
  id: string
  command: string
}

const examples: Example[] = Object.entries(manifest.commands)
  .filter(([, command]) => !command.hidden)
  .flatMap(([id, command]) =>
    (command.examples ?? []).map((example) => ({
      id,
      command: (typeof example === 'string' ? example : example.command).replaceAll('<%= config.bin %>', 'gateway').replaceAll('<%= command.id %>', id.replaceAll(':', ' ')),
    })),
  )

/**
 * Examples this machine cannot run, each with why: the list is exact, so a new example is run, or
 * is added here with its reason.
 */
const NOT_RUN: Record<string, string> = {}
const notRun = (example: Example) => Object.entries(NOT_RUN).find(([part]) => example.command.includes(part))

describe('every example of every command’s --help runs against the sandbox and ends as its text says', () => {
  const world = loggedInSandbox({seedDeposits: 300})
  let home: string
  let stubs: string
  /** A gateway that requires a client certificate: TLS in front of the sandbox, trusting only the test CA's clients. */
  let pki: Pki
  let mutualTls: Awaited<ReturnType<typeof tlsFront>>
  const cli = (args: string[]) => runCommand(args, {env: world.env})
  const charge = async () => (JSON.parse((await cli(['tx', 'create', '--amount', '1000', '--json'])).stdout) as {id: string; pixResponse: {uri: string}})
  const paid = async () => {
    const made = await charge()
    expect((await cli(['sandbox', 'pay', made.id])).code).toBe(0)
    return made
  }

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'gateway-examples-'))
    stubs = join(home, 'bin')
    mkdirSync(stubs)
    const stub = (name: string, body: string) => {
      writeFileSync(join(stubs, name), `#!/bin/sh\n${body}\n`)
      chmodSync(join(stubs, name), 0o755)
    }
    stub('gateway', `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"`)
    // An ERP's export of the day's expected charges.
    stub('erp-export', 'printf "external-code,amount\\r\\nPEDIDO-00000001,1000\\r\\n"')
    // The clipboard holds a BR Code.
    stub('xclip', 'cat "$HOME/clipboard"')
    stub('mail', 'cat > "$PWD/mail-sent"')
    // A second profile, as the examples' prod.
    const login = await runCommand(['login', '--profile', 'prod', '--base-url', world.sandbox.baseUrl, '--client-id', 'sandbox'], {env: {...world.env, GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
    expect(login.code, login.stderr).toBe(0)
    pki = makePki()
    mutualTls = await tlsFront(Number(new URL(world.sandbox.baseUrl).port), {
      cert: pki.read(pki.server.cert),
      key: pki.read(pki.server.key),
      requestCert: true,
      rejectUnauthorized: true,
      ca: [pki.read(pki.ca)],
    })
  })
  afterAll(async () => {
    await mutualTls?.close()
    pki?.remove()
    rmSync(home, {recursive: true, force: true})
  })

  it('has examples to run, and names every one it cannot run here', () => {
    expect(examples.length).toBeGreaterThan(60)
    for (const part of Object.keys(NOT_RUN)) expect(examples.some((example) => example.command.includes(part)), part).toBe(true)
  })

  /** Runs an example in bash, in a folder of its own; a serving example until `ready` shows, then SIGINT. */
  const shell = (line: string, dir: string, env: Record<string, string>, ready?: RegExp) =>
    new Promise<{code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string}>((resolve, reject) => {
      const child = spawn('bash', ['-c', line], {cwd: dir, env: cleanEnv({...env, PATH: `${stubs}:${process.env.PATH}`, HOME: dir}), stdio: ['ignore', 'pipe', 'pipe']})
      let stdout = ''
      let stderr = ''
      let signalled = false
      const check = () => {
        if (ready && !signalled && ready.test(stdout + stderr)) {
          signalled = true
          // bash -c runs a simple command in its own place: the signal reaches the CLI.
          child.kill('SIGINT')
        }
      }
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => ((stdout += chunk), check()))
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => ((stderr += chunk), check()))
      const timer = setTimeout(() => child.kill('SIGKILL'), 45_000)
      child.on('error', reject)
      child.on('close', (code, signal) => {
        clearTimeout(timer)
        resolve({code, signal, stdout, stderr})
      })
    })

  for (const [index, example] of examples.entries()) {
    const skip = notRun(example)
    it.skipIf(Boolean(skip))(`${example.command}`, async () => {
      const dir = join(home, `example-${index}`)
      mkdirSync(dir)
      const config = join(dir, 'config')
      cpSync(world.env.GATEWAY_CONFIG_DIR, config, {recursive: true})
      const env: Record<string, string> = {GATEWAY_CONFIG_DIR: config}
      let line = example.command
      // The placeholders, filled.
      if (line.includes(SAMPLE_ID)) {
        const kind = /sandbox (refund|infraction|block)|--until REFUNDED|--watch/.test(line) ? 'paid' : /sandbox settle/.test(line) ? 'withdrawal' : 'charge'
        let id: string
        if (kind === 'withdrawal') id = (JSON.parse((await cli(['withdraw', '--amount', '1000', '--pix-key', 'maria@example.com', '--yes', '--json'])).stdout) as {id: string}).id
        else id = (kind === 'paid' ? await paid() : await charge()).id
        if (/--until REFUNDED/.test(line)) expect((await cli(['sandbox', 'refund', id])).code).toBe(0)
        line = line.replaceAll(SAMPLE_ID, id)
      }
      if (line.includes("'00020126580014br.gov.bcb.pix0136...6304ABCD'")) line = line.replace("'00020126580014br.gov.bcb.pix0136...6304ABCD'", `'${(await charge()).pixResponse.uri}'`)
      if (line.includes('xclip')) writeFileSync(join(dir, 'clipboard'), (await charge()).pixResponse.uri)
      if (line.includes('--snapshot 8c1f...')) {
        const first = await cli(['deposits', 'list', '--status', 'PAID', '--per-page', '20', '--json'])
        line = line.replace('8c1f...', (JSON.parse(first.stdout) as {snapshot: string}).snapshot)
      }
      line = line.replaceAll('https://api.example.com', world.sandbox.baseUrl).replaceAll('http://127.0.0.1:4010', world.sandbox.baseUrl)
      if (line.startsWith('GATEWAY_CLIENT_SECRET=...')) line = line.replace('GATEWAY_CLIENT_SECRET=...', 'GATEWAY_CLIENT_SECRET=sandbox-secret').replace('--client-id prod-client', '--client-id sandbox')
      if (line.includes('"$SECRET"')) {
        env.SECRET = 'sandbox-secret'
        line = line.replace('--client-id my-client', '--client-id sandbox')
      }
      if (/^gateway login --client-id sandbox$/.test(line)) env.GATEWAY_CLIENT_SECRET = 'sandbox-secret'
      if (/^gateway login --client-id sandbox$/.test(line)) env.GATEWAY_BASE_URL = world.sandbox.baseUrl
      // A gateway that requires a client certificate: the mutual-TLS front, its CA trusted, the client's
      // .p12 where the example keeps it (~ is this example's folder), its passphrase and the secret in
      // the environment the example names (the line holds only their names).
      const clientCertificate = line.includes('--p12 ~/certs/client.p12')
      if (clientCertificate) {
        mkdirSync(join(dir, 'certs'), {mode: 0o700})
        cpSync(pki.client.p12, join(dir, 'certs', 'client.p12'))
        chmodSync(join(dir, 'certs', 'client.p12'), 0o600)
        env.GATEWAY_CA_FILE = pki.ca
        env.P12_PASSPHRASE = pki.client.passphrase
        env.CLIENT_SECRET = 'sandbox-secret'
        line = line
          .replace('GATEWAY_CERT_PASSPHRASE=...', 'GATEWAY_CERT_PASSPHRASE="$P12_PASSPHRASE"')
          .replace('GATEWAY_CLIENT_SECRET=...', 'GATEWAY_CLIENT_SECRET="$CLIENT_SECRET"')
          .replace('https://pix.example.com', `https://127.0.0.1:${mutualTls.port}`)
          .replace('--client-id my-client', '--client-id sandbox')
      }
      const handshakes = mutualTls.handshakes()
      // The sandbox's and the listener's own ports may be taken on a shared machine: any free one.
      if (/^gateway (sandbox start|webhooks listen)/.test(line) && !line.includes('--port')) line += ' --port 0'
      if (line.includes('--port 4021')) line = line.replace('--port 4021', '--port 0')
      line = line.replace('/srv/erp/today.csv', 'today.csv')
      // The journal's examples settle a pending entry under their key (the body of withdraw's own example
      // with that key, which the same sandbox then answers as a replay): one is left in this example's
      // folder as a request whose answer was lost leaves it (the sandbox resets after acting).
      const pendingKey = /^gateway journal (resolve|retry)\b.*\b((?:order|payout)-4711)\b/.exec(line)?.[2]
      if (pendingKey) {
        const payout = pendingKey.startsWith('payout')
        await control(world.sandbox.baseUrl, '/_sandbox/faults', {route: payout ? 'POST /core/withdraw' : 'POST /core/transaction', kind: 'reset-after', count: 10})
        const money = payout ? ['withdraw', '--amount', '990', '--pix-key', 'maria@example.com', '--yes'] : ['tx', 'create', '--amount', '1000']
        const profile = line.includes('--profile prod') ? ['--profile', 'prod'] : []
        const lost = await runCommand([...money, '--idempotency-key', pendingKey, ...profile], {env, sleep: async () => {}})
        await fetch(`${world.sandbox.baseUrl}/_sandbox/faults`, {method: 'DELETE'})
        expect(lost.code, lost.stderr).toBe(7)
      }
      mkdirSync(join(dir, '.local', 'share', 'bash-completion', 'completions'), {recursive: true})
      mkdirSync(join(dir, '.zfunc'), {recursive: true})
      // The files the examples read: the help's own CSV sample for a batch of charges.
      const sample = /A CSV batch[^\n]*:\n((?: {2}.*\n?)+)/.exec(manifest.commands['tx:create'].description ?? '')![1].replace(/^ {2}/gm, '')
      writeFileSync(join(dir, 'orders.csv'), sample)
      writeFileSync(join(dir, 'payouts.csv'), 'amount,pix-key,external-code\n1500,maria@example.com,payout-0001\n2500,+5511987654321,payout-0002\n')
      writeFileSync(join(dir, 'charge.json'), JSON.stringify({amount: 1000, externalCode: 'order-4711'}))
      for (const name of ['expected.csv', 'today.csv']) writeFileSync(join(dir, name), 'external-code,amount\r\nPEDIDO-00000001,1000\r\n')
      writeFileSync(join(dir, 'expected.ndjson'), '{"external-code":"PEDIDO-00000001","amount":1000}\n')

      if (/^gateway withdraw --amount 15000 --pix-key 529\.982\.247-25$/.test(line)) {
        // Asks at a terminal before the money moves: answered yes.
        const result = await runInTerminal(line.split(' ').slice(1), {env: {...env, HOME: dir}, steps: [{expect: '\\[y/N\\]', send: 'y\r'}]})
        expect(result.code, result.output).toBe(0)
        expect(result.output).toMatch(/Withdrawal|withdrawal/)
        return
      }

      const serving = /^gateway (sandbox start|webhooks listen)/.test(line)
      const result = await shell(line, dir, env, serving ? /listening|Listening|"baseUrl"/ : undefined)
      const said = `${line}\n${result.stderr}`
      if (serving) {
        expect(`${result.stdout}${result.stderr}`, said).toMatch(/listening|Listening|"baseUrl"/)
        // Stopped by Ctrl-C: exit 0 or 130, or the signal itself, as a shell reports it.
        expect(result.code === 0 || result.code === 130 || result.signal === 'SIGINT', `${said} (${result.code}, ${result.signal})`).toBe(true)
        return
      }
      if (/deposits reconcile/.test(line) && !line.includes('mail')) {
        // The expected code is in no deposit: a discrepancy, exit 10, as the help says.
        expect([0, 10], said).toContain(result.code)
        if (line.includes('grep')) expect(result.stdout).toContain('"class":"missing"')
        return
      }
      expect(result.code, said).toBe(0)
      if (clientCertificate) {
        // Logged in through the front, which let in only a client with the CA's certificate; the
        // profile keeps the .p12's path, and no output holds the passphrase.
        expect(mutualTls.handshakes()).toBeGreaterThan(handshakes)
        expect(`${result.stdout}${result.stderr}`).not.toContain(pki.client.passphrase)
        const status = await runCommand(['auth', 'status', '--profile', 'pix', '--json'], {env: {...env, HOME: dir}})
        expect(status.code, status.stderr).toBe(0)
        expect(status.stdout).toContain(join(dir, 'certs', 'client.p12'))
      }
      if (line.includes('mail -s discrepancies')) expect(readFileSync(join(dir, 'mail-sent'), 'utf8')).toMatch(/missing|Missing/)
      const written = / > (\S+\.(?:csv|txt))| --chart png (\S+)| --qr-png (\S+)|completions\/gateway|_gateway/.exec(line)
      if (written) {
        const file = written[1] ?? written[2] ?? written[3]
        if (file) expect(existsSync(join(dir, file)), `${file} written`).toBe(true)
      }
      if (line.includes('| jq .total.amountPaid')) expect(result.stdout.trim()).toMatch(/^\d+$/)
      if (line.includes('--dry-run')) expect(result.stderr).toMatch(/nothing (was )?sent|Dry run|dry run/i)
    })
  }
})
