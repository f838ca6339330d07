import type {StoredToken} from '../api/token.js'
import {formatDuration} from '../input/duration.js'
import type {Paint} from '../cli/terminal.js'
import {printable} from '../output/printable.js'

export interface LoginView {
  profile: string
  baseUrl: string
  clientId: string
  scopes: string[]
  expiresAt: string
  valid?: boolean
}

export function loginView(profile: string, token: StoredToken, valid?: boolean): LoginView {
  return {
    profile,
    baseUrl: token.baseUrl,
    clientId: token.clientId,
    scopes: token.scopes,
    expiresAt: new Date(token.expiresAt).toISOString(),
    ...(valid === undefined ? {} : {valid}),
  }
}

/** The lines a person reads about a login. Never the token. */
export function loginLines(view: LoginView, paint: Paint, now = Date.now()): string[] {
  const left = Date.parse(view.expiresAt) - now
  const expiry = left > 0 ? `${view.expiresAt} (in ${formatDuration(left)})` : `${view.expiresAt} (expired)`
  const lines = [
    `  Profile:   ${view.profile}`,
    `  Base URL:  ${view.baseUrl}`,
    `  Client ID: ${view.clientId}`,
    `  Scopes:    ${view.scopes.length > 0 ? printable(view.scopes.join(', ')) : '(none)'}`,
    `  Expires:   ${expiry}`,
  ]
  if (view.valid !== undefined) lines.push(`  Valid:     ${view.valid ? paint('green', 'yes') : paint('red', 'no')}`)
  return lines
}
