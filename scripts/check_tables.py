#!/usr/bin/env python3
"""check_tables.py - one table per fact, for the pipes and the data paths.

Every name of a pipe (isa/pipes.def: its assembly name, msprof lane name
and statistics key) and of a data path (isa/paths.def: its name and key)
may be written as a string literal in its table only: everything else
takes it from dv_pipe_name / dv_pipe_trace_name / dv_pipe_key /
dv_path_name / dv_path_key.  The script reads the C sources, headers,
tables and kernel sources of the libraries (not the tests, which state
expected output, and not the docs), ignores comments, and fails (exit 1,
one line per problem) for any such literal outside the table.  A few
strings are other facts spelled the same (HOMONYMS below, each with its
reason); the one-letter assembly names (s, v, m) are not checked, as every
"s" of a plural would match.  Usage: check_tables.py [SOURCE_ROOT]
"""
import os
import re
import sys

FOLDERS = ["base", "isa", "perfcounters", "memhier", "sim", "kernels", "viz", "cli"]
EXTS = (".c", ".h", ".def", ".inc", ".dvs")
TABLES = {"isa/pipes.def": "pipe", "isa/paths.def": "path"}
# (file, string): why the same spelling is a different fact there.
HOMONYMS = {
    ("isa/isa_formats.c", "cube"): "the timing class of mmad",
    ("isa/isa_formats.c", "fix"): "the timing class of fixp",
    ("isa/isa_formats.c", "scalar"): "the name of an instruction's scalar operand",
    ("isa/isa_formats.c", "fixp"): "the name of fixp's operand format",
    ("isa/isa.def", "fixp"): "the mnemonic of the FixPipe instruction",
    ("isa/isa_params.def", "fixp"): "the name of the fixp parameter layout",
}
STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def strip_comments(text):
    """Blanks /* */ and // comments, keeping strings and line numbers."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "'":  # a character literal ('"' is no string)
            j = i + 1
            while j < n and text[j] != "'" and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            end = j if j < n and text[j] == "\n" else j + 1  # an unclosed one ends at the line
            out.append(" " * (end - i))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def table_names(root):
    names = {}
    for path, kind in TABLES.items():
        with open(os.path.join(root, path)) as f:
            for line in f:
                m = re.match(r"\s*DV_(PIPE|PATH)_ROW\((.*)\)\s*$", line)
                if not m:
                    continue
                strings = STRING.findall(m.group(2))
                # pipes: asm name, lane, key; paths: name, key (then the source note)
                for s in strings[:3] if kind == "pipe" else strings[:2]:
                    if len(s) >= 3:  # "s", "v", "m" are every plural and field name too
                        names[s] = path
    return names


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    names = table_names(root)
    if len(names) < 10:
        print("check_tables: found only %d names in %s" % (len(names), ", ".join(TABLES)))
        return 1
    problems = []
    nfiles = 0
    for top in FOLDERS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for fn in sorted(files):
                if not fn.endswith(EXTS):
                    continue
                rel = os.path.relpath(os.path.join(d, fn), root)
                nfiles += 1
                with open(os.path.join(d, fn), errors="replace") as f:
                    text = f.read()
                if fn.endswith(".dvs") or (fn.endswith(".inc") and top == "kernels"):  # assembly: ; comments
                    text = re.sub(r";[^\n]*", "", text)
                text = strip_comments(text)
                for lineno, line in enumerate(text.split("\n"), 1):
                    for s in STRING.findall(line):
                        table = names.get(s)
                        if table and rel != table and (rel, s) not in HOMONYMS:
                            problems.append('%s:%d: "%s" is a name of %s; take it from the table\'s accessor'
                                            % (rel, lineno, s, table))
    for p in problems:
        print(p)
    if problems:
        print("check_tables: %d problem%s" % (len(problems), "" if len(problems) == 1 else "s"))
        return 1
    print("check_tables: %d pipe and path names, %d files: each name in its table only" % (len(names), nfiles))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
