import type {StoredToken} from '../api/token.js'
import {formatDistance} from '../input/duration.js'
import type {Paint} from '../cli/terminal.js'
import {printable} from '../output/printable.js'

export interface LoginView {
  profile: string
  baseUrl: string
  clientId: string
  scopes: string[]
  expiresAt: string
  valid?: boolean
  /** When the gateway's lifetime was not used as given: what was used instead. */
  lifetime?: string
}

export function loginView(profile: string, token: StoredToken, valid?: boolean): LoginView {
  return {
    profile,
    baseUrl: token.baseUrl,
    clientId: token.clientId,
    scopes: token.scopes,
    expiresAt: new Date(token.expiresAt).toISOString(),
    ...(valid === undefined ? {} : {valid}),
    ...(token.lifetimeNote ? {lifetime: token.lifetimeNote} : {}),
  }
}

/** The lines a person reads about a login. Never the token. */
export function loginLines(view: LoginView, paint: Paint, now = Date.now()): string[] {
  const left = Date.parse(view.expiresAt) - now
  const expiry = view.lifetime?.startsWith('no usable lifetime')
    ? 'this command only'
    : left > 0
      ? `${view.expiresAt} (in ${formatDistance(left)})`
      : `${view.expiresAt} (expired)`
  const lines = [
    `  Profile:   ${printable(view.profile)}`,
    `  Base URL:  ${printable(view.baseUrl)}`,
    `  Client ID: ${printable(view.clientId)}`,
    `  Scopes:    ${view.scopes.length > 0 ? printable(view.scopes.join(', ')) : '(none)'}`,
    `  Expires:   ${expiry}`,
  ]
  if (view.lifetime) lines.push(`  Lifetime:  ${paint('yellow', `the gateway's lifetime was not used as given: ${view.lifetime}`)}`)
  if (view.valid !== undefined) lines.push(`  Valid:     ${view.valid ? paint('green', 'yes') : paint('red', 'no')}`)
  return lines
}
