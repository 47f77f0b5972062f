#!/usr/bin/env python3
"""check_format.py - every C source and header is as clang-format leaves it.

Runs `clang-format --dry-run -Werror` (the style of .clang-format at the
source root) on every .c and .h of the source folders and fails (exit 1)
naming each file that differs, with the first lines clang-format would
change; `--fix` rewrites them in place instead.  Exit 77 (a skip for
meson) when clang-format is not installed: scripts/packages.txt installs
it, so CI always runs the check.  Usage: check_format.py [--fix] [SOURCE_ROOT]
"""
import os
import shutil
import subprocess
import sys

FOLDERS = ["base", "isa", "perfcounters", "memhier", "sim", "kernels", "viz", "cli", "tests"]


def sources(root):
    for top in FOLDERS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.join(d, f)


def main(argv):
    fix = "--fix" in argv
    args = [a for a in argv[1:] if not a.startswith("--")]
    root = os.path.abspath(args[0] if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    files = list(sources(root))
    if not files:
        print("check_format: no C sources under %s" % root)
        return 1
    exe = shutil.which("clang-format")
    if not exe:
        print("check_format: clang-format is not installed (scripts/packages.txt lists it); skipped")
        return 77
    style = "--style=file:" + os.path.join(root, ".clang-format")
    if fix:
        subprocess.run([exe, style, "-i"] + files, check=True)
        print("check_format: %d files formatted" % len(files))
        return 0
    bad = []
    for f in files:
        p = subprocess.run([exe, style, "--dry-run", "-Werror", f], capture_output=True, text=True)
        if p.returncode != 0:
            # "FILE:LINE:COL: error: ...": the first places it would change
            places = [l.split(": ")[0].rsplit(":", 2)[-2] for l in p.stderr.splitlines() if ": error: " in l][:5]
            bad.append((os.path.relpath(f, root), places))
    for f, places in bad:
        print("%s: not as clang-format writes it (lines %s)" % (f, ", ".join(places)))
    if bad:
        print("check_format: %d of %d files differ; scripts/check_format.py --fix rewrites them" % (len(bad), len(files)))
        return 1
    print("check_format: %d files as clang-format writes them" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
