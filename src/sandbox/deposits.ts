import type {Route} from './router.js'
import type {SandboxState} from './state.js'

/** GET /core/deposit with snapshot paging, and the PIX-key deposit control. */
export function depositRoutes(_state: SandboxState): Route[] {
  return []
}

/** Fills `count` varied deposits. */
export function seedDeposits(_state: SandboxState, _count: number): void {}
