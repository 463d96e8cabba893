#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The man pages (generated from docs/cli.md) against the commands: every
# option that a command's --help prints appears in its man page, and every
# command of `cgmodel --help` has a page and a completion. A help text and
# docs/cli.md that drift apart fail here.
source "$(dirname "$0")/lib.sh" "$@"

MAN=${CGM_MAN_DIR:-$(dirname "$CGM")/../man}
if [ ! -d "$MAN/man1" ]; then
  echo "no man pages in $MAN (built without python3?): skipped" >&2
  exit 77
fi
expect_exit 0 "$CGM" --help
cmds=$(awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }' "$OUT")
[ -n "$cmds" ] && pass || fail "no commands in cgmodel --help"
for c in $cmds; do
  [ "$c" = help ] && continue # `help COMMAND` is each command's --help, paged with that command
  page=$MAN/man1/cgmodel-$c.1
  if [ ! -s "$page" ]; then
    fail "no man page for $c"
    continue
  fi
  grep -q "^  *$c)" "$MAN/completions/cgmodel" && pass || fail "no bash completion for $c"
  grep -q "^  *$c)" "$MAN/completions/_cgmodel" && pass || fail "no zsh completion for $c"
  [ "$c" = version ] && continue
  run_cmd "$CGM" "$c" --help
  [ "$RC" -eq 0 ] || { fail "cgmodel $c --help: exit $RC"; continue; }
  text=$(sed -e 's/\\f[BRI]//g' -e 's/\\-/-/g' "$page")
  for opt in $(grep -oE -- '(^|[^a-zA-Z0-9-])(--[a-z][a-z0-9-]*|-o)\b' "$OUT" | grep -oE -- '-[-a-z0-9]+' | sort -u); do
    [ "$opt" = -h ] && continue
    if grep -qE -- "(^|[^a-zA-Z0-9-])$opt([^a-zA-Z0-9-]|$)" <<<"$text"; then pass; else
      fail "cgmodel $c --help prints $opt, which its man page (docs/cli.md) does not name"
    fi
  done
done
finish
