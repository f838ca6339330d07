/**
 * How deep a JSON value nests, measured without recursion, so that a hostile body nested
 * thousands of levels deep is measured, and refused, instead of overflowing the stack of
 * whatever walks it next. Stops counting past `limit`.
 */
export const MAX_JSON_DEPTH = 64

export function jsonDepthExceeds(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (current === null || typeof current !== 'object') continue
    if (depth > limit) return true
    for (const inner of Array.isArray(current) ? current : Object.values(current)) {
      if (inner !== null && typeof inner === 'object') stack.push([inner, depth + 1])
    }
  }
  return false
}
