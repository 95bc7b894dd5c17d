# usage: zsh -f zsh-tab.zsh FOLDER LINE
# Starts an interactive zsh on a pseudo-terminal (zsh/zpty) with compinit and FOLDER on fpath, as
# a user's shell has the installed _paddockctl, types LINE and a TAB, and prints the line as the
# completion left it. Each step waits for what the shell prints, never for a time.
zmodload zsh/zpty || exit 2
zpty shell 'zsh -f -i'
# The quotes keep the typed command, which the terminal echoes, from matching what is awaited.
zpty -w shell "PS1='> '; fpath=(${(q)1} \$fpath); autoload -U compinit; compinit -u -D; print RE''ADY"
zpty -r shell out '*READY*> *'
# The TAB, then Ctrl+A and a print in front of whatever the line has become.
zpty -w -n shell "$2"$'\t\x01'"print -r -- COMPLE''TED: "$'\n'
zpty -r shell out $'*\nCOMPLETED: *\n*'
print -r -- ${${(M)${(f)out//$'\r'/}:#COMPLETED: *}#COMPLETED: }
zpty -d shell
