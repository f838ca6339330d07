import {GatewayError} from '../api/errors.js'
import {scrub} from '../api/redact.js'
import type {CommandContext} from '../cli/context.js'
import {Journal, DEFAULT_MAX_BYTES, type EntryState, type JournalSpec, type OutcomeRecord} from './journal.js'

export type {JournalSpec}

/** The journal of the context's config folder. GATEWAY_JOURNAL_MAX_BYTES moves the rotation size. */
export function journalOf(ctx: CommandContext): Journal {
  const configured = Number(ctx.env.GATEWAY_JOURNAL_MAX_BYTES)
  return new Journal(ctx.configDir, {maxBytes: Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_MAX_BYTES})
}

/**
 * What an error says about a request's fate: `failed` when the gateway refused it (nothing moved),
 * `not-sent` when it provably never left this machine (every attempt failed to connect), `pending`
 * when the outcome is unknown (a timeout, a reset, a 5xx or 429 after retries, an answer without
 * the record).
 */
export function stateAfter(error: unknown): EntryState {
  if (error instanceof GatewayError && error.notSent) return 'not-sent'
  if (error instanceof GatewayError && error.status !== undefined && !error.retryable) return 'failed'
  return 'pending'
}

/** The outcome record of an error, with secrets blanked out of its message. */
export function errorOutcome(entry: string, by: string, error: unknown, secrets: readonly string[]): OutcomeRecord {
  return {
    type: 'outcome',
    entry,
    at: new Date().toISOString(),
    state: stateAfter(error),
    by,
    error: {
      code: error instanceof GatewayError ? error.code : 'UNEXPECTED',
      message: scrub(error instanceof Error ? error.message : String(error), secrets),
      ...(error instanceof GatewayError && error.status !== undefined ? {status: error.status} : {}),
    },
  }
}
