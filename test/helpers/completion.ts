import {spawnSync} from 'node:child_process'

/**
 * What the bash completion script at `script` offers for the line `words` (the last word is the
 * one being completed): bash sources it and calls the function `complete -F` bound, with
 * COMP_WORDS and COMP_CWORD set as bash sets them.
 */
export function bashCompletes(script: string, words: string[]): string[] {
  const harness = `
source "$1"
shift
spec=$(complete -p gateway) || exit 9
function=\${spec#*-F }
function=\${function%% *}
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=\${#COMP_LINE}
COMPREPLY=()
"$function" gateway "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\\n' "\${COMPREPLY[@]}"
`
  const run = spawnSync('bash', ['--norc', '--noprofile', '-c', harness, 'harness', script, ...words], {encoding: 'utf8'})
  if (run.status !== 0) throw new Error(`bash exited ${run.status}: ${run.stderr}`)
  return run.stdout.split('\n').filter(Boolean)
}

/** Whether zsh is here, for the zsh cases. */
export const hasZsh = spawnSync('zsh', ['-fc', 'true']).status === 0

/**
 * What the zsh completion function at `script` offers for the line `words`: zsh sources it with
 * compadd, _describe and _files standing in for the completion system (each prints what it was
 * given), sets words and CURRENT as the completion system does, and calls _gateway.
 */
export function zshCompletes(script: string, words: string[]): string[] {
  const harness = `
compadd() { if [[ $1 == -a ]]; then print -l -- \${(@P)2}; else print -l -- "$@"; fi }
_describe() { local name=\${@[-1]}; print -l -- \${(@P)name} }
_files() { print -- '<files>' }
source "$1" >/dev/null
shift
words=("$@")
CURRENT=$#
_gateway
`
  const run = spawnSync('zsh', ['-f', '-c', harness, 'harness', script, ...words], {encoding: 'utf8'})
  if (run.status !== 0) throw new Error(`zsh exited ${run.status}: ${run.stderr}`)
  return run.stdout.split('\n').filter(Boolean)
}
