import {GatewayError} from '../api/errors.js'
import {requireWritableFolder} from '../api/folder.js'
import {scrub} from '../api/redact.js'
import type {CommandContext} from '../cli/context.js'
import {Journal, DEFAULT_MAX_BYTES, type EntryState, type JournalSpec, type OutcomeRecord} from './journal.js'

export type {JournalSpec}

/**
 * The journal of the context's config folder, once the folder is checked (the user's alone).
 * GATEWAY_JOURNAL_MAX_BYTES moves the rotation size, GATEWAY_LOCK_WAIT_MS how long a command waits
 * for another holding the journal (default 30 s; then exit 7, nothing sent). Without a config folder at all, exit 3:
 * there is no journal to read or write.
 */
export async function journalOf(ctx: CommandContext, purpose = 'the journal is kept in the config folder'): Promise<Journal> {
  const dir = await ctx.checkedConfigDir()
  if (dir === undefined) requireWritableFolder(dir, purpose)
  const configured = Number(ctx.env.GATEWAY_JOURNAL_MAX_BYTES)
  const wait = Number(ctx.env.GATEWAY_LOCK_WAIT_MS)
  return new Journal(dir!, {
    maxBytes: Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_MAX_BYTES,
    ...(Number.isInteger(wait) && wait >= 0 && wait <= 2 ** 31 - 1 ? {lockWaitMs: wait} : {}),
    onWait: (line) => ctx.note(line),
  })
}

/**
 * The journal, for a command that moves money: it is written before anything is sent, so a
 * config folder that cannot be written refuses the command (exit 3) before anything else.
 */
export async function writableJournal(ctx: CommandContext, command: string): Promise<Journal> {
  const purpose = `${command} needs a writable config folder for its journal`
  const journal = await journalOf(ctx, purpose)
  requireWritableFolder(journal.dir, purpose)
  return journal
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
