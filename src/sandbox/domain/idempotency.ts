import {createHash} from 'node:crypto'

import {isJsonObject} from '../../schemas/rules.js'
import {Invalid} from './errors.js'

/** JSON with object keys sorted at every level, so that key order does not change a digest. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isJsonObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** The digest a replay is compared by: give it the validated body, so that unknown fields do not count. */
export const digestOf = (body: unknown): string => createHash('sha256').update(canonicalJson(body)).digest('hex')

interface Made<T> {
  digest: string
  value: T
}

/**
 * Requests by idempotency key. The same key with the same body answers what the first request
 * made, and never makes a second one, even while the first is still being made; the same key
 * with another body is refused. Each kind of record (transactions, withdrawals) has its own keys.
 */
export class IdempotencyIndex<T> {
  private readonly made = new Map<string, Made<T>>()
  private readonly making = new Map<string, Promise<Made<T>>>()

  /** @param kind how the record is named in the refusal, e.g. "transaction" */
  constructor(
    private readonly kind: string,
    private readonly idOf: (value: T) => string,
  ) {}

  /**
   * What `key` made, or what `make` makes now. Raises Invalid for a key used with another body.
   * Without a key, `make` runs every time.
   */
  async run(key: string | undefined, digest: string, make: () => Promise<T> | T): Promise<{value: T; replayed: boolean}> {
    if (key === undefined) return {value: await make(), replayed: false}
    const inFlight = this.making.get(key)
    const earlier = this.made.get(key) ?? (inFlight && (await inFlight))
    if (earlier) {
      if (earlier.digest !== digest) {
        throw new Invalid(
          `idempotencyKey "${key}" was already used with another body (${this.kind} ${this.idOf(earlier.value)}): use a new key for a new ${this.kind}`,
        )
      }
      return {value: earlier.value, replayed: true}
    }
    const pending = Promise.resolve()
      .then(make)
      .then((value) => ({digest, value}))
    this.making.set(key, pending)
    try {
      const made = await pending
      this.made.set(key, made)
      return {value: made.value, replayed: false}
    } finally {
      this.making.delete(key)
    }
  }
}
