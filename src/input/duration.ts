const UNITS: Record<string, number> = {ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000}

/** Parses "500ms", "2s", "10m", "1h", "7d" or a bare number of seconds into milliseconds. */
export function parseDuration(input: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(input)
  if (!match) return undefined
  const value = Number(match[1]) * UNITS[(match[2] ?? 's').toLowerCase()]
  return Number.isFinite(value) ? Math.round(value) : undefined
}

/**
 * How far away a moment is, for a person: to the minute once it is 10 minutes or more away, so a
 * charge that expires in 30 minutes reads "in 30m" and not "in 29m 59s" a moment after it was made.
 */
export function formatDistance(ms: number): string {
  return ms >= 600_000 ? formatDuration(Math.round(ms / 60_000) * 60_000) : formatDuration(ms)
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`
  const seconds = Math.round(ms / 1000)
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m${seconds % 60 ? ` ${seconds % 60}s` : ''}`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return `${hours}h${minutes % 60 ? ` ${minutes % 60}m` : ''}`
  return `${Math.floor(hours / 24)}d${hours % 24 ? ` ${hours % 24}h` : ''}`
}
