#!/bin/sh
# quickstart.sh - the README's first command: install what is missing from
# Debian's packages, configure and build, then run the main job.
set -eu
cd "$(dirname "$0")/.."

packages=$(sed -e 's/#.*//' scripts/packages.txt)  # the one list of what the build and tests need
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "installing:$missing"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi

[ -f build/build.ninja ] || meson setup build
meson compile -C build

# The main job: a 1024 x 1024 x 1024 fp16 matmul (the double-buffered kernel)
# on all cores of the default chip (ascend910), checked against the CPU
# reference, with the report of where the cycles went.
./build/cli/dvsim run matmul
