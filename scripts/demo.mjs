#!/usr/bin/env node
// The operator's whole flow against the embedded sandbox: start it, log in, charge a customer and
// show the QR code, pay it while a local listener shows the notification arrive, look it up,
// browse and filter deposits, replay a notification the listener missed, pay out by PIX, pay out
// a small batch from a CSV file (and run it again: nothing twice), sum the deposits up by day, and
// reconcile a day of expected charges against the deposits.
// Uses a throwaway config folder, so the operator's own profiles are never touched.
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const home = mkdtempSync(join(tmpdir(), 'gateway-demo-'))
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GATEWAY_')))
env.GATEWAY_CONFIG_DIR = join(home, 'config')
const bold = process.stdout.isTTY && !process.env.NO_COLOR ? (text) => `\u001B[1m${text}\u001B[22m` : (text) => text

/**
 * Runs `gateway ...args` as a user would, showing the command first. With `capture`, answers what
 * it printed on stdout (and still shows it); otherwise its output goes straight to the terminal.
 */
function gateway(args, {extraEnv = {}, capture = false, expectExit = 0} = {}) {
  const shown = Object.entries(extraEnv).map(([key]) => `${key}=*** `).join('')
  const quoted = args.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg}'`))
  console.log(`\n${bold(`$ ${shown}gateway ${quoted.join(' ')}`)}`)
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {env: {...env, ...extraEnv}, stdio: ['inherit', capture ? 'pipe' : 'inherit', 'inherit']})
    let out = ''
    child.stdout?.on('data', (chunk) => {
      out += chunk
      process.stdout.write(chunk)
    })
    child.on('error', reject)
    child.on('close', (code) => (code === expectExit ? resolve(out) : reject(new Error(`gateway ${args[0]} ${args[1] ?? ''} exited ${code}`))))
  })
}

/** A port that was free a moment ago, for the listener the sandbox forwards to. */
async function freePort() {
  const server = createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  const {port} = /** @type {import('node:net').AddressInfo} */ (server.address())
  await new Promise((resolve) => server.close(resolve))
  return port
}

const WEBHOOK = 'https://hooks.example.com/pix'
const listenerPort = await freePort()
const listenerUrl = `http://127.0.0.1:${listenerPort}`

/** `gateway webhooks listen` in the background, its lines shown as they come; stop() is Ctrl-C. */
async function startListener() {
  console.log(`\n${bold(`$ gateway webhooks listen --port ${listenerPort} &`)}`)
  const child = spawn(process.execPath, [bin, 'webhooks', 'listen', '--port', String(listenerPort)], {env, stdio: ['ignore', 'pipe', 'pipe']})
  createInterface({input: child.stdout}).on('line', (line) => console.log(`  [listen] ${line}`))
  const lines = createInterface({input: child.stderr})
  await new Promise((resolve, reject) => {
    lines.on('line', (line) => {
      console.log(`  [listen] ${line}`)
      if (line.startsWith('Listening')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`webhooks listen exited ${code} before it listened`)))
  })
  return {
    stop() {
      console.log(`\n${bold('$ kill -INT %webhooks-listen')}`)
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGINT')
      return exited
    },
  }
}

/** Waits until every notification of a record has had its delivery (the sandbox's own list). */
async function delivered(referenceId) {
  for (let tries = 0; tries < 100; tries++) {
    const response = await fetch(`${ready.baseUrl}/_sandbox/notifications?referenceId=${referenceId}`)
    const {data} = /** @type {{data: Array<{attempts: unknown[], status: string}>}} */ (await response.json())
    if (data.length > 0 && data.every((notification) => notification.attempts.length > 0)) return data
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`the notifications of ${referenceId} were not delivered`)
}

/** The sandbox writes here the expected charges of the day it seeds, for the reconcile at the end. */
const expectedFile = join(home, 'expected-today.csv')

async function startSandbox() {
  console.log(bold(`$ gateway sandbox start --port 0 --seed-deposits 2000 --seed-reconcile 60 --expected-file ${expectedFile} --forward-webhooks ${listenerUrl} --json &`))
  const child = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--seed-deposits', '2000', '--seed-reconcile', '60', '--expected-file', expectedFile, '--forward-webhooks', listenerUrl, '--json'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const [line] = await Promise.race([
    new Promise((resolve) => createInterface({input: child.stdout}).once('line', (text) => resolve([text]))),
    new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`the sandbox exited ${code} before it was ready`)))),
  ])
  console.log(line)
  return {child, ready: JSON.parse(line)}
}

const {child: sandbox, ready} = await startSandbox()
try {
  await gateway(['login', '--base-url', ready.baseUrl, '--client-id', 'sandbox'], {extraEnv: {GATEWAY_CLIENT_SECRET: 'sandbox-secret'}})
  await gateway(['auth', 'status'])

  const listener = await startListener()
  const created = await gateway([
    'tx', 'create', '--amount', '7980',
    '--customer-name', 'Maria Silva', '--customer-document', '529.982.247-25', '--customer-email', 'maria@example.com',
    '--item', 'title=T-shirt,unitPrice=2990,quantity=2', '--item', 'title=Cap,unitPrice=2000',
    '--metadata', 'order=4711', '--webhook-url', WEBHOOK, '--qr',
  ], {capture: true})
  const id = /ID:\s+([0-9a-f-]{36})/.exec(created)?.[1]
  if (!id) throw new Error('tx create printed no id')

  await gateway(['sandbox', 'pay', id])
  await delivered(id)
  await gateway(['tx', 'get', id])

  await gateway(['deposits', 'list', '--status', 'PAID', '--origin', 'QRCODE', '--from', '30d', '--per-page', '10', '--no-interactive'])
  await gateway(['sandbox', 'deposit', '--amount', '125000', '--status', 'PENDING_COMPLIANCE'])
  await gateway(['deposits', 'list', '--origin', 'PIX_KEY', '--status', 'PENDING_COMPLIANCE', '--from', '24h', '--no-interactive'])

  // The listener goes away: the next payment's notification finds nobody (ERROR), and is replayed later.
  await listener.stop()
  const missed = /ID:\s+([0-9a-f-]{36})/.exec(await gateway(['tx', 'create', '--amount', '1500', '--webhook-url', WEBHOOK], {capture: true}))?.[1]
  if (!missed) throw new Error('tx create printed no id')
  await gateway(['sandbox', 'pay', missed])
  const lost = await delivered(missed)
  console.log(`  (the sandbox could not deliver it: ${lost.map((notification) => notification.status).join(', ')})`)
  const again = await startListener()
  await gateway(['webhooks', 'resend', '--status', 'FAILED', '--status', 'ERROR', '--from', '10m'])
  await delivered(missed)
  await new Promise((resolve) => setTimeout(resolve, 300))

  // Money out: a PIX withdrawal, confirmed with --yes since a script has no terminal to ask in.
  const payout = JSON.parse(
    await gateway(['withdraw', '--amount', '25000', '--pix-key', 'maria@example.com', '--webhook-url', WEBHOOK, '--external-code', 'payout-4711', '--yes', '--json'], {capture: true}),
  ).id
  // The same payout run again by mistake (a cron line that ran twice): refused, exit 2, nothing sent.
  await gateway(['withdraw', '--amount', '25000', '--pix-key', 'maria@example.com', '--webhook-url', WEBHOOK, '--external-code', 'payout-4711', '--yes'], {expectExit: 2})
  await gateway(['sandbox', 'settle', payout])
  await delivered(payout)
  await new Promise((resolve) => setTimeout(resolve, 300))
  await again.stop()

  // A payout batch from a CSV file: checked row by row, summed up, sent; run again, every row is a replay.
  const batch = join(home, 'payouts.csv')
  const payouts = [
    'amount,pix-key,external-code',
    '15000,529.982.247-25,payout-2026-11-0001',
    '990,maria@example.com,payout-2026-11-0002',
    '2500,+5511987654321,payout-2026-11-0003',
    '4200,11.222.333/0001-81,payout-2026-11-0004',
  ].join('\n')
  writeFileSync(batch, `${payouts}\n`)
  console.log(`\n${bold(`$ cat ${batch}`)}\n${payouts}`)
  await gateway(['withdraw', '--batch', batch, '--yes', '--output', 'table'])
  await gateway(['withdraw', '--batch', batch, '--yes', '--output', 'table'])

  // The journal: every money-moving request sent from this config folder, and what became of it.
  await gateway(['journal', 'list'])

  // The reconciliation: the last 7 days of deposits by day and status, with the chart of the daily paid amount.
  await gateway(['deposits', 'summary', '--from', '7d'])

  // A day reconciled: the charges the shop expected (written by the sandbox with its seeded day)
  // against the last 24 hours of deposits. Exit 10: discrepancies found, as a cron job would see.
  const expected = readFileSync(expectedFile, 'utf8').split('\n')
  console.log(`\n${bold(`$ head -4 ${expectedFile}`)}\n${expected.slice(0, 4).join('\n')}\n  (${expected.filter(Boolean).length - 1} expected charges)`)
  await gateway(['deposits', 'reconcile', '--expected', expectedFile, '--from', '24h'], {expectExit: 10})
  console.log(`\n${bold('Done.')} The sandbox was at ${ready.baseUrl}; the demo's config folder is removed.`)
} finally {
  sandbox.kill('SIGTERM')
  rmSync(home, {recursive: true, force: true})
}
