#!/bin/sh
# tsan.sh - builds dvsim with ThreadSanitizer and runs `dvsim regress` on
# several threads (it runs baseline entries in parallel): any data race
# fails the run.
#
# usage: scripts/tsan.sh [BUILDDIR] [REGRESS_OPTION...]
#   BUILDDIR  default SOURCE/build-tsan (configured on first use)
# Exit: 0 no race and nothing moved; 66 TSan reported a race (its report is
# on stderr); otherwise regress's own exit code.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
builddir=${1:-$src/build-tsan}
[ $# -gt 0 ] && shift
if [ ! -f "$builddir/build.ninja" ]; then
    meson setup "$builddir" "$src" -Db_sanitize=thread -Db_lundef=false -Dfuzz=disabled -Dtests=disabled \
        -Dbuildtype=debugoptimized >/dev/null
fi
ninja -C "$builddir" cli/dvsim >/dev/null
cd "$src"
# exitcode=66: a race is told from a drift (1); halt_on_error: the first one ends the run
TSAN_OPTIONS="exitcode=66 halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
    exec "$builddir/cli/dvsim" regress --jobs 4 "$@"
