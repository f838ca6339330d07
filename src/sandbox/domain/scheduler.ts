/** Timers that die with the sandbox: auto-pay, notification deliveries. */
export class Scheduler {
  private readonly timers = new Set<NodeJS.Timeout>()

  /** Runs `fn` after `ms`, unless the sandbox is disposed first. Never keeps the process alive. */
  later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      fn()
    }, ms)
    timer.unref()
    this.timers.add(timer)
  }

  dispose(): void {
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }
}
