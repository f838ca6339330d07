/**
 * The gateway client as a library: no CLI framework inside, so a script can import it directly.
 */
export * from './errors.js'
export * from './base-url.js'
export * from './client.js'
export * from './retry.js'
export * from './token.js'
export * from './store.js'
export * from './profile.js'
export * from './gateway.js'
export * from './folder.js'
