import type {IncomingMessage} from 'node:http'

import type {SandboxDomain} from '../domain/index.js'
import type {SandboxState, TokenClaims} from '../state.js'
import {HttpError, type Reply} from './reply.js'

export interface RouteContext {
  req: IncomingMessage
  url: URL
  params: Record<string, string>
  /** The server's own state: clients, signing key, faults, statistics. */
  state: SandboxState
  /** The gateway's records and rules. */
  domain: SandboxDomain
  /** The verified bearer's claims, on authenticated routes. */
  client?: TokenClaims
  /** The client the request came from, for the request log: the bearer's, or the token request's. */
  clientId?: string
}

export interface Route {
  method: string
  /** A path with `:name` segments, e.g. /core/transaction/:id */
  path: string
  /** Needs a valid bearer token (default true). */
  auth?: boolean
  /** Scope the token must carry (403 otherwise). */
  scope?: string
  /** Part of the gateway API (default true): counted as such, open to injected faults and latency. False for sandbox controls. */
  api?: boolean
  handler: (ctx: RouteContext) => Promise<Reply> | Reply
}

interface Compiled {
  route: Route
  name: string
  regex: RegExp
  names: string[]
}

export type Match = {route: Route; name: string; params: Record<string, string>} | {allowed: string[]} | undefined

/** "METHOD /path/pattern": how statistics and faults name a route. */
export const routeName = (route: Route) => `${route.method} ${route.path}`

/** A path segment, decoded; 400 for broken percent-encoding. */
function decodePart(part: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    throw new HttpError(400, `the path segment "${part}" is not valid percent-encoding`)
  }
}

export class Router {
  private readonly routes: Compiled[] = []

  add(...routes: Route[]): this {
    for (const route of routes) {
      const names: string[] = []
      const source = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
        names.push(name)
        return '([^/]+)'
      })
      this.routes.push({route, name: routeName(route), regex: new RegExp(`^${source}/?$`), names})
    }
    return this
  }

  match(method: string, pathname: string): Match {
    const allowed: string[] = []
    for (const {route, name, regex, names} of this.routes) {
      const found = regex.exec(pathname)
      if (!found) continue
      if (route.method !== method) {
        allowed.push(route.method)
        continue
      }
      const params: Record<string, string> = {}
      names.forEach((key, index) => {
        params[key] = decodePart(found[index + 1])
      })
      return {route, name, params}
    }
    return allowed.length > 0 ? {allowed} : undefined
  }
}
