import {Flags} from '@oclif/core'

import {isLoopbackHost} from '../../api/base-url.js'
import {BaseCommand, jsonFlag} from '../../base-command.js'
import {UsageError} from '../../cli/errors.js'

export default class SandboxStart extends BaseCommand<typeof SandboxStart> {
  static override summary = 'Run the embedded gateway sandbox in the foreground.'

  static override description = `Starts a local emulator of the whole gateway API on loopback: tokens, transactions with real BR Code QR payloads, deposits with snapshot paging, and sandbox-only controls that move a record through its life. It keeps its state in memory and runs until SIGINT or SIGTERM.

With --json it prints exactly one line on stdout when ready: {"baseUrl": ..., "clients": [...]}.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {description: 'Any free port, machine-readable', command: '<%= config.bin %> <%= command.id %> --port 0 --json'},
    {description: 'Tokens that live 2 minutes', command: '<%= config.bin %> <%= command.id %> --token-ttl 120'},
    {description: 'For a demo: 10,000 past deposits, and QR codes that pay themselves after 3 s', command: '<%= config.bin %> <%= command.id %> --seed-deposits 10000 --auto-pay 3000'},
    {description: 'Webhooks to a local listener (gateway webhooks listen), webhookUrl staying https', command: '<%= config.bin %> <%= command.id %> --forward-webhooks http://127.0.0.1:4020/'},
  ]

  static override flags = {
    json: jsonFlag('one line when ready: baseUrl and the clients'),
    host: Flags.string({description: 'Address to listen on (loopback only).', default: '127.0.0.1'}),
    port: Flags.integer({description: 'Port to listen on; 0 takes any free port.', default: 4010, min: 0, max: 65_535}),
    'token-ttl': Flags.integer({description: 'Lifetime of issued tokens, in seconds.', default: 3600, min: 1, max: 86_400 * 30}),
    'auto-pay': Flags.integer({description: 'Pay every new QR code after this many milliseconds.', min: 1, helpValue: '<ms>'}),
    'seed-deposits': Flags.integer({description: 'Fill this many varied deposits at start-up (every status, both origins, 90 days).', min: 0, helpValue: '<count>'}),
    'forward-webhooks': Flags.string({
      description: 'Deliver every notification to this local listener instead of its webhookUrl; the intended URL goes in the X-Original-Url header.',
      helpValue: '<url>',
    }),
  }

  async run(): Promise<void> {
    const {flags} = this
    if (!isLoopbackHost(flags.host)) throw new UsageError(`--host must be a loopback address, got "${flags.host}"`)
    const forward = flags['forward-webhooks']
    if (forward !== undefined) {
      const {destinationUrlProblem} = await import('../../schemas/rules.js')
      const problem = destinationUrlProblem(forward)
      if (problem) throw new UsageError(`--forward-webhooks ${problem}, got "${forward}"`)
    }
    const {startSandbox} = await import('../../sandbox/server.js')
    const sandbox = await startSandbox({
      host: flags.host,
      port: flags.port,
      tokenTtlSec: flags['token-ttl'],
      autoPayMs: flags['auto-pay'],
      seedDeposits: flags['seed-deposits'],
      forwardWebhooksTo: forward,
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') throw new UsageError(`--port ${flags.port} is already in use; pick another or use --port 0`)
      throw error
    })
    const clients = sandbox.clients.map(({clientId, clientSecret, scopes}) => ({clientId, clientSecret, scopes}))
    const ctx = this.ctx
    if (this.jsonEnabled()) {
      ctx.io.stdout.write(`${JSON.stringify({baseUrl: sandbox.baseUrl, clients})}\n`)
    } else {
      ctx.out(`Sandbox listening on ${ctx.paint('bold', sandbox.baseUrl)} (tokens live ${flags['token-ttl']}s). Ctrl-C stops it.`)
      if (flags['seed-deposits']) ctx.out(`Seeded ${flags['seed-deposits']} deposits over the last 90 days.`)
      if (flags['auto-pay']) ctx.out(`New QR codes are paid after ${flags['auto-pay']} ms.`)
      if (forward) ctx.out(`Every notification goes to ${forward} (the intended URL in X-Original-Url).`)
      ctx.out('Clients:')
      for (const client of clients) ctx.out(`  ${client.clientId} / ${client.clientSecret}  scopes: ${client.scopes.join(', ')}`)
      ctx.out('Log in with:')
      ctx.out(`  GATEWAY_CLIENT_SECRET=sandbox-secret gateway login --base-url ${sandbox.baseUrl} --client-id sandbox`)
    }
    const signal = await ctx.interrupted()
    await sandbox.close()
    if (!this.jsonEnabled()) ctx.note(`Sandbox stopped (${signal}).`)
  }
}
