import {existsSync, readdirSync, readFileSync} from 'node:fs'

import GithubSlugger from 'github-slugger'
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

/** The README and every document under docs/, by path from the root. */
const ROOT = new URL('../', import.meta.url)
const DOCUMENTS = ['README.md', ...readdirSync(new URL('docs/', ROOT)).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]
const text = (path: string) => readFileSync(new URL(path, ROOT), 'utf8')

/** The anchors a Markdown file's headings make, as GitHub makes them (github-slugger), code blocks left out. */
function anchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger()
  const found = new Set<string>()
  for (const [, heading] of withoutCode(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) found.add(slugger.slug(heading.replace(/`/g, '')))
  return found
}
/** The text outside fenced code blocks. */
const withoutCode = (markdown: string) => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')

describe('the documents', () => {
  it('README.md is a guide a user reads: at most 450 lines and 5,000 words', () => {
    const readme = text('README.md')
    expect(readme.split('\n').length).toBeLessThanOrEqual(450)
    expect(readme.split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(5000)
  })

  it('every relative link of README.md and docs/*.md names a file that exists, and an anchor of it that its headings make', () => {
    const broken: string[] = []
    let links = 0
    for (const path of DOCUMENTS) {
      for (const [, target] of withoutCode(text(path)).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
        links++
        const [file, anchor] = target.split('#') as [string, string | undefined]
        const resolved = file === '' ? new URL(path, ROOT) : new URL(file, new URL(path, ROOT))
        if (!existsSync(resolved)) {
          broken.push(`${path}: ${target} (no such file)`)
          continue
        }
        if (anchor !== undefined && !(resolved.pathname.endsWith('.md') && anchors(readFileSync(resolved, 'utf8')).has(anchor))) broken.push(`${path}: ${target} (no such heading)`)
      }
    }
    expect(links).toBeGreaterThan(20)
    expect(broken).toEqual([])
  })

  it('names no Node other than the pinned one (package.json devDependencies.node) and the least one the CLI runs on (engines)', () => {
    const pjson = JSON.parse(text('package.json')) as {engines: {node: string}; devDependencies: {node: string}}
    const pinned = pjson.devDependencies.node
    const least = /^>=(\d+\.\d+)\.0$/.exec(pjson.engines.node)?.[1]
    expect(least).toBeDefined()
    for (const path of DOCUMENTS) {
      for (const [mention, version] of text(path).matchAll(/\bNode(?:\.js)?(?: v| )(\d+\.\d+(?:\.\d+)?)\b/g)) {
        expect([pinned, least], `${path}: "${mention}"`).toContain(version)
      }
      // "its own Node, 24.21.0": a full version anywhere next to the word Node is the pinned one.
      for (const [mention, version] of text(path).matchAll(/\bNode\b[^.\n]{0,40}?\b(\d+\.\d+\.\d+)\b/g)) expect(version, `${path}: "${mention}"`).toBe(pinned)
    }
    expect(text('README.md')).toContain(pinned)
  })
})
