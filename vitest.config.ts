import {defineConfig} from 'vitest/config'

/**
 * The tests that need the build: they run bin/run.js (which loads dist/), load a module from dist/
 * in a child process, or read the packaged executable and the .deb. Every other test runs the
 * sources in this process (`npm run test:unit`).
 */
const NEEDS_BUILD = [
  'test/e2e/**/*.test.ts',
  'test/api/lock.test.ts',
  'test/commands/auth.test.ts',
  'test/commands/deposits.test.ts',
  'test/commands/experience.test.ts',
  'test/journal/journal.test.ts',
  'test/reliability/batch.test.ts',
  'test/reliability/processes.test.ts',
  'test/sandbox/commands.test.ts',
  'test/security/bound-credentials.test.ts',
  'test/security/concurrent-money.test.ts',
  'test/security/replay-body.test.ts',
  'test/security/shared-machine.test.ts',
  'test/send/money.test.ts',
]

export default defineConfig({
  test: {
    disableConsoleIntercept: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {extends: true, test: {name: 'unit', include: ['test/**/*.test.ts'], exclude: NEEDS_BUILD}},
      {extends: true, test: {name: 'e2e', include: NEEDS_BUILD, globalSetup: ['test/helpers/global-setup.ts']}},
    ],
  },
})
