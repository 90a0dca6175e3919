# What zsh's completion system offers for each line typed, with sxkit's completion script loaded:
#   zsh -f zsh-offers.zsh COMPLETIONS_DIR OUT 'sxkit help ' 'sxkit db inspect --db ' …
# Writes, per line, one line per compadd call (the matches joined by "|"), then "---", to OUT.
# An interactive zsh runs in a pseudo-terminal (zsh/zpty): completion widgets only run inside zle.
# A widget bound to ^T wraps compadd to record the matches it is given, then runs _main_complete.
zmodload zsh/zpty || exit 1
compdir=$1 out=$2
shift 2
: > "$out"
zpty shell zsh -f -i
zpty -w shell "PS1=''; fpath=(${(q)compdir} \$fpath); autoload -U compinit; compinit -u -D"
zpty -w shell "offers() { compadd() { local -a m; builtin compadd -O m \"\$@\"; print -r -- \"\${(j:|:)m}\" >> ${(q)out}; builtin compadd \"\$@\" }; _main_complete; unfunction compadd; print -r -- --- >> ${(q)out} }"
zpty -w shell "zle -C offers complete-word offers; bindkey '^T' offers"
drain() { local x; while zpty -r -t shell x; do :; done }
# zle drops what was typed ahead of a prompt, so wait until the set-up has run before typing.
zpty -w shell "print -r -- ready >> ${(q)out}"
for i in {1..200}; do
  grep -q '^ready$' "$out" && break
  sleep 0.1; drain
done
: > "$out"
done=0
for line in "$@"; do
  done=$((done + 1))
  # Type the line, complete (^T), clear it (^U); wait until the widget has written its "---".
  zpty -w -n shell "$line"$'\x14\x15'
  for i in {1..200}; do
    (( $(grep -c '^---$' "$out") >= done )) && break
    sleep 0.1; drain
  done
done
zpty -d shell
