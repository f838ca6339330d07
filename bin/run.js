#!/usr/bin/env node
import {flush, handle, run} from '@oclif/core'

const argv = process.argv.slice(2)
try {
  await run(argv, import.meta.url)
  await flush()
} catch (error) {
  // A mistyped command is a usage error (exit 2), said in one line with the closest command.
  const {commandNotFound} = await import('../dist/cli/not-found.js')
  const line = commandNotFound(error, argv, new URL('../oclif.manifest.json', import.meta.url), 'gateway')
  if (line === undefined) await handle(error)
  else {
    process.stderr.write(`Error: ${line}\n`)
    process.exitCode = 2
  }
}
