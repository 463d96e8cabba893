#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The installed C package: cmake --install of this build into a temporary
# prefix, then a small program of another project built against it with
# find_package(cgmodel) (shared and static) and with pkg-config, and run.
# usage: test_downstream.sh BUILD_DIR REPO C_COMPILER
set -u
BUILD=$1
REPO=$2
CC=${3:-cc}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cgm-downstream.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
run() { "$@" >"$TMP/log" 2>&1 || { fail "$*"; sed 's/^/  | /' "$TMP/log" | tail -20 >&2; return 1; }; }

PREFIX=$TMP/prefix
run cmake --install "$BUILD" --prefix "$PREFIX" || { echo "0 passed, 1 failed"; exit 1; }
for f in include/cgmodel/cgmodel.h share/man/man1/cgmodel.1 share/man/man1/cgmodel-solve.1 \
         share/bash-completion/completions/cgmodel share/zsh/site-functions/_cgmodel; do
  [ -e "$PREFIX/$f" ] || fail "not installed: $f"
done
CONFIG=$(find "$PREFIX" -name cgmodelConfig.cmake | head -1)
[ -n "$CONFIG" ] && [ -e "$(dirname "$CONFIG")/cgmodelConfigVersion.cmake" ] || fail "no cgmodelConfig.cmake"
PCDIR=$(dirname "$(find "$PREFIX" -name cgmodel.pc | head -1)")
LIBDIR=$(dirname "$(find "$PREFIX" -name 'libcgmodel.so' | head -1)")
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# find_package(cgmodel): the shared and the static library
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
if run cmake -S "$REPO/tests/downstream" -B "$TMP/b" "${gen[@]}" -DCMAKE_C_COMPILER="$CC" \
     -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release &&
   run cmake --build "$TMP/b"; then
  for p in downstream_shared downstream_static; do
    run "$TMP/b/$p" && grep -q "residual" "$TMP/log" || fail "$p did not solve"
  done
  # the shared one really loads the installed library
  ldd "$TMP/b/downstream_shared" | grep -q "$LIBDIR/libcgmodel.so" || fail "downstream_shared does not load $LIBDIR"
fi

# pkg-config cgmodel
if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH=$PCDIR
  [ "$(pkg-config --modversion cgmodel)" = "$("$PREFIX/bin/cgmodel" version | awk '{print $2}')" ] ||
    fail "pkg-config --modversion differs from cgmodel version"
  # shellcheck disable=SC2046 # the flags are words
  run "$CC" "$REPO/tests/downstream/main.c" -o "$TMP/pc" $(pkg-config --cflags --libs cgmodel) -lm &&
    { run "$TMP/pc" || fail "the pkg-config build did not solve"; }
  # --static: the static library and its dependencies; the program starts
  # without the installed library on the loader's path
  # shellcheck disable=SC2046 # the flags are words
  if run "$CC" "$REPO/tests/downstream/main.c" -o "$TMP/pcs" $(pkg-config --static --cflags --libs cgmodel); then
    ldd "$TMP/pcs" | grep -q libcgmodel && fail "pkg-config --static linked the shared library"
    run env -u LD_LIBRARY_PATH "$TMP/pcs" && grep -q "residual" "$TMP/log" ||
      fail "the pkg-config --static build did not solve"
  fi
else
  echo "pkg-config not found: that part skipped" >&2
fi
if [ "$fails" -eq 0 ]; then echo "1 passed, 0 failed"; exit 0; fi
echo "0 passed, 1 failed"
exit 1
