#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The documentation stands on its own: README.md, docs/, bench/results/ and
# the man pages and completions generated from the option tables and
# docs/cli.md name machines by what they are ("one H200", "a node with 4
# H200s"), never by a provider's kind string (the provider's name, the
# model, -x and a count); date results by a date, a device and a command,
# never by an ordinal period of work; and hold no absolute path of the
# machine they were written on (its temporary, work and home directories: a
# result's temporary directory is written $TMPDIR, docs/cli.md's examples
# use relative paths). Every hit is printed as FILE:LINE: TEXT.
source "$(dirname "$0")/lib.sh" "$@"

# One extended regular expression per rule, matched case-insensitively.
KIND='nvidia-h[0-9]+(-x[0-9]+)?'
PERIOD='\bsessions?\b|work[ -]periods?\b|\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth)[ -](period|sitting)\b|\bissue #?[0-9]+|printed by commit|\blent\b'
MPATH='(^|[^A-Za-z0-9_.$-])/(tmp|work|home)/'

# The man pages and completions as the build generates them (cmake/man.cmake),
# from the docs/cli.md under test.
MAN=$TMP/man
if ! python3 "$REPO/scripts/gen_man.py" "$CGM" "$REPO/docs/cli.md" "$MAN" 0 >"$TMP/gen.out" 2>&1; then
  fail "scripts/gen_man.py failed: $(head -5 "$TMP/gen.out")"
fi

# check NAME REGEX: every text file of the documentation, by path relative
# to the repository (the man pages by their path in the build tree).
check() {
  local name=$1 re=$2 hits=$TMP/hits
  (cd "$REPO" && grep -rnIiE -- "$re" README.md docs bench/results) >"$hits"
  (cd "$TMP" && grep -rnIiE -- "$re" man | sed 's/^/(generated) /') >>"$hits"
  if [ ! -s "$hits" ]; then
    pass
  else
    fail "$name in the documentation ($(wc -l <"$hits") lines):"
    sed 's/^/  /' "$hits" | cut -c1-240 | head -40 >&2
  fi
}

# The man pages must exist, or the check of them proves nothing.
ls "$MAN"/man1/cgmodel-*.1 >/dev/null 2>&1 && pass || fail "no man pages generated in $MAN"

check "machine kind strings (name the machine: one H100, a node with 4 H200s)" "$KIND"
check "work-period words (date a result by date, device and command)" "$PERIOD"
check "machine paths (write \$TMPDIR or a relative path)" "$MPATH"

# The rules themselves must catch what they are for (a pattern that matches
# nothing would pass any tree). The examples are written reversed (rev), so
# that this file holds none of the words it forbids.
while IFS= read -r bad; do
  grep -qiE -- "$KIND|$PERIOD" <<<"$bad" && pass || fail "the rules miss '$bad'"
done < <(rev <<'BAD'
46pf ,4x-002h-aidivn no
)1x-001h-aidivn( 001H eno
noisses htnin ,12-11-6202
doirep htneves eht ni
21# eussi ees
d5a203f timmoc yb detnirp
tnel era s002H ylno
BAD
)
while IFS= read -r bad; do
  grep -qiE -- "$MPATH" <<<"$bad" && pass || fail "the rules miss '$bad'"
done < <(rev <<'BAD'
xtm.291p/mm/pmt/=elif
ved-dliub/niam/krow/ tcejorP tseT
)xtm.x/resu/emoh/(
BAD
)
# shellcheck disable=SC2016 # $TMPDIR is the literal text a result holds
for good in 'one H200 of a node with 4 H200s' 'a fifth of its twin' 'two rounds, round 1 / round 2' \
  'file=$TMPDIR/mm/p192.mtx' 'data/matrices/tmp/x' '.carry/build-dev/lib/' 'commit 0567378, 2026-11-28'; do
  grep -qiE -- "$KIND|$PERIOD|$MPATH" <<<"$good" && fail "the rules flag '$good'" || pass
done
finish
