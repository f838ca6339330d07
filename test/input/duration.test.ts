import {describe, expect, it} from 'vitest'

import {formatDistance, formatDuration} from '../../src/input/duration.js'

describe('formatDistance', () => {
  it('shows a moment 10 minutes or more away to the minute', () => {
    expect(formatDistance(30 * 60_000 - 400)).toBe('30m')
    expect(formatDistance(30 * 60_000 - 1_400)).toBe('30m')
    expect(formatDistance(29 * 60_000 + 20_000)).toBe('29m')
    expect(formatDistance(10 * 60_000)).toBe('10m')
    expect(formatDistance(3 * 3_600_000 + 29 * 60_000 + 40_000)).toBe('3h 30m')
  })

  it('keeps the seconds of a moment less than 10 minutes away', () => {
    expect(formatDistance(9 * 60_000 + 59_000)).toBe('9m 59s')
    expect(formatDistance(42_000)).toBe('42s')
    expect(formatDistance(500)).toBe('500ms')
  })

  it('leaves formatDuration exact', () => {
    expect(formatDuration(30 * 60_000 - 1_400)).toBe('29m 59s')
  })
})
