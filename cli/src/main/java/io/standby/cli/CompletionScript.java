package io.standby.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code standby completion}: picocli's bash script for commands and options, then a function that completes slot,
 * robot and node names from the database through {@code standby __complete}, passing on the line's --mongo and --db.
 * zsh runs the same script through bashcompinit, which picocli's script loads.
 */
@Command(
        name = "completion",
        description = "Prints a bash/zsh completion script for standby: TAB then completes commands, options, and "
                + "slot, robot and node names from the database.",
        footerHeading = "%nExamples:%n",
        footer = {
            "  standby completion > /etc/bash_completion.d/standby",
            "  source <(standby completion)                  # bash or zsh, this shell only"
        })
final class CompletionScript implements Callable<Integer> {

    /** Which names each place takes: after --slot or --robot, or as the argument of these commands. */
    private static final String NAMES = """

            # Slot, robot and node names from the database (standby __complete), else picocli's completion above.
            _standby_names() {
              local -a all before db=()
              local cur prev kind="" typed i
              if [[ -n "${ZSH_VERSION:-}" ]]; then
                # zsh splits the line at blanks only.
                all=("${COMP_WORDS[@]}")
                before=("${COMP_WORDS[@]:0:$((COMP_CWORD + 1))}")
              else
                # bash also splits at ':' (COMP_WORDBREAKS), which cuts a URI or an ip:port apart: read the line.
                read -ra all <<< "$COMP_LINE"
                read -ra before <<< "${COMP_LINE:0:COMP_POINT}"
                if [[ ${#before[@]} -eq 0 || "${COMP_LINE:0:COMP_POINT}" == *[[:space:]] ]]; then
                  before+=("")
                fi
              fi
              cur="${before[${#before[@]} - 1]}"
              prev="${before[${#before[@]} - 2]}"
              local words=" ${before[*]:1:$((${#before[@]} - 2))} "
              # The whole line, before and after the cursor: --mongo may come last.
              for ((i = 1; i < ${#all[@]}; i++)); do
                case "${all[i]}" in
                  --mongo|--db) db+=("${all[i]}" "${all[i+1]}") ;;
                  --mongo=*|--db=*) db+=("${all[i]}") ;;
                esac
              done
              case "$prev" in
                --slot) kind=slots ;;
                --robot) kind=robots ;;
                *)
                  if [[ "$cur" != -* && "$prev" != -* ]]; then
                    case "$words" in
                      *" robot show "*|*" robot move "*|*" robot stop "*|*" robot start "*) kind=robots ;;
                      *" robot rm "*) kind=robots ;;
                      *" slots release "*) kind=slots ;;
                      *" node drain "*) kind=nodes ;;
                    esac
                  fi ;;
              esac
              if [[ -z "$kind" ]]; then
                _complete_standby "$@"
                return
              fi
              local IFS=$'\\n'
              COMPREPLY=( $(compgen -W "$(standby __complete "$kind" "${db[@]}" 2>/dev/null)" -- "$cur") )
              # bash replaces only what follows the word's last ':', so each name loses what is typed before it.
              if [[ -z "${ZSH_VERSION:-}" && "$cur" == *:* && "${COMP_WORDBREAKS:-:}" == *:* ]]; then
                typed="${cur%"${cur##*:}"}"
                for i in "${!COMPREPLY[@]}"; do
                  COMPREPLY[i]="${COMPREPLY[i]#"$typed"}"
                done
              fi
            }
            complete -F _standby_names standby
            """;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine()
                .getOut()
                .print(AutoComplete.bash("standby", spec.root().commandLine()) + NAMES);
        spec.commandLine().getOut().flush();
        return 0;
    }
}
