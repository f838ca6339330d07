import {readFileSync} from 'node:fs'

import {describe, expect, it} from 'vitest'

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

/** What the README tells an operator to paste must work where it will be pasted. */
describe('the README', () => {
  const cronBlocks = [...README.matchAll(/```cron\n([\s\S]*?)```/g)].map((match) => match[1])

  it('gives cron a PATH in every crontab it shows: cron runs with /usr/bin:/bin, where an npm-installed gateway is not found', () => {
    expect(cronBlocks.length).toBeGreaterThan(1)
    for (const block of cronBlocks) {
      const lines = block.trim().split('\n')
      expect(lines[0], block).toMatch(/^PATH=\S*\/usr\/local\/bin/)
      // The crontab's variables (PATH, the config folder, MAILTO), then its jobs, each with five time fields.
      for (const job of lines.slice(1).filter((line) => !/^[A-Z_]+=/.test(line))) expect(job, job).toMatch(/^(\S+\s+){5}/)
    }
  })

  it('makes a charge that cron may run twice safe: it carries an external code, and journal retry follows', () => {
    const charge = cronBlocks.flatMap((block) => block.split('\n')).find((line) => line.includes('tx create'))
    expect(charge).toMatch(/--external-code \S+/)
    expect(charge).toMatch(/\|\| \{ code=\$\?; .*gateway journal retry --yes\b.*; exit \$code; \}$/)
  })

  it('keeps the exit code of every crontab line that runs something after a failure: no bare `|| next`', () => {
    for (const job of cronBlocks.flatMap((block) => block.trim().split('\n').filter((line) => !/^[A-Z_]+=/.test(line)))) {
      expect(job, job).not.toMatch(/\|\| (?!\{ code=\$\?;)/)
      if (job.includes('||')) expect(job, job).toMatch(/exit \$code; \}$/)
    }
  })

  it('says -v is --version at the top level only, as the program does', () => {
    expect(README).toContain('`-v` is `--version` at the top level')
    expect(README).not.toMatch(/-v` is `--version` everywhere/)
  })
})
