import type {Reporter, TestModule, Vitest} from 'vitest/node'

/**
 * After every run: each test that did not run, with why. A test skips only for what it names (its
 * `context.skip(note)`, or its own title: "zsh: not installed on this machine, ..."); a condition
 * (`skipIf`, `runIf`) with neither is said to be one. CI installs what the tests need (.ci/run), so
 * a skip there is a machine missing something, and says what.
 */
export default class SkipReporter implements Reporter {
  private filtered = false

  onInit(vitest: Vitest): void {
    // A run narrowed by -t skips what it leaves out: those are not the machine's doing.
    this.filtered = Boolean(vitest.config.testNamePattern)
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (this.filtered) return
    const skipped: string[] = []
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const result = test.result()
        if (result.state !== 'skipped') continue
        const why = result.note ?? (test.options.mode === 'todo' ? 'to do' : 'its condition (skipIf/runIf) did not hold here')
        skipped.push(`  ${module.relativeModuleId} > ${test.fullName}: ${why}`)
      }
    }
    process.stderr.write(skipped.length === 0 ? 'Skipped: none.\n' : `Skipped: ${skipped.length}, each with why:\n${skipped.join('\n')}\n`)
  }
}
