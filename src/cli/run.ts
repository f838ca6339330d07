import {AsyncLocalStorage} from 'node:async_hooks'

import type {CommandContext} from './context.js'

/**
 * The context a command runs in when its caller chose one (tests run commands in-process this
 * way); otherwise the command builds one from the process.
 */
export const contextStorage = new AsyncLocalStorage<CommandContext>()
