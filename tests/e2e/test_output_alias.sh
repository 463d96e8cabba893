#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Property: no command writes over one of its inputs. For every subcommand
# with an output option (solve -o, db export -o, validate --csv, map -o,
# plot -o, gen -o), the output is aliased to each input it has (the
# database given by --db or $CGMODEL_DB, the matrix, the right-hand side,
# the matrix list, a --mark matrix) in each way a path can name a file: the
# same name, another spelling of it (./x, dir/../x), a symbolic link, a hard
# link, and for pictures their script and each data file (a symbolic or
# hard link from any of them to an input). Each run must exit 2,
# name both paths, and leave every input byte-identical (cmp against a copy).
# The check comes before any work: no database content, calibration or
# gnuplot is needed, so the whole test takes about a second.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

W=$TMP/w
mkdir -p "$W/sub" "$W/mats"
cd "$W" || exit 2
"$CGM" gen poisson2d --n 2 -o A.mtx 2>/dev/null || fail "gen A.mtx"
"$CGM" gen poisson2d --n 2 -o mats/M.mtx 2>/dev/null || fail "gen mats/M.mtx"
printf '%%%%MatrixMarket matrix array real general\n4 1\n1\n2\n3\n4\n' >b.mtx
# A SQLite file stands for the database: the check comes before it is opened.
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE t (x)'); c.commit()" DB
printf '%s\n' "$W/mats/M.mtx" >list.txt
cp DB DB.png # a database that a picture's name could hit
cp DB pic.gp
cp DB pic-samples.dat
INPUTS=(A.mtx b.mtx DB DB.png pic.gp pic-samples.dat list.txt mats/M.mtx)
for f in "${INPUTS[@]}"; do cp "$f" "$f.orig"; done

# every input as it was
inputs_intact() {
  local f
  for f in "${INPUTS[@]}"; do
    if cmp -s "$f" "$f.orig"; then pass; else fail "$1: $f changed"; fi
  done
}

# refused OUT_PATH IN_PATH CMD...: exit 2, stderr names both paths (as
# given), nothing written, every input intact.
refused() {
  local out=$1 in=$2
  shift 2
  expect_exit 2 "$@"
  last_stderr_contains "would overwrite"
  last_stderr_contains "$out"
  last_stderr_contains "$in"
  inputs_intact "$*"
}

ln -sf DB link-to-db
ln -f DB hard-to-db 2>/dev/null || cp DB hard-to-db # no hard links: a copy (not an alias)
hard_ok=0
[ "$(stat -c %i DB)" = "$(stat -c %i hard-to-db)" ] && hard_ok=1

# ---- the database, named in every way, for each command that writes
for spelling in DB ./DB sub/../DB "$W/DB" link-to-db; do
  refused "$spelling" DB "$CGM" db export 1 -o "$spelling" --db DB
  refused "$spelling" DB "$CGM" solve A.mtx --backend cpu --db DB -o "$spelling"
  refused "$spelling" DB "$CGM" validate mats --db DB --csv "$spelling"
done
if [ "$hard_ok" = 1 ]; then
  refused hard-to-db DB "$CGM" db export 1 -o hard-to-db --db DB
  refused hard-to-db DB "$CGM" solve A.mtx --backend cpu --db DB -o hard-to-db
fi
# through $CGMODEL_DB instead of --db (gen reads no database, but must not
# write over it either)
refused DB "$W/DB" env CGMODEL_DB="$W/DB" "$CGM" db export 1 -o DB
refused DB "$W/DB" env CGMODEL_DB="$W/DB" "$CGM" solve A.mtx --backend cpu -o DB
refused DB "$W/DB" env CGMODEL_DB="$W/DB" "$CGM" validate mats --csv DB
refused DB "$W/DB" env CGMODEL_DB="$W/DB" "$CGM" gen poisson2d --n 4 -o DB
refused ./link-to-db "$W/DB" env CGMODEL_DB="$W/DB" "$CGM" gen poisson2d --n 4 -o ./link-to-db
# a database not there yet is still the output's name
refused new.db new.db "$CGM" solve A.mtx --backend cpu --db new.db -o new.db
assert_no_file new.db "solve -o = --db, neither there"

# ---- the matrix and the right-hand side
for spelling in A.mtx ./A.mtx "$W/A.mtx" sub/../A.mtx; do
  refused "$spelling" A.mtx "$CGM" solve A.mtx --backend cpu --no-record -o "$spelling"
done
refused b.mtx b.mtx "$CGM" solve A.mtx --rhs b.mtx --backend cpu --no-record -o b.mtx
refused ./b.mtx b.mtx "$CGM" solve A.mtx --rhs b.mtx --backend cpu --no-record -o ./b.mtx

# ---- validate: the list file and every matrix it names
refused list.txt list.txt "$CGM" validate list.txt --db DB --csv list.txt
refused mats/M.mtx "$W/mats/M.mtx" "$CGM" validate list.txt --db DB --csv mats/M.mtx
refused mats/M.mtx mats/M.mtx "$CGM" validate mats --db DB --csv mats/M.mtx

# ---- pictures: the picture, its script FILE.gp and data FILE-*.dat
refused DB.png DB.png "$CGM" plot calibration --db DB.png -o DB.png
refused DB.png DB.png "$CGM" plot accuracy --db DB.png -o DB.png
refused DB.png DB.png "$CGM" map --db DB.png -o DB.png
refused pic.png pic.gp "$CGM" plot calibration --db pic.gp -o pic.png
refused pic.png pic-samples.dat "$CGM" plot calibration --db pic-samples.dat -o pic.png
refused ./pic.png pic.gp "$CGM" map --db pic.gp -o ./pic.png
cp A.mtx pic-marks.dat
cp A.mtx pic-marks.dat.orig
INPUTS+=(pic-marks.dat)
refused pic.png pic-marks.dat "$CGM" map --db DB --mark pic-marks.dat -o pic.png

# ---- every file a picture writes (the picture, its script, each data file
# of its kind), made a symbolic link and a hard link to an input: refused
# before anything is written, the input byte-identical
link_refused() { # KIND NAME INPUT OUT CMD...: NAME made a KIND link to INPUT
  local kind=$1 name=$2 in=$3 out=$4
  shift 4
  if [ "$kind" = sym ]; then ln -s "$W/$in" "$name"; else ln "$in" "$name"; fi
  refused "$out" "$in" "$@"
  last_stderr_contains "its script or a data file"
  rm -f "$name"
}
kinds=(sym)
[ "$hard_ok" = 1 ] && kinds+=(hard)
for kind in "${kinds[@]}"; do
  for name in q.png q.gp q-grid.dat q-contour.dat q-isolines.dat q-isolabels.dat q-marks.dat; do
    for in in DB mats/M.mtx; do
      link_refused "$kind" "$name" "$in" q.png "$CGM" map --db DB --mark mats/M.mtx -o q.png
    done
  done
  for name in q.svg q.gp q-samples.dat q-curves.dat q-fits.dat; do
    link_refused "$kind" "$name" DB sub/../q.svg "$CGM" plot calibration --db DB -o sub/../q.svg
  done
  for name in q.png q.gp q-solves.dat q-worst.dat; do
    link_refused "$kind" "$name" DB q.png "$CGM" plot accuracy --db DB --label-worst 2 -o q.png
  done
done

# ---- not aliases: the same name in another directory is another file
expect_exit 0 "$CGM" solve A.mtx --backend cpu --no-record -o sub/A.mtx
inputs_intact "solve -o sub/A.mtx"
assert_file_exists sub/A.mtx "solve -o sub/A.mtx (not an alias)"

finish
