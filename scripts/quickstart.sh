#!/bin/sh
# quickstart.sh - the README's first command: install what is missing from
# Debian's packages, configure and build, then run the main job.
set -eu
cd "$(dirname "$0")/.."

packages="meson ninja-build gcc pkg-config libelf-dev zlib1g-dev check libsdl2-dev libinih-dev libcjson-dev clang libfuzzer-14-dev"
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

# The main job.  Until the matmul operator lands, it assembles the sample
# vector-add kernel, lists the object, and simulates it on one core of the
# default chip (ascend910) with random fp16 inputs, printing the report.
./build/sim/cli/dvsim asm kernels/samples/vadd.dvs -o build/vadd.elf
./build/sim/cli/dvsim disasm build/vadd.elf
./build/sim/cli/dvsim run build/vadd.elf --gm x=random:f16:32768:1 --gm y=random:f16:32768:2 \
    --gm z=zeros:65536 --arg n=32768
