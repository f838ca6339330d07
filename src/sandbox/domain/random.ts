import type {Random} from './fixtures.js'

/** Mulberry32: a tiny seeded generator of numbers in [0, 1), plenty for test data and fault plans. */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let mixed = Math.imul(state ^ (state >>> 15), state | 1)
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61)
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** An integer in [min, max]. */
export const between = (random: Random, min: number, max: number) => min + Math.floor(random() * (max - min + 1))

const HEX = Array.from({length: 256}, (_, byte) => byte.toString(16).padStart(2, '0'))

/** A UUID v4 drawn from a seeded generator, so seeded ids repeat with the seed too. */
export function seededUuid(random: Random): string {
  let hex = ''
  for (let word = 0; word < 4; word += 1) {
    const value = Math.floor(random() * 0x1_0000_0000)
    hex += HEX[value >>> 24] + HEX[(value >>> 16) & 0xff] + HEX[(value >>> 8) & 0xff] + HEX[value & 0xff]
  }
  const variant = '89ab'[Number.parseInt(hex[16], 16) & 3]
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20)}`
}
