import {spawnSync} from 'node:child_process'
import {chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

const CI = fileURLToPath(new URL('../.ci/run', import.meta.url))
const asRoot = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0
/** What the script finds missing: zsh, tmux and strace, which the test's PATH hides, and openpyxl, read from Debian's Python by absolute path. */
const wanted = ['zsh', 'tmux', 'strace', ...(spawnSync('/usr/bin/python3', ['-c', 'import openpyxl']).status === 0 ? [] : ['python3-openpyxl'])].join(' ')

/**
 * .ci/run installs what the tests need besides Node (zsh, tmux, strace) when it is missing, so that CI
 * skips nothing. Run here on a PATH of its own where neither is found, with an apt-get that only
 * writes down what it was asked, and a `node` that stops the script right after.
 */
describe('.ci/run on a machine without zsh, tmux and strace (and openpyxl, where it is missing)', () => {
  let bin: string
  beforeAll(() => {
    bin = mkdtempSync(join(tmpdir(), 'gateway-ci-'))
    chmodSync(bin, 0o755)
    for (const tool of ['bash', 'env', 'id', 'dirname']) symlinkSync(spawnSync('/bin/sh', ['-c', `command -v ${tool}`], {encoding: 'utf8'}).stdout.trim(), join(bin, tool))
    writeFileSync(join(bin, 'apt-get'), `#!/bin/sh\necho "apt-get $*" >> ${join(bin, 'apt.log')}\n`, {mode: 0o755})
    writeFileSync(join(bin, 'node'), '#!/bin/sh\necho "node reached" >&2\nexit 42\n', {mode: 0o755})
  })
  afterAll(() => rmSync(bin, {recursive: true, force: true}))
  const run = (prefix: string[] = []) => spawnSync(prefix[0] ?? join(bin, 'bash'), [...prefix.slice(1), ...(prefix.length ? [join(bin, 'bash')] : []), CI], {encoding: 'utf8', env: {PATH: bin}})

  it.runIf(process.getuid?.() === 0)('as root: one apt-get update, then all installed, then on to Node', () => {
    const result = run()
    expect(result.stderr).toContain('node reached')
    expect(result.status).toBe(42)
    expect(readFileSync(join(bin, 'apt.log'), 'utf8')).toBe(`apt-get update\napt-get install -y --no-install-recommends ${wanted}\n`)
  })

  it.runIf(asRoot)('as another user: stops before anything else, naming the command that installs them', () => {
    const result = run(['/usr/bin/setpriv', '--reuid=23458', '--regid=23458', '--clear-groups'])
    expect(result.status).toBe(1)
    expect(result.stderr).toBe(`the tests need ${wanted}, which are not installed: run  sudo apt-get update && sudo apt-get install -y ${wanted}\n`)
  })
})
