import {startSandbox, type Sandbox, type SandboxOptions} from '../../src/sandbox/server.js'
import type {SandboxStats} from '../../src/sandbox/state.js'

export type {Sandbox}

/** A real sandbox on 127.0.0.1, any free port. */
export function startTestSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({host: '127.0.0.1', port: 0, ...options})
}

export async function stats(baseUrl: string): Promise<SandboxStats> {
  const response = await fetch(`${baseUrl}/_sandbox/stats`)
  return (await response.json()) as SandboxStats
}

export async function control(baseUrl: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: body === undefined ? {} : {'content-type': 'application/json'},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

/** A token for the default sandbox client, straight from the token endpoint. */
export async function tokenFor(baseUrl: string, clientId = 'sandbox', clientSecret = 'sandbox-secret'): Promise<string> {
  const response = await fetch(`${baseUrl}/auth/token`, {
    method: 'POST',
    headers: {'content-type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams({grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret}),
  })
  if (!response.ok) throw new Error(`token request failed: ${response.status}`)
  return ((await response.json()) as {access_token: string}).access_token
}
