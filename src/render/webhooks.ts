import type {Paint} from '../cli/terminal.js'
import {asciiText, printable} from '../output/printable.js'
import {localTime} from '../output/time.js'
import type {ListenerEvent} from '../webhooks/listener.js'

/** The time of day of an instant in the operator's zone: 14:03:07. */
function clock(iso: string, zone?: string): string {
  return localTime(iso, zone).split(' ')[1] ?? iso
}

/**
 * A sender's value, or a stand-in, on one line (the sender is anyone who can reach the port): its
 * documented form is ASCII (an id, a kind, a status), so any other character is shown escaped.
 */
const id = (value: string | undefined, fallback = '-') => (value ? asciiText(value) : fallback)

/**
 * One line for a person per listener event: when, which notification, and what happened.
 * received: time, notification id, kind, the record's new status, the notification's own status,
 * reference id, original destination.
 */
export function eventLine(event: ListenerEvent, paint: Paint, zone?: string): string {
  const time = paint('dim', clock(event.at, zone))
  if (event.type === 'received') {
    const parts = [time, id(event.id, '(no id)'), id(event.kind), paint('bold', id(event.recordStatus)), `[${id(event.status)}]`, `ref ${id(event.referenceId)}`]
    if (event.originalUrl) parts.push(`for ${printable(event.originalUrl)}`)
    if (event.method !== 'POST') parts.push(`(${printable(event.method)} ${printable(event.path)})`)
    return parts.join('  ')
  }
  if (event.type === 'forwarded') {
    const ok = event.status >= 200 && event.status < 300
    return [time, id(event.id, '(no id)'), `${paint(ok ? 'green' : 'yellow', `→ ${event.status}`)} from ${printable(event.target)} (${event.durationMs} ms)`].join('  ')
  }
  const answered = event.answered === undefined ? '' : `; answered ${event.answered}`
  const where = {
    forward: `could not forward to ${event.target === undefined ? 'the app' : printable(event.target)}`,
    request: 'bad request',
    answer: 'could not answer the sender',
    server: 'listener error',
    refused: 'refused, not relayed',
  }[event.stage]
  return [time, id(event.id, '(no id)'), `${paint('red', '✗')} ${where}: ${printable(event.error)}${answered}`].join('  ')
}
