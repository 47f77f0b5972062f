#!/usr/bin/env python3
"""check_layers.py - the layering of DESIGN.md section 6 (../shared/docs),
checked on every #include.

Reads every `#include` of the C sources (.c, .h, .inc, .def) and fails (exit
1, one line per problem) when
  - a top-level folder includes a file of a folder that comes later in the
    layer order (LAYERS below, the order of the top-level meson.build), or
    a sub-folder of one that comes later in its SUBLAYERS;
  - two modules include each other, directly or through a longer cycle (a
    module is a file with its implementation in the same folder: dv_evq.h
    and dv_evq.c are one, and so is a private X_internal.h / X_priv.h /
    X_sdl.h of X.c; a header shared by several .c files is a module of its
    own);
  - two folders include each other (sim/core and sim/units, say);
  - a top-level folder with a meson.build is not in LAYERS (its includes
    would go unchecked), or SOURCE_ROOT holds no sources at all.
An include in <...> is checked when it names a file of the tree (a system
header does not); headers generated into the build tree are not.  Usage:
check_layers.py [SOURCE_ROOT]  (default: the parent of this script's
folder); --graph prints the folder graph instead.
"""
import collections
import os
import re
import sys

LAYERS = ["base", "isa", "perfcounters", "memhier", "sim", "kernels", "runtime", "graph", "viz", "cli", "tests"]
EXTS = (".c", ".h", ".inc", ".def")
INCLUDE = re.compile(r'^\s*#\s*include\s+["<]([^">]+)[">]')
# The sub-folders of a layer, in their order ("" the layer's own files, its
# public interface): sim's chip config and event queue, then its interface,
# the units, and the core that uses them all.
SUBLAYERS = {"sim": ["config", "engine", "", "units", "core", "sanitize"]}


def sublayer(path):
    """(index in its layer's SUBLAYERS, or None) of a file."""
    parts = path.split("/")
    order = SUBLAYERS.get(parts[0])
    sub = parts[1] if len(parts) > 2 else ""
    return order.index(sub) if order and sub in order else None


def sources(root):
    for top in LAYERS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(EXTS):
                    yield os.path.relpath(os.path.join(d, f), root)


def stem_of(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    return stem[3:] if stem.startswith("dv_") else stem


PRIVATE_SUFFIXES = ("_internal", "_priv", "_sdl")


def module_of(path, c_stems):
    """The module a file belongs to: its folder and its stem without dv_.  A
    module's private header (X_internal.h, X_priv.h, X_sdl.h, with X.c in
    the same folder) is part of it."""
    d, stem = os.path.dirname(path), stem_of(path)
    if not path.endswith(".c"):
        for suffix in PRIVATE_SUFFIXES:
            if stem.endswith(suffix) and stem[: -len(suffix)] in c_stems.get(d, ()):
                return d + "/" + stem[: -len(suffix)]
    return d + "/" + stem


def resolve(path, name, by_name):
    """The repository file an #include names, or None (system or generated)."""
    d = os.path.dirname(path)
    direct = os.path.normpath(os.path.join(d, name))
    cands = by_name.get(os.path.basename(name), [])
    if direct in cands:
        return direct, None
    if not cands:
        return None, None
    top = path.split("/")[0]
    for pick in ([c for c in cands if os.path.dirname(c) == d], [c for c in cands if c.split("/")[0] == top]):
        if len(pick) == 1:
            return pick[0], None
    if len(cands) == 1:
        return cands[0], None
    return None, "ambiguous include \"%s\" (%s)" % (name, ", ".join(cands))


def cycles(edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    nodes = sorted(set(edges) | {b for bs in edges.values() for b in bs})

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            visit(v)
    return out


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = list(sources(root))
    if not files:
        print("check_layers: no C sources under %s (%s)" % (root, ", ".join(LAYERS)))
        return 1
    by_name = collections.defaultdict(list)
    c_stems = collections.defaultdict(set)
    for f in files:
        by_name[os.path.basename(f)].append(f)
        if f.endswith(".c"):
            c_stems[os.path.dirname(f)].add(stem_of(f))
    problems = ["%s/meson.build: a top-level folder that is not in check_layers.py's LAYERS" % d
                for d in sorted(os.listdir(root))
                if d not in LAYERS and os.path.isfile(os.path.join(root, d, "meson.build"))]
    mod_edges = collections.defaultdict(set)
    dir_edges = collections.defaultdict(set)
    why = {}
    for f in files:
        with open(os.path.join(root, f), errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target, err = resolve(f, m.group(1), by_name)
                if err:
                    problems.append("%s:%d: %s" % (f, lineno, err))
                if not target:
                    continue
                a, b = f.split("/")[0], target.split("/")[0]
                if LAYERS.index(b) > LAYERS.index(a):
                    problems.append("%s:%d: %s includes %s: %s comes after %s in the layer order (%s)"
                                    % (f, lineno, a, target, b, a, " -> ".join(LAYERS)))
                sa, sb = sublayer(f), sublayer(target)
                if a == b and sa is not None and sb is not None and sb > sa:
                    problems.append("%s:%d: includes %s, which comes later in %s's order (%s)"
                                    % (f, lineno, target, a, " -> ".join(x or "(its own files)" for x in SUBLAYERS[a])))
                ma, mb = module_of(f, c_stems), module_of(target, c_stems)
                if ma != mb:
                    mod_edges[ma].add(mb)
                    why.setdefault((ma, mb), "%s:%d" % (f, lineno))
                da, db = os.path.dirname(f), os.path.dirname(target)
                if da != db:
                    dir_edges[da].add(db)
                    why.setdefault((da, db), "%s:%d" % (f, lineno))
    if "--graph" in argv:
        for a in sorted(dir_edges):
            print("%s -> %s" % (a, ", ".join(sorted(dir_edges[a]))))
        return 0
    for kind, edges in (("modules", mod_edges), ("folders", dir_edges)):
        for comp in cycles(edges):
            links = ["%s -> %s (%s)" % (a, b, why[(a, b)]) for a in comp for b in sorted(edges[a]) if b in comp]
            problems.append("include cycle between %s %s: %s" % (kind, ", ".join(comp), "; ".join(links)))
    for p in problems:
        print(p)
    if problems:
        print("check_layers: %d problem%s" % (len(problems), "" if len(problems) == 1 else "s"))
        return 1
    print("check_layers: %d files, layers %s, no include cycles" % (len(files), " -> ".join(LAYERS)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
