#!/usr/bin/env python3
"""check_headers.py SOURCE_ROOT HEADER... - the headers that tests/headers
compiles on their own are all the public ones: every file of the folders
other folders include from (PUBLIC below) is in the list, and every header
in the list exists.  Exit 1 with one line per problem."""
import glob
import os
import sys

# the public headers of each library, as DESIGN.md section 6 (../shared/docs) layers them
# (sim's engine and units headers are the interfaces between its sub-folders;
# kernels/*.h are shared by the operators' folders)
PUBLIC = ["base/*.h", "isa/dv_*.h", "perfcounters/*.h", "memhier/*.h", "sim/*.h", "sim/config/dv_config.h", "sim/sanitize/dv_*.h",
          "sim/engine/*.h", "sim/units/*.h", "kernels/*.h", "runtime/dv_*.h", "graph/dv_*.h", "viz/trace/*.h", "viz/dv_*.h", "cli/*.h"]


def main(argv):
    root, listed = argv[1], set(argv[2:])
    found = {os.path.relpath(p, root) for pat in PUBLIC for p in glob.glob(os.path.join(root, pat))}
    problems = ["%s: not compiled on its own: add it to tests/headers/meson.build" % h
                for h in sorted(found - listed)]
    problems += ["%s: listed in tests/headers/meson.build but not a public header" % h
                 for h in sorted(listed - found)]
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print("%d public headers, each compiles on its own" % len(found))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
