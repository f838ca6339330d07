/**
 * Text from outside (a gateway's answer, a webhook sender, a file, a pasted code) is data, never
 * terminal control: every human view shows it through these functions, which replace control
 * characters (C0, C1, DEL, the line and paragraph separators, and the bidi marks, overrides and
 * isolates) with visible escapes (\n, \t, \u001b). JSON, NDJSON and CSV keep values as they are.
 */

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
const NAMED: Record<string, string> = {'\n': '\\n', '\r': '\\r', '\t': '\\t'}
const escape = (char: string) => NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`

/** The text with every control character shown as an escape: it keeps to its line and drives nothing. */
export function printable(text: string): string {
  return text.replace(CONTROL, escape)
}

/**
 * A text the CLI composed (a table, detail lines) for a terminal: its own colours (the painter's
 * exact sequences) and line breaks stay; every other control character, whoever put it there, is
 * shown as an escape.
 */
export function printableText(text: string, paint: RegExp, options: {lines?: boolean} = {}): string {
  let out = ''
  let last = 0
  for (const match of text.matchAll(paint)) {
    out += part(text.slice(last, match.index), options.lines) + match[0]
    last = match.index + match[0].length
  }
  return out + part(text.slice(last), options.lines)
}

function part(text: string, lines = false): string {
  return lines ? text.split('\n').map(printable).join('\n') : printable(text)
}
