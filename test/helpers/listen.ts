import {runCommand, type InProcessResult, type RunOptions} from './context.js'

export interface RunningListener {
  /** The URL it listens on, once it does; it rejects when the command ends before listening. */
  url: Promise<string>
  /** Ctrl-C: answers the command's result once it has stopped. */
  stop(): Promise<InProcessResult>
}

/** Runs `gateway webhooks listen ...args` in-process until `stop()`, as a person would until Ctrl-C. */
export function runListener(args: string[], options: RunOptions = {}): RunningListener {
  let interrupt!: (signal: NodeJS.Signals) => void
  const interrupted = new Promise<NodeJS.Signals>((resolve) => (interrupt = resolve))
  let found!: (url: string) => void
  let failed!: (error: Error) => void
  const url = new Promise<string>((resolve, reject) => {
    found = resolve
    failed = reject
  })
  let seen = ''
  const running = runCommand(['webhooks', 'listen', ...args], {
    ...options,
    interrupted: () => interrupted,
    onStderr: (chunk) => {
      seen += chunk
      const match = /Listening for notifications on (http:\/\/[\d.]+:\d+)/.exec(seen)
      if (match) found(match[1])
    },
  })
  void running.then((result) => failed(new Error(`webhooks listen ended with ${result.code}: ${result.stderr}`)))
  return {
    url,
    async stop() {
      interrupt('SIGINT')
      return running
    },
  }
}
