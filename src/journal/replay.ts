import {checkEndpointPath} from '../api/base-url.js'
import {TRANSACTION_PATH} from '../api/gateway.js'
import {maskKey, type JournalEntry} from './journal.js'

/**
 * What a replay of a journal entry sends is its recorded body, and nothing else: what is shown of
 * an entry (its amount, its destination) is read from that body, and before it is sent again the
 * body passes the same offline checks as the command that wrote it (the contract, its limits, the
 * PIX key's rules). An entry whose body fails them is not replayed.
 */

/** The command a journal entry belongs to, whether sent singly or in a batch: "withdraw". */
const family = (command: string) => command.replace(/ --batch$/, '')

/** The amount the body will send, in cents; undefined when it holds none that could be sent. */
export function replayAmount(entry: JournalEntry): number | undefined {
  const amount = entry.request?.body?.amount
  return typeof amount === 'number' && Number.isSafeInteger(amount) ? amount : undefined
}

/** Where the body will send the money (a PIX key, masked), if anywhere. */
export function replayDestination(entry: JournalEntry): string | undefined {
  const key = entry.request?.body?.pixKey
  return typeof key === 'string' ? maskKey(key) : undefined
}

/** The problems that keep an entry from being replayed: none when its body passes the command's own checks. */
export async function replayProblems(entry: JournalEntry): Promise<string[]> {
  const request = entry.request
  const body = request?.body
  if (!request || request.method !== 'POST' || !body || typeof body !== 'object' || Array.isArray(body)) return ['the recorded request is not a POST with a body']
  const problems: string[] = []
  if (body.idempotencyKey !== entry.idempotencyKey) problems.push(`the body's idempotencyKey is not the entry's key ${entry.idempotencyKey}`)
  const noKey = (): string => {
    throw new Error('a recorded body always has an idempotency key')
  }
  const base = structuredClone(body)
  const issues: Array<{path: string; message: string}> = []
  switch (family(entry.command)) {
    case 'withdraw': {
      try {
        checkEndpointPath(request.path, 'the recorded path')
      } catch (error) {
        problems.push((error as Error).message)
      }
      const {prepareWithdraw} = await import('../input/withdraw.js')
      issues.push(...(await prepareWithdraw({}, base, noKey)).issues)
      break
    }
    case 'tx create': {
      if (request.path !== TRANSACTION_PATH) problems.push(`the recorded path ${request.path} is not ${TRANSACTION_PATH}`)
      const {prepareCreate} = await import('../input/transaction.js')
      issues.push(...(await prepareCreate({}, base, noKey)).issues)
      break
    }
    default:
      problems.push(`"${entry.command}" is not a command whose requests are replayed`)
  }
  for (const issue of issues) problems.push(`${issue.path || 'the body'} ${issue.message}`)
  return problems
}
