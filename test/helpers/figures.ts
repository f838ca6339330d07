import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

/** Where the reliability tests leave the figures docs/security.md quotes (Reliability): one JSON file per test file. */
export const FIGURES_DIR = fileURLToPath(new URL('../../reports/reliability', import.meta.url))

/**
 * Records the figures one test file measured, replacing those of its previous run, and prints them
 * to stderr, so every run leaves the numbers it produced.
 */
export function recordFigures(name: string, figures: Record<string, unknown>): void {
  mkdirSync(FIGURES_DIR, {recursive: true})
  writeFileSync(join(FIGURES_DIR, `${name}.json`), `${JSON.stringify({measuredAt: new Date().toISOString(), ...figures}, null, 2)}\n`)
  process.stderr.write(`[figures] ${name}: ${JSON.stringify(figures)}\n`)
}
