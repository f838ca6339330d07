import {integer} from '@oclif/core/flags'

/** oclif's flag builders, taken by name: a namespace import of a CommonJS module would copy the whole module when loaded. */
const Flags = {integer}

/**
 * The global `--retries N` flag, spread into the global flags: how many times a request that may be
 * repeated safely (a GET, a POST with an idempotency key) is sent again after a passing failure.
 */
export const retryFlag = {
  retries: Flags.integer({
    description: 'Retries after a passing failure (429, 5xx, a reset or timed-out connection), for lookups and requests with an idempotency key.',
    env: 'GATEWAY_RETRIES',
    min: 0,
    max: 10,
    default: 3,
    helpGroup: 'GLOBAL',
  }),
}
