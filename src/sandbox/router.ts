import type {IncomingMessage, ServerResponse} from 'node:http'

import type {SandboxState, TokenClaims} from './state.js'

export interface RouteContext {
  req: IncomingMessage
  res: ServerResponse
  url: URL
  params: Record<string, string>
  state: SandboxState
  /** The verified bearer's claims, on authenticated routes. */
  client?: TokenClaims
}

export interface Route {
  method: string
  /** A path with `:name` segments, e.g. /core/transaction/:id */
  path: string
  /** Needs a valid bearer token (default true). */
  auth?: boolean
  /** Scope the token must carry (403 otherwise). */
  scope?: string
  /** Counted as a call to the gateway API (default true); false for sandbox controls. */
  api?: boolean
  handler: (ctx: RouteContext) => Promise<void> | void
}

interface Compiled {
  route: Route
  regex: RegExp
  names: string[]
}

export type Match = {route: Route; params: Record<string, string>} | {allowed: string[]} | undefined

export class Router {
  private readonly routes: Compiled[] = []

  add(...routes: Route[]): this {
    for (const route of routes) {
      const names: string[] = []
      const source = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
        names.push(name)
        return '([^/]+)'
      })
      this.routes.push({route, regex: new RegExp(`^${source}/?$`), names})
    }
    return this
  }

  match(method: string, pathname: string): Match {
    const allowed: string[] = []
    for (const {route, regex, names} of this.routes) {
      const found = regex.exec(pathname)
      if (!found) continue
      if (route.method !== method) {
        allowed.push(route.method)
        continue
      }
      const params: Record<string, string> = {}
      names.forEach((name, index) => {
        params[name] = decodeURIComponent(found[index + 1])
      })
      return {route, params}
    }
    return allowed.length > 0 ? {allowed} : undefined
  }
}
