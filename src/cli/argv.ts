/** What the command line needs of the manifest: each command's flags, marked GLOBAL when every command has them. */
export interface ManifestFlags {
  commands: Record<string, {flags: Record<string, {type: string; helpGroup?: string; char?: string}>}>
}

/**
 * The command line with global flags typed before the command (`gateway --profile prod tx get ID`)
 * moved after the command's words, where oclif reads them, as `gateway tx get ID --profile prod`.
 * Only flags every command has (the manifest's GLOBAL group) are moved, each with its value; a line
 * that starts with anything else (`--version`, `--help`, an unknown flag) is left as it is, for
 * oclif to read or refuse. Nothing is parsed here beyond telling a global flag from a word.
 */
export function commandFirst(argv: string[], manifest: ManifestFlags): string[] {
  const globals = new Map<string, boolean>()
  for (const command of Object.values(manifest.commands)) {
    for (const [name, flag] of Object.entries(command.flags)) {
      if (flag.helpGroup === 'GLOBAL') globals.set(`--${name}`, flag.type === 'option')
    }
  }
  let at = 0
  while (at < argv.length && argv[at].startsWith('-') && argv[at] !== '--') {
    const [name, inline] = argv[at].split(/=(.*)/s, 2)
    const takesValue = globals.get(name)
    if (takesValue === undefined) return argv
    at += takesValue && inline === undefined ? 2 : 1
  }
  if (at === 0 || at > argv.length) return argv
  // The command's words: as many as name a command or a topic, one after the other.
  const ids = Object.keys(manifest.commands)
  const words: string[] = []
  for (let next = at; next < argv.length && !argv[next].startsWith('-'); next++) {
    const id = [...words, argv[next]].join(':')
    if (!ids.some((known) => known === id || known.startsWith(`${id}:`))) break
    words.push(argv[next])
  }
  if (words.length === 0) return argv
  return [...words, ...argv.slice(0, at), ...argv.slice(at + words.length)]
}
