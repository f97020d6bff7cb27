import type { Command } from 'commander';
import { CliError, printLines, type Io } from '../io.js';

/** Every command path with its subcommand names and options: '' is the program itself. */
function tree(cmd: Command, prefix = ''): [string, string[]][] {
  const words = [...cmd.commands.map((c) => c.name()), ...cmd.options.map((o) => o.long ?? o.short ?? '').filter(Boolean), '--help'];
  return [[prefix, words], ...cmd.commands.flatMap((c) => tree(c, prefix ? `${prefix} ${c.name()}` : c.name()))];
}

/** A bash completion function over the command tree (zsh loads it through bashcompinit). */
export function bashCompletion(program: Command): string {
  const cases = tree(program)
    .map(([path, words]) => `    "${path}") words="${words.join(' ')}" ;;`)
    .join('\n');
  return `# svc completion (bash): eval "$(svc completion bash)"
_svc_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" w words=""
  for w in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$w" in -*) ;; *) path="\${path:+$path }$w" ;; esac
  done
  while :; do
    case "$path" in
${cases}
    *) if [ -n "$path" ] && [ "\${path% *}" != "$path" ]; then path="\${path% *}"; continue; elif [ -n "$path" ]; then path=""; continue; fi ;;
    esac
    break
  done
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _svc_complete svc
`;
}

export function registerCompletion(program: Command, io: Io): void {
  program
    .command('completion')
    .description('Print the shell completion script for bash or zsh')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => {
      if (shell === 'bash') return printLines(io, bashCompletion(program).trimEnd());
      if (shell === 'zsh')
        return printLines(
          io,
          `# svc completion (zsh): eval "$(svc completion zsh)"\nautoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n${bashCompletion(program).trimEnd()}`,
        );
      throw new CliError(`Unknown shell "${shell}" (bash or zsh)`, 2);
    });
}
