import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'

const SRC = new URL('../../src/', import.meta.url).pathname

/** The variables src/ reads: env.NAME, env['NAME'], a flag's env: 'NAME', and the proxy variables. */
export function variablesRead(): string[] {
  const found = new Set<string>()
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (name.endsWith('.ts')) {
        const text = readFileSync(path, 'utf8')
        for (const match of text.matchAll(/env\??\.([A-Z][A-Z0-9_]+)|env\[['"]([A-Za-z_]+)['"]\]|env: '([A-Z_]+)'|'(GATEWAY_[A-Z0-9_]+)'|\b((?:https?|no|all)_proxy|(?:HTTPS?|NO|ALL)_PROXY)\b/g)) {
          found.add(match.slice(1).find(Boolean)!)
        }
      }
    }
  }
  walk(SRC)
  // Read by the libraries the CLI runs, or by Node for it.
  for (const name of ['NODE_TLS_REJECT_UNAUTHORIZED', 'FORCE_COLOR', 'PAGER', 'LESS', 'LINES', 'SHELL', 'DEBUG', 'LANG', 'LC_ALL', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'TMPDIR']) found.add(name)
  // Written by the build only (it makes the code caches), and the error code that is not a variable.
  for (const name of ['GATEWAY_CODE_CACHE_WRITE', 'GATEWAY_MOVED']) found.delete(name)
  return [...found].sort()
}

