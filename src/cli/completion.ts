/**
 * Shell completion for bash and zsh, made from the commands' manifest (oclif.manifest.json, or the
 * commands oclif loaded from it): `gateway completion bash|zsh` prints these scripts, and the .deb
 * installs the same ones. Flags complete at any position after the command's words, leading global
 * flags and their values are stepped over, and the values of flags with a fixed set of them complete
 * too.
 */

/** What completion needs of a command, as the manifest describes it. */
export interface CompletionCommand {
  id: string
  hidden?: boolean
  summary?: string
  description?: string
  flags?: Record<string, {type?: string; char?: string; options?: readonly string[]; hidden?: boolean; summary?: string; description?: string}>
}

interface Spec {
  /** The command's words, `tx create`. */
  name: string
  summary: string
  /** Each flag as typed (`--amount`, `-y`), whether it takes a value, its values when fixed, and its summary. */
  flags: Array<{words: string[]; value: boolean; options: string[]; summary: string}>
}

/** A topic (the first words of several commands) and what it is for. */
export interface CompletionTopic {
  name: string
  description?: string
}

/** The first line of a help text, with oclif's template for the program's name filled in. */
const firstLine = (text?: string) => (text ?? '').split('\n')[0].replaceAll('<%= config.bin %>', 'gateway').trim()

function specs(commands: readonly CompletionCommand[]): Spec[] {
  return commands
    .filter((command) => !command.hidden)
    .map((command) => ({
      name: command.id.replaceAll(':', ' '),
      summary: firstLine(command.summary ?? command.description),
      flags: Object.entries(command.flags ?? {})
        .filter(([, flag]) => !flag.hidden)
        .map(([name, flag]) => ({
          words: [`--${name}`, ...(flag.char ? [`-${flag.char}`] : [])],
          value: flag.type === 'option',
          options: [...(flag.options ?? [])],
          summary: firstLine(flag.summary ?? flag.description),
        })),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/** A word for a single-quoted shell string. */
const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`

/** The flags any command takes, for the words before the command: each with whether it takes a value. */
function leadingFlags(all: Spec[]): Map<string, boolean> {
  const flags = new Map<string, boolean>()
  for (const spec of all) for (const flag of spec.flags) for (const word of flag.words) flags.set(word, (flags.get(word) ?? false) || flag.value)
  return flags
}

/**
 * The shell functions both scripts share (bash and zsh read them alike): the command named by the
 * words typed so far, and each command's flags and values.
 */
function sharedFunctions(all: Spec[]): string {
  const commandCases = all.map((spec) => `    ${quote(spec.name)}) return 0 ;;`)
  const valueFlagCases = all
    .map((spec) => {
      const words = spec.flags.filter((flag) => flag.value).flatMap((flag) => flag.words)
      return words.length > 0 ? `    ${quote(spec.name)}) case "$2" in ${words.join('|')}) return 0 ;; esac ;;` : ''
    })
    .filter(Boolean)
  const leading = [...leadingFlags(all)].filter(([, value]) => value).map(([word]) => word)
  const flagCases = all.map((spec) => `    ${quote(spec.name)}) echo ${quote(spec.flags.map((flag) => flag.words[0]).join(' '))} ;;`)
  const optionCases = all.flatMap((spec) =>
    spec.flags
      .filter((flag) => flag.options.length > 0)
      .map((flag) => `    ${flag.words.map((word) => quote(`${spec.name} ${word}`)).join('|')}) echo ${quote(flag.options.join(' '))} ;;`),
  )
  return `# Whether the words name a command.
__gateway_is_command() {
  case "$1" in
${commandCases.join('\n')}
  esac
  return 1
}

# The commands, one per line.
__gateway_commands() {
  printf '%s\\n' ${all.map((spec) => quote(spec.name)).join(' ')}
}

__gateway_nl='
'
# Whether the words in $1 name a command or begin the name of one.
__gateway_extends() {
  case "$__gateway_nl$(__gateway_commands)$__gateway_nl" in
    *"$__gateway_nl$1$__gateway_nl"* | *"$__gateway_nl$1 "*) return 0 ;;
  esac
  return 1
}

# Whether flag $2 of command $1 (or before any command, when $1 is empty) takes a value.
__gateway_takes_value() {
  case "$1" in
    '') case "$2" in ${leading.join('|') || "''"}) return 0 ;; esac ;;
${valueFlagCases.join('\n')}
  esac
  return 1
}

# The flags of command $1.
__gateway_flags() {
  case "$1" in
${flagCases.join('\n')}
  esac
}

# The values flag $2 of command $1 takes, when they are fixed.
__gateway_options() {
  case "$1 $2" in
${optionCases.join('\n')}
  esac
}

# Reads words 1 to $1-1 of the line (given after $1) and sets __gateway_cmd to the command they
# name (or the topic words typed so far), and __gateway_value_of to the flag whose value the word
# at $1 is, if any.
__gateway_read_line() {
  local upto=$1 i=1 word expect= flag=
  shift
  __gateway_cmd=
  __gateway_value_of=
  while [ "$i" -lt "$upto" ]; do
    eval "word=\\\${$i}"
    i=$((i + 1))
    if [ -n "$expect" ]; then
      expect=
      # bash splits --flag=value into three words: the value comes after the =.
      [ "$word" = "=" ] && expect=1
      continue
    fi
    case "$word" in
      --*=*) continue ;;
      -*)
        flag=$word
        if __gateway_is_command "$__gateway_cmd" || [ -z "$__gateway_cmd" ]; then
          if __gateway_takes_value "$__gateway_cmd" "$word"; then expect=1; fi
        fi
        continue ;;
      =) continue ;;
    esac
    # A word that does not continue a command's name is an argument.
    if ! __gateway_is_command "$__gateway_cmd" && __gateway_extends "\${__gateway_cmd:+$__gateway_cmd }$word"; then
      __gateway_cmd="\${__gateway_cmd:+$__gateway_cmd }$word"
    fi
  done
  [ -n "$expect" ] && __gateway_value_of=$flag
  return 0
}

# The words that may follow the command or topic words in $1.
__gateway_next_words() {
  if [ -z "$1" ]; then
    __gateway_commands | cut -d' ' -f1 | sort -u
  else
    __gateway_commands | grep -e "^$1 " | cut -d' ' -f"$(($(printf '%s\\n' "$1" | wc -w) + 1))" | sort -u
  fi
}
`
}

/** The bash completion script, bound with `complete -F`. */
export function bashCompletion(commands: readonly CompletionCommand[]): string {
  const all = specs(commands)
  return `# bash completion for gateway (made from its commands; \`gateway completion bash\` prints it too)
${sharedFunctions(all)}
_gateway() {
  local cur=\${COMP_WORDS[COMP_CWORD]} words
  COMPREPLY=()
  __gateway_read_line "$COMP_CWORD" "\${COMP_WORDS[@]:1}"
  # After --flag= the value being typed is the word after the =.
  if [ "$cur" = "=" ]; then cur=; fi
  if [ -n "$__gateway_value_of" ]; then
    words=$(__gateway_options "$__gateway_cmd" "$__gateway_value_of")
    if [ -n "$words" ]; then
      COMPREPLY=($(compgen -W "$words" -- "$cur"))
    else
      # A file, a number, a date: what the shell offers by default.
      compopt -o default 2>/dev/null
    fi
    return 0
  fi
  case "$cur" in
    -*)
      if __gateway_is_command "$__gateway_cmd"; then
        COMPREPLY=($(compgen -W "$(__gateway_flags "$__gateway_cmd")" -- "$cur"))
      fi
      return 0 ;;
  esac
  words=$(__gateway_next_words "$__gateway_cmd")
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  return 0
}
complete -F _gateway gateway
`
}

/** The zsh completion script (a #compdef function), with each command's and flag's summary. */
export function zshCompletion(commands: readonly CompletionCommand[], topics: readonly CompletionTopic[] = []): string {
  const all = specs(commands)
  const describe = (text: string) => text.replaceAll(':', '\\:')
  const summaryCases = [
    ...all.map((spec) => `    ${quote(spec.name)}) echo ${quote(describe(spec.summary))} ;;`),
    ...topics
      .filter((topic) => topic.description && !all.some((spec) => spec.name === topic.name.replaceAll(':', ' ')))
      .map((topic) => `    ${quote(topic.name.replaceAll(':', ' '))}) echo ${quote(describe(firstLine(topic.description)))} ;;`),
  ]
  const flagSummaryCases = all.map(
    (spec) => `    ${quote(spec.name)}) flags=(${spec.flags.flatMap((flag) => flag.words.map((word) => quote(`${word}:${describe(flag.summary)}`))).join(' ')}) ;;`,
  )
  return `#compdef gateway
# zsh completion for gateway (made from its commands; \`gateway completion zsh\` prints it too)
${sharedFunctions(all)}
# The summary of command or topic $1.
__gateway_summary() {
  case "$1" in
${summaryCases.join('\n')}
  esac
}

_gateway() {
  local cur=\${words[CURRENT]} next line
  local -a flags described values
  __gateway_read_line "$((CURRENT - 1))" "\${(@)words[2,-1]}"
  if [ -n "$__gateway_value_of" ]; then
    values=(\${(z)"$(__gateway_options "$__gateway_cmd" "$__gateway_value_of")"})
    if (( \${#values} )); then
      compadd -a values
    else
      _files
    fi
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    if __gateway_is_command "$__gateway_cmd"; then
      case "$__gateway_cmd" in
${flagSummaryCases.join('\n')}
      esac
      _describe -t flags 'flag' flags
    fi
    return 0
  fi
  described=()
  for next in \${(f)"$(__gateway_next_words "$__gateway_cmd")"}; do
    [ -n "$next" ] || continue
    line="\${__gateway_cmd:+$__gateway_cmd }$next"
    described+=("$next:$(__gateway_summary "$line")")
  done
  (( \${#described} )) && _describe -t commands 'gateway command' described
  return 0
}
_gateway "$@"
`
}
