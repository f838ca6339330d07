import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {defineConfig} from 'vitest/config'

/**
 * The tests that need the build: those under test/e2e, and any other that runs bin/run.js (`BIN`,
 * `runCli`, `runInTerminal` of test/helpers/cli.ts) or reads dist/. They are found by what their
 * source says, so a new one cannot be forgotten; their project's set-up rebuilds a stale build
 * (test/helpers/global-setup.ts). Every other test runs the sources in this process (`npm run test:unit`).
 */
export const RUNS_THE_BUILD = /\brunCli\(|\brunInTerminal\(|\bBIN\b|['"`/]dist\//
const TESTS = fileURLToPath(new URL('test/', import.meta.url))
const NEEDS_BUILD = [
  'test/e2e/**/*.test.ts',
  ...readdirSync(TESTS, {recursive: true, encoding: 'utf8'})
    .filter((path) => path.endsWith('.test.ts') && !path.startsWith('e2e/'))
    .filter((path) => RUNS_THE_BUILD.test(readFileSync(join(TESTS, path), 'utf8')))
    .map((path) => `test/${path}`),
]

export default defineConfig({
  test: {
    disableConsoleIntercept: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each skipped test is listed at the end with the condition that skipped it, found by its location.
    includeTaskLocation: true,
    reporters: ['default', './test/helpers/skip-reporter.ts'],
    projects: [
      {extends: true, test: {name: 'unit', include: ['test/**/*.test.ts'], exclude: NEEDS_BUILD}},
      {extends: true, test: {name: 'e2e', include: NEEDS_BUILD, globalSetup: ['test/helpers/global-setup.ts']}},
    ],
  },
})
