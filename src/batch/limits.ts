/** A batch of more rows than this is refused unless --max-rows raises the limit. */
export const MAX_BATCH_ROWS = 10_000

/** Payouts: R$ 100.000,00 in all unless --max-total raises it. */
export const WITHDRAW_MAX_TOTAL = 10_000_000

/** Charges move no money out: R$ 1.000.000,00 in all unless --max-total raises it. */
export const TX_CREATE_MAX_TOTAL = 100_000_000

/** Rows sent at once unless --concurrency says otherwise. */
export const DEFAULT_CONCURRENCY = 4
