import type {Route} from './router.js'
import type {SandboxState} from './state.js'

/** POST /core/transaction, GET /core/transaction/{id}, and the life-cycle controls. */
export function transactionRoutes(_state: SandboxState): Route[] {
  return []
}
