/**
 * A flag's fixed values when any case is taken (`--status paid` is PAID): oclif checks a typed value
 * against `options` before the flag's parser runs, so this list answers `includes` in any case,
 * with spaces around; the parser then puts the value in its form. Help, the manifest and shell
 * completion see the values as they are sent.
 */
class AnyCase extends Array<string> {
  override includes(value: string, fromIndex?: number): boolean {
    return super.includes(typeof value === 'string' ? value.trim().toUpperCase() : value, fromIndex)
  }
}

export function anyCaseOptions(values: readonly string[]): string[] {
  const list = new AnyCase()
  list.push(...values)
  return list
}
