import {readFileSync} from 'node:fs'

import type {Reporter, TestCase, TestModule, TestSuite, Vitest} from 'vitest/node'

/**
 * After every run: each test that did not run, and why. The why is the test's own note
 * (`context.skip(note)`), else the condition that skipped it as its source writes it, on the test's
 * line or its suite's (`skipIf(!hasZsh)`, `runIf(setpriv)`; vitest.config.ts has the locations
 * kept for this), with that line. CI installs what the tests need (.ci/run), so a skip there is a
 * machine missing something, and says what.
 */
export default class SkipReporter implements Reporter {
  private filtered = false
  private readonly sources = new Map<string, string[]>()

  onInit(vitest: Vitest): void {
    // A run narrowed by -t skips what it leaves out: those are not the machine's doing.
    this.filtered = Boolean(vitest.config.testNamePattern)
  }

  private condition(module: TestModule, entity: TestCase | TestSuite): string | undefined {
    if (!this.sources.has(module.moduleId)) this.sources.set(module.moduleId, readFileSync(module.moduleId, 'utf8').split('\n'))
    const lines = this.sources.get(module.moduleId)!
    for (let at: TestCase | TestSuite | TestModule = entity; at.type !== 'module'; at = at.parent) {
      const line = at.location?.line
      const found = line === undefined ? undefined : /\.(skipIf|runIf)\((.*?)\)\(/.exec(lines[line - 1] ?? '')
      if (found) return `${found[1]}(${found[2]}) at ${module.relativeModuleId}:${line}`
      if (line !== undefined && /\.(skip|todo)\(/.test(lines[line - 1] ?? '')) return `marked ${/\.todo\(/.test(lines[line - 1]) ? 'todo' : 'skip'} at ${module.relativeModuleId}:${line}`
    }
    return undefined
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (this.filtered) return
    const skipped: string[] = []
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const result = test.result()
        if (result.state !== 'skipped') continue
        skipped.push(`  ${module.relativeModuleId} > ${test.fullName}: ${result.note ?? this.condition(module, test) ?? 'no reason given'}`)
      }
    }
    process.stderr.write(skipped.length === 0 ? 'Skipped: none.\n' : `Skipped: ${skipped.length}, each with why:\n${skipped.join('\n')}\n`)
  }
}
