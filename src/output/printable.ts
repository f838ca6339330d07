/**
 * Text from outside (a gateway's answer, a webhook sender, a file, a pasted code) is data, never
 * terminal control. `printable` is the one escape every human view applies to such text before it
 * is composed or painted: it shows as an escape (\n, \t, \u001b, \u200b, \u{e0041}) every
 * character that could drive the terminal or hide from the reader:
 *
 * - C0, C1 and DEL, and the line and paragraph separators;
 * - every bidi control (U+061C, U+200E–F, U+202A–E, U+2066–9);
 * - the default-ignorable code points that render as nothing (U+00AD, U+115F–1160, U+200B–D,
 *   U+2060–4, U+3164, U+FEFF, U+FFA0) and the tag block U+E0000–E007F;
 * - the noncharacters U+FDD0–FDEF, which no text holds.
 *
 * `asciiText` is the same for fields whose documented form is ASCII (ids, statuses, codes, dates,
 * document masks, key types): any other character is escaped too, so `РАID` in Cyrillic cannot
 * print as PAID. Colour is added after escaping (see cli/terminal.ts), never let through from
 * outside. JSON, NDJSON and CSV keep values as they are.
 */

export const UNSAFE_CHARS =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufdd0-\ufdef\ufeff\uffa0\u{e0000}-\u{e007f}]/gu
/** The same, and every character outside printable ASCII. */
const NOT_ASCII = /[^\u0020-\u007e]/gu
const NAMED: Record<string, string> = {'\n': '\\n', '\r': '\\r', '\t': '\\t'}

/** One character as an escape: \n, \r, \t by name, \uXXXX in the basic plane, \u{XXXXX} beyond it. */
export function escapeChar(char: string): string {
  const named = NAMED[char]
  if (named) return named
  const code = char.codePointAt(0) ?? 0
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/** The text with every control, bidi and invisible character shown as an escape: it keeps to its line and hides nothing. */
export function printable(text: string): string {
  return String(text).replace(UNSAFE_CHARS, escapeChar)
}

/** A field whose documented form is ASCII: every other character is shown as an escape, look-alikes included. */
export function asciiText(text: string): string {
  return String(text).replace(NOT_ASCII, escapeChar)
}

