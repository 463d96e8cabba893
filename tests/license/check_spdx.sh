#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# scripts/spdx.sh: --selftest on a scratch tree (the check finds a file
# without the header, the fix adds it once, after a #! line, and a second
# run changes nothing); otherwise REPO's sources each carry the header
# (ctest: license_spdx, with -DCGMODEL_CHECK_SPDX=ON).
set -u
repo=$1
spdx="$repo/scripts/spdx.sh"
if [ "${2:-}" != "--selftest" ]; then
  if ! out=$(bash "$spdx" --check "$repo"); then
    echo "sources without 'SPDX-License-Identifier: GPL-3.0-or-later' (run scripts/spdx.sh):"
    echo "$out"
    exit 1
  fi
  exit 0
fi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$t/src/sub"
printf 'int x;\n' >"$t/src/a.c"
printf '/* SPDX-License-Identifier: GPL-3.0-or-later */\nint y;\n' >"$t/src/b.h"
printf '#!/bin/sh\necho hi\n' >"$t/src/sub/run.sh"
printf 'project(x)\n' >"$t/src/sub/CMakeLists.txt"
printf 'not a source\n' >"$t/src/notes.txt"
chmod +x "$t/src/sub/run.sh"
out=$(bash "$spdx" --check "$t/src") && fail "--check passed with headers missing"
[ "$(echo "$out" | sort | tr '\n' ' ')" = "a.c sub/CMakeLists.txt sub/run.sh " ] ||
  fail "--check listed: $out"
bash "$spdx" "$t/src" >/dev/null || fail "the fix failed"
[ "$(head -n 1 "$t/src/a.c")" = "/* SPDX-License-Identifier: GPL-3.0-or-later */" ] || fail "a.c: $(head -n 2 "$t/src/a.c")"
[ "$(sed -n 2p "$t/src/a.c")" = "int x;" ] || fail "a.c lost its first line"
[ "$(head -n 1 "$t/src/sub/run.sh")" = "#!/bin/sh" ] || fail "run.sh: the #! line moved"
[ "$(sed -n 2p "$t/src/sub/run.sh")" = "# SPDX-License-Identifier: GPL-3.0-or-later" ] || fail "run.sh: $(head -n 3 "$t/src/sub/run.sh")"
[ -x "$t/src/sub/run.sh" ] || fail "run.sh lost its mode"
[ "$(head -n 1 "$t/src/sub/CMakeLists.txt")" = "# SPDX-License-Identifier: GPL-3.0-or-later" ] || fail CMakeLists.txt
[ "$(cat "$t/src/notes.txt")" = "not a source" ] || fail "notes.txt changed"
[ "$(grep -c SPDX "$t/src/b.h")" = 1 ] || fail "b.h got a second header"
sum=$(cat "$t"/src/a.c "$t"/src/b.h "$t"/src/sub/* | md5sum)
bash "$spdx" --check "$t/src" >/dev/null || fail "--check fails after the fix"
bash "$spdx" "$t/src" >/dev/null
[ "$(cat "$t"/src/a.c "$t"/src/b.h "$t"/src/sub/* | md5sum)" = "$sum" ] || fail "a second run changed files"
echo "spdx selftest: ok"
