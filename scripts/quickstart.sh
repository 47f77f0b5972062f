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

# The Python package (python/dvsim; docs/sweeps.md): a .pth file in the user
# site-packages puts this checkout's python/ on the path of Debian's python3,
# so `import dvsim` works from any folder; the package loads this checkout's
# build/cli/libdvsim.so.  (Or, without it: export PYTHONPATH=$PWD/python.)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if site=$("$py" -m site --user-site 2> /dev/null); then
    mkdir -p "$site" && echo "$PWD/python" > "$site/dvsim.pth" && echo "python3: import dvsim from $PWD/python ($site/dvsim.pth)"
fi

# The main job: a 1024 x 1024 x 1024 fp16 matmul (the double-buffered kernel)
# on all cores of the default chip (ascend910), checked against the CPU
# reference, with the report of where the cycles went.
./build/cli/dvsim run matmul
