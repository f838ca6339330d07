import {existsSync} from 'node:fs'
import {fileURLToPath} from 'node:url'

/** The e2e project (vitest.config.ts) drives the built CLI: refuse to run it against a missing build. */
export default function setup(): void {
  const bin = fileURLToPath(new URL('../../dist/commands/login.js', import.meta.url))
  if (!existsSync(bin)) throw new Error('dist/ is missing: run `npm run build` (npm test does it for you)')
}
