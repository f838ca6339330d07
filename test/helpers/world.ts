import {afterAll, beforeAll} from 'vitest'

import {tempConfigDir} from './cli.js'
import {logIn} from './context.js'
import {startTestSandbox, type Sandbox} from './sandbox.js'
import type {SandboxOptions} from '../../src/sandbox/server.js'

/** What a describe block works against: a sandbox on port 0, a config folder of its own, logged in. */
export interface LoggedIn {
  sandbox: Sandbox
  config: ReturnType<typeof tempConfigDir>
  /** GATEWAY_CONFIG_DIR of that folder. */
  env: Record<string, string>
}

/**
 * Starts a sandbox and logs its default client in, in a fresh config folder, before the block's
 * tests (beforeAll), and removes both after them. The fields are filled in by then.
 */
export function loggedInSandbox(options: SandboxOptions = {}): LoggedIn {
  const world = {} as LoggedIn
  beforeAll(async () => {
    world.sandbox = await startTestSandbox(options)
    world.config = tempConfigDir()
    world.env = {GATEWAY_CONFIG_DIR: world.config.dir}
    await logIn(world.sandbox.baseUrl, world.env)
  })
  afterAll(async () => {
    await world.sandbox?.close()
    world.config?.remove()
  })
  return world
}
