# bash completion for paddockctl                                       -*- shell-script -*-
#
# The candidates come from paddockctl itself: `paddockctl __complete WORD...` prints one a line for
# the last word given (the commands, the command's options and the global ones, the backends, an
# option's fixed values, and workspace ids from the backend's listing of the last minute). Where
# it offers nothing (a file, a folder, a command to run), bash completes file names.
#
# The package installs this file as /usr/share/bash-completion/completions/paddockctl, which
# bash-completion loads when paddockctl is first completed. From a source build:
#     source packaging/completion/paddockctl.bash

_paddockctl()
{
    local program=paddockctl
    # The paddockctl being completed, when it was named by its path (./build/ci/bin/paddockctl).
    [[ ${COMP_WORDS[0]} == */* && -x ${COMP_WORDS[0]} ]] && program=${COMP_WORDS[0]}
    local output
    output=$("$program" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || output=
    COMPREPLY=()
    [[ -n $output ]] && mapfile -t COMPREPLY <<<"$output"
    return 0
}

complete -o default -F _paddockctl paddockctl
