#!/usr/bin/env python3
"""The sanitizer's corpus (tests/sanitize/*.dvs): every kernel is broken on
purpose and gives exactly the findings its '; EXPECT:' lines name, each by
its check and the source lines of its sides (tags '@X' at the end of lines,
in comments); the fixed version (';FIX' lines put in, '; BUG' lines taken
out) gives none and exits 0.  '; RUN:' holds the run's options.

usage: run_corpus.py DVSIM CORPUS_DIR [--table]   (--table: the results as markdown)"""
import os
import re
import subprocess
import sys
import tempfile

FINDING = re.compile(r"^(race|sync|init|mem): (.*)$")


def parse(path):
    lines = open(path).read().split("\n")
    tags, expect, run = {}, [], []
    for i, line in enumerate(lines, 1):
        if not re.match(r"\s*;\s*(EXPECT|RUN):", line) and ";" in line:
            for t in re.findall(r"@([A-Z])\b", line.split(";", 1)[1]):
                tags.setdefault(t, i)
        m = re.match(r"\s*;\s*EXPECT:\s*(\w+)\s+(.*)$", line)
        if m:
            expect.append((m.group(1), m.group(2).split()))
        m = re.match(r"\s*;\s*RUN:\s*(.*)$", line)
        if m:
            run = m.group(1).split()
    want = []
    for check, refs in expect:
        want.append((check, tuple(sorted(tags[r[1:]] for r in refs))))
    fixed = []
    for line in lines:
        if re.search(r";\s*BUG\b", line):
            continue
        fixed.append(line[4:] if line.startswith(";FIX") else line)
    return sorted(want), run, "\n".join(fixed)


def findings(dvsim, path, run):
    p = subprocess.run([dvsim, "run", path, "--sanitize"] + run, capture_output=True, text=True, timeout=60)
    got, text = [], []
    base = re.escape(os.path.basename(path))
    for line in p.stdout.split("\n"):
        m = FINDING.match(line)
        if not m:
            continue
        text.append(line)
        nums = [int(n) for n in re.findall(base + r":(\d+)", m.group(2))]
        got.append((m.group(1), tuple(sorted(nums))))
    return sorted(got), p.returncode, text, p.stderr


def main():
    dvsim, corpus = sys.argv[1], sys.argv[2]
    table = "--table" in sys.argv
    failed = 0
    rows = []
    tmp = tempfile.mkdtemp()
    for name in sorted(os.listdir(corpus)):
        if not name.endswith(".dvs"):
            continue
        path = os.path.join(corpus, name)
        want, run, fixed_text = parse(path)
        got, rc, text, err = findings(dvsim, path, run)
        fixed_path = os.path.join(tmp, name)
        with open(fixed_path, "w") as f:
            f.write(fixed_text)
        fgot, frc, ftext, ferr = findings(dvsim, fixed_path, run)
        ok = got == want and rc == 1 and not fgot and frc == 0
        rows.append((name, want, got, rc, fgot, frc, ok))
        if not ok:
            failed += 1
            print("FAIL %s: want %s, got %s (exit %d); fixed: %s (exit %d)" % (name, want, got, rc, fgot, frc))
            for t in text + ftext:
                print("   ", t)
            if frc:
                print("    fixed stderr:", ferr.strip())
        else:
            print("ok   %s: %s" % (name, ", ".join("%s %s" % (c, ",".join(map(str, l))) for c, l in got)))
    if table:
        print("\n| kernel | expected (check: lines) | broken: found, exit | fixed: found, exit |")
        print("|---|---|---|---|")
        for name, want, got, rc, fgot, frc, ok in rows:
            w = "; ".join("%s: %s" % (c, ", ".join(map(str, l))) for c, l in want)
            g = "; ".join("%s: %s" % (c, ", ".join(map(str, l))) for c, l in got)
            print("| %s | %s | %s, %d | %d findings, %d |" % (name, w, g or "none", rc, len(fgot), frc))
    if len(rows) < 12:
        print("FAIL: only %d kernels in the corpus" % len(rows))
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
