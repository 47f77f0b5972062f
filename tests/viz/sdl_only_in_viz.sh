#!/bin/sh
# sdl_only_in_viz.sh SRCROOT - no source outside viz/ includes SDL or calls
# it (DESIGN.md section 6): the core libraries build without SDL2.
set -u
cd "$1" || exit 1
found=$(find . -path ./viz -prune -o -path './build*' -prune -o -path ./subprojects -prune -o \
    \( -name '*.c' -o -name '*.h' -o -name '*.inc' \) -print |
    xargs grep -lE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](SDL2/)?SDL|\<SDL_[A-Za-z]+[[:space:]]*\(' 2>/dev/null)
if [ -n "$found" ]; then
    echo "SDL outside viz/:"
    echo "$found"
    exit 1
fi
echo "SDL is used in viz/ only"
