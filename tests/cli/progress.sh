#!/bin/sh
# progress.sh DVSIM SOURCE WORKDIR - the progress line of a long run (shown
# at once with DVSIM_PROGRESS=0, as on a terminal after a second) says what
# runs, is erased at the end, and changes nothing in the run; without a
# terminal there is none.
set -eu
dvsim=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
DVSIM_PROGRESS=0 "$dvsim" run "$src" --no-data --arg n=300000 --out "$work/with" > /dev/null 2> "$work/with.err"
"$dvsim" run "$src" --no-data --arg n=300000 --out "$work/without" > /dev/null 2> "$work/without.err"
cmp "$work/with/stats.json" "$work/without/stats.json"
grep -q "dvsim run: simulating, cycle [0-9]*, .* M cycles/s" "$work/with.err"
# the last thing written is the erase of the line
tail -c 4 "$work/with.err" | od -c | grep -q '\\r 033   \[   K'
test ! -s "$work/without.err"
echo "progress line shown, erased, and the stats unchanged"
