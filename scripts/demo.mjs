#!/usr/bin/env node
// The operator's whole flow against the embedded sandbox: start it, log in, charge a customer and
// show the QR code, pay it, look it up, then browse and filter deposits. Uses a throwaway config
// folder, so the operator's own profiles are never touched.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
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
function gateway(args, {extraEnv = {}, capture = false} = {}) {
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
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`gateway ${args[0]} ${args[1] ?? ''} exited ${code}`))))
  })
}

async function startSandbox() {
  console.log(bold('$ gateway sandbox start --port 0 --seed-deposits 2000 --json &'))
  const child = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--seed-deposits', '2000', '--json'], {
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

  const created = await gateway([
    'tx', 'create', '--amount', '7980',
    '--customer-name', 'Maria Silva', '--customer-document', '529.982.247-25', '--customer-email', 'maria@example.com',
    '--item', 'title=T-shirt,unitPrice=2990,quantity=2', '--item', 'title=Cap,unitPrice=2000',
    '--metadata', 'order=4711', '--qr',
  ], {capture: true})
  const id = /ID:\s+([0-9a-f-]{36})/.exec(created)?.[1]
  if (!id) throw new Error('tx create printed no id')

  await gateway(['sandbox', 'pay', id])
  await gateway(['tx', 'get', id])

  await gateway(['deposits', 'list', '--status', 'PAID', '--origin', 'QRCODE', '--from', '30d', '--per-page', '10', '--no-interactive'])
  await gateway(['sandbox', 'deposit', '--amount', '125000', '--status', 'PENDING_COMPLIANCE'])
  await gateway(['deposits', 'list', '--origin', 'PIX_KEY', '--status', 'PENDING_COMPLIANCE', '--from', '24h', '--no-interactive'])
  console.log(`\n${bold('Done.')} The sandbox was at ${ready.baseUrl}; the demo's config folder is removed.`)
} finally {
  sandbox.kill('SIGTERM')
  rmSync(home, {recursive: true, force: true})
}
