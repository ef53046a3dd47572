import { Command, Argument } from 'commander';
import { examples } from '../command-context';

/** `path` (subcommands joined by spaces, "" for the top) -> the words that may follow it. */
function wordsByPath(command: Command, path = '', table = new Map<string, string[]>()): Map<string, string[]> {
  const options = command.options.flatMap((o) => [o.long, o.short]).filter((flag): flag is string => Boolean(flag));
  table.set(path, [...command.commands.map((c) => c.name()), ...options, '--help']);
  for (const child of command.commands) wordsByPath(child, path ? `${path} ${child.name()}` : child.name(), table);
  return table;
}

export function bashCompletion(program: Command): string {
  const globalFlags = program.options
    .flatMap((o) => [o.long, o.short])
    .filter(Boolean)
    .join(' ');
  const cases = [...wordsByPath(program)]
    .map(([path, words]) => `    ${JSON.stringify(path)}) echo ${JSON.stringify(words.join(' '))} ;;`)
    .join('\n');
  return `# bash completion for hostctl: source <(hostctl completion bash)
_hostctl_words() {
  case "$1" in
${cases}
  esac
}
_hostctl() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" i w
  case "$prev" in
    -o|--output) COMPREPLY=( $(compgen -W "table json yaml" -- "$cur") ); return ;;
  esac
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    [[ " $(_hostctl_words "$path") " == *" $w "* ]] && path="\${path:+$path }$w"
  done
  COMPREPLY=( $(compgen -W "$(_hostctl_words "$path") ${globalFlags}" -- "$cur") )
}
complete -o default -F _hostctl hostctl
`;
}

export function zshCompletion(program: Command): string {
  // zsh runs the bash completion through its bashcompinit layer, so one script serves both.
  return `# zsh completion for hostctl: add  source <(hostctl completion zsh)  to ~/.zshrc
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program).replace(/^# bash completion.*\n/, '')}`;
}

export function completionCommand(program: Command): Command {
  return new Command('completion')
    .description('Print a shell completion script (bash or zsh)')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh']))
    .addHelpText(
      'after',
      examples(
        'hostctl completion bash > /etc/bash_completion.d/hostctl',
        'source <(hostctl completion bash)                  # this shell only',
        "echo 'source <(hostctl completion zsh)' >> ~/.zshrc",
      ),
    )
    .action((shell: 'bash' | 'zsh') => {
      process.stdout.write(shell === 'bash' ? bashCompletion(program) : zshCompletion(program));
    });
}
