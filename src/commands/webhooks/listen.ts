import {Flags} from '@oclif/core'

import {isLoopbackHost} from '../../api/base-url.js'
import {BaseCommand, durationFlag} from '../../base-command.js'
import type {CommandContext} from '../../cli/context.js'
import {UsageError} from '../../cli/errors.js'
import {printable} from '../../output/printable.js'

export const LISTEN_FORMATS = ['text', 'ndjson'] as const

export interface WebhooksListenOptions {
  host: string
  port: number
  forwardTo?: string
  forwardTimeoutMs?: number
  /** The name a tunnel in front of the listener sends as Host. */
  publicHost?: string
  output?: (typeof LISTEN_FORMATS)[number]
}

export interface ListenTally {
  received: number
  forwarded: number
  failed: number
}

/** Refuses, before listening, a --forward-to that is not an http(s) URL. */
function checkForwardTo(input: string): string {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw new UsageError(`--forward-to must be an absolute http(s) URL, e.g. http://localhost:3000/webhooks; got "${input}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--forward-to must use http or https, got "${url.protocol}"`)
  return url.href
}

/** Refuses, before listening, a --public-host that is not a host name (a tunnel's, such as abc.ngrok.app). */
function checkPublicHost(input: string): string {
  const name = input.trim().toLowerCase()
  if (!/^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/.test(name)) {
    throw new UsageError(`--public-host must be the host name a tunnel sends, such as abc.ngrok.app (no scheme, port or path); got "${printable(input)}"`)
  }
  return name
}

/**
 * `webhooks listen`: a local receiver that shows each notification as it arrives, relays it to the
 * operator's app with --forward-to and answers the sender with the app's status (502 when the app
 * cannot be reached), until Ctrl-C. The receiving lives in WebhookListener; this only renders its
 * events.
 */
export async function webhooksListen(options: WebhooksListenOptions, ctx: CommandContext): Promise<ListenTally> {
  if (!options.host.trim() || /[\s\u0000-\u001f\u007f]/.test(options.host)) throw new UsageError(`--host must be an address to listen on, such as 127.0.0.1; got "${options.host}"`)
  const forwardTo = options.forwardTo === undefined ? undefined : checkForwardTo(options.forwardTo)
  const ndjson = options.output === 'ndjson' || (options.output === undefined && ctx.globals.json)
  const {WebhookListener} = await import('../../webhooks/listener.js')
  const publicHost = options.publicHost === undefined ? undefined : checkPublicHost(options.publicHost)
  const listener = new WebhookListener({host: options.host, port: options.port, forwardTo, forwardTimeoutMs: options.forwardTimeoutMs, publicHost, now: ctx.now})
  const url = await listener.start().catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') throw new UsageError(`--port ${options.port} is already in use; pick another, or --port 0 for any free one`)
    if (['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'EINVAL'].includes(error.code ?? '')) throw new UsageError(`--host ${options.host} is not an address of this machine`)
    throw error
  })
  const {eventLine} = await import('../../render/webhooks.js')
  const stop = new AbortController()
  // Subscribed before anyone is told where to send: no notification goes unshown.
  const events = listener.events(stop.signal)
  ctx.streaming = true
  ctx.note(`Listening for notifications on ${ctx.paint('bold', url)}${publicHost ? ` and as ${publicHost}` : ''}${forwardTo ? `, forwarding each to ${forwardTo}` : ''}. Ctrl-C stops.`)
  ctx.note(`  Sandbox: gateway sandbox start --forward-webhooks ${url}`)
  if (!isLoopbackHost(options.host)) ctx.note(`  Warning: ${options.host} is not loopback; anyone who can reach this port can send notifications here.`)

  const tally: ListenTally = {received: 0, forwarded: 0, failed: 0}
  let signal: string | undefined
  void ctx.interrupted().then(async (name) => {
    signal = name
    // Stop taking notifications, let those under way finish (and be shown), then end.
    await listener.close()
    stop.abort()
  })
  try {
    for await (const event of events) {
      if (event.type === 'received') tally.received += 1
      else if (event.type === 'forwarded') tally.forwarded += 1
      else tally.failed += 1
      if (ndjson) ctx.io.stdout.write(`${JSON.stringify(event)}\n`)
      else if (event.type === 'failed') ctx.note(eventLine(event, ctx.paint, ctx.env.TZ))
      else ctx.out(eventLine(event, ctx.paint, ctx.env.TZ))
    }
  } finally {
    await listener.close()
  }
  const forwarded = forwardTo ? `, ${tally.forwarded} forwarded` : ''
  ctx.note(`Stopped${signal ? ` (${signal})` : ''}: ${tally.received} received${forwarded}, ${tally.failed} failed.`)
  return tally
}

export default class WebhooksListen extends BaseCommand<typeof WebhooksListen> {
  static override summary = 'Receive notifications locally, show each as it arrives, and relay them to your app.'

  static override description = `Runs a local HTTP receiver for webhook notifications until Ctrl-C. Each notification is shown as it arrives: one line (time of arrival, notification id, kind, the record's new status, the notification's own status in brackets, reference id, the original destination) or, with --output ndjson (or --json), one JSON event per line on stdout: received, forwarded and failed.

With --forward-to, each notification is relayed, headers and body, to your app, the app's answer status is shown, and the sender is answered with that same status (never the app's body). When the app cannot be reached the sender gets 502 (504 when it is too slow), so the notification ends FAILED or ERROR and can be replayed with \`webhooks resend\`: nothing is acknowledged that was not delivered.

Only what a gateway could have sent is taken: a POST whose Host names the listener (its address, a loopback name for it, or --public-host), without an Origin header. Any other method gets 405, another Host or a browser's request (Origin) 403; none is shown as a notification or relayed. Behind a tunnel (ngrok, cloudflared), give the tunnel's host name with --public-host.

Every request is handled on its own, on a fresh connection to the app, so nothing goes stale however long it runs; every failure is printed (stderr in text mode). The sandbox delivers here with \`gateway sandbox start --forward-webhooks URL\`, keeping the notification's own webhookUrl in the X-Original-Url header.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {description: 'Relay every notification to your app', command: '<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/webhooks'},
    {description: 'Behind a tunnel that forwards https://abc.ngrok.app to port 4020', command: '<%= config.bin %> <%= command.id %> --public-host abc.ngrok.app --forward-to http://localhost:3000/webhooks'},
    {description: 'One JSON event per line, for a script', command: '<%= config.bin %> <%= command.id %> --port 4021 --output ndjson'},
  ]

  static override flags = {
    json: Flags.boolean({description: 'The same as --output ndjson: one JSON event per line on stdout (received, forwarded, failed).', helpGroup: 'GLOBAL'}),
    port: Flags.integer({description: 'Port to listen on; 0 takes any free port.', default: 4020, min: 0, max: 65_535}),
    host: Flags.string({description: 'Address to listen on.', default: '127.0.0.1'}),
    'forward-to': Flags.string({description: 'Relay each notification to this URL, and answer with its status.', helpValue: '<url>'}),
    'forward-timeout': durationFlag({description: 'How long the app may take to answer before the sender gets 504.', default: 4000, defaultHelp: async () => '4s'}),
    output: Flags.string({description: 'text: one line per event (default); ndjson: one JSON event per line.', options: [...LISTEN_FORMATS]}),
    'public-host': Flags.string({description: 'The host name a tunnel in front of the listener sends (e.g. abc.ngrok.app): accepted as Host besides the listener\'s own.', helpValue: '<name>'}),
  }

  async run(): Promise<void> {
    const {flags} = this
    await webhooksListen(
      {
        host: flags.host,
        port: flags.port,
        forwardTo: flags['forward-to'],
        forwardTimeoutMs: flags['forward-timeout'],
        publicHost: flags['public-host'],
        output: flags.output as WebhooksListenOptions['output'],
      },
      this.ctx,
    )
  }
}
