#!/bin/sh
# smoke.sh - one short libFuzzer run for `meson test --suite fuzz-smoke`.
#
# usage: smoke.sh FUZZER CORPUS_DIR [LIBFUZZER_OPTION...]
#
# libFuzzer writes every new interesting input into the FIRST corpus
# directory it is given.  A fresh scratch directory goes first and the
# committed corpus second, so the source tree is never written, and every
# run starts from the same inputs: with -seed fixed, a smoke run does the
# same work each time instead of growing with a corpus kept in the build
# tree.  (meson's test() cannot run a custom_target directly, hence a script.)
set -eu
fuzzer=$1
corpus=$2
shift 2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/dvsim-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 143' INT TERM
"$fuzzer" "$@" "$scratch" "$corpus"
