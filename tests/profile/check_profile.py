#!/usr/bin/env python3
"""check_profile.py DVSIM SRCROOT [--quick] - the checks of dvsim profile
(docs/profiling.md):

 * every operator (every variant that runs as one launch) and every sample
   kernel: the classes of every pipe of every core add up to the run's
   cycles and to the per-pipe totals of stats.json (busy_cycles, wait_cycles,
   full_cycles, read from stats.json, not from the profile's own figures);
   the --json rows say what the text rows say; --csv has the same rows;
 * a kernel with a serialising pipe_barrier in its loop has that line on top
   with the barrier class, and without it (slow=0) dvsim diff shows the cost
   moving away and the run getting shorter;
 * a kernel that starves the Vector pipe on a missing set_flag names the
   wait_flag's line and its flag; a macro-heavy kernel names calling lines;
 * the same run gives the same bytes.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

DVSIM, SRC = sys.argv[1], sys.argv[2]
HERE = os.path.join(SRC, "tests", "profile")
FAILS = []
CHECKED = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def run(args, expect=0):
    p = subprocess.run([DVSIM] + args, capture_output=True, text=True, cwd=SRC)
    if p.returncode != expect:
        fail("%s: exit %d (expected %d): %s" % (" ".join(args), p.returncode, expect, p.stderr.strip()[:400]))
    return p


# operator -> small shapes (a new operator must be added here)
OPS = {
    "matmul": ["--shape", "M=64,N=48,K=96"],
    "add": ["--shape", "N=16384"],
    "relu": ["--shape", "N=16384"],
    "softmax": ["--shape", "R=16,C=200"],
    "layernorm": ["--shape", "R=16,C=200"],
    "rmsnorm": ["--shape", "R=16,C=200"],
    "conv2d": ["--shape", "C=16,H=8,W=8,Co=16"],
    "conv2d_bias_relu": ["--shape", "C=16,H=8,W=8,Co=16"],
    "attention": ["--shape", "SQ=64,SK=128"],
    "permute": ["--shape", "N1=8,N2=4,N3=24,PERM=213"],  # rows of 48 B: a DMA of one block and a Scalar tail each
}

SAMPLES = {
    "vadd.dvs": ["--gm", "x=random:f16:32768:1", "--gm", "y=random:f16:32768:2", "--gm", "z=zeros:65536",
                 "--arg", "n=32768"],
    "vadd_db.dvs": ["--gm", "x=random:f16:65536:1", "--gm", "y=random:f16:65536:2", "--gm", "z=zeros:131072",
                    "--arg", "n=65536"],
    "vadd_loop.dvs": ["--arg", "n=20"],
    "mmad_loop.dvs": ["--arg", "n=20"],
    "mmad_f32_loop.dvs": ["--chip", "ascend910b", "--gm", "zeros=zeros:32768", "--arg", "n=20"],
    "copy_blocks.dvs": ["--blocks", "4", "--gm", "src=zeros:262144", "--gm", "dst=zeros:262144",
                        "--arg", "per_block=65536"],
    "copy_db.dvs": ["--blocks", "2", "--gm", "src=zeros:262144", "--gm", "dst=zeros:262144",
                    "--arg", "per_block=131072"],
    "reread.dvs": ["--gm", "src=zeros:262144", "--arg", "per_block=131072", "--arg", "passes=2"],
    "pmu_loop.dvs": ["--gm", "out=zeros:4096", "--arg", "n=50"],
}

CLASSES = ["busy", "memory", "bank", "flag", "cc_flag", "barrier", "starved", "queue_full", "idle"]
PIPE_KEYS = {"SCALAR": "scalar", "VECTOR": "vector", "CUBE": "cube", "MTE1": "mte1", "MTE2": "mte2",
             "MTE3": "mte3", "FIXP": "fixp"}


def stat(stats, name):
    if name not in stats:
        return None
    return stats[name]["value"]


def check_sums(label, prof, stats):
    cycles = prof["cycles"]
    if cycles != stat(stats, "chip.cycles"):
        fail("%s: profile cycles %s != chip.cycles %s" % (label, cycles, stat(stats, "chip.cycles")))
    if not prof["sums_ok"]:
        fail("%s: the profile's own sum check failed" % label)
    for core in prof["per_core"]:
        ci = core["core"]
        full_sum = 0
        for pipe, c in core["pipes"].items():
            key = PIPE_KEYS[pipe]
            total = sum(c[k] for k in CLASSES)
            if total != cycles:
                fail("%s core%d %s: classes add up to %d, not %d" % (label, ci, pipe, total, cycles))
            busy = stat(stats, "core%d.%s.busy_cycles" % (ci, key))
            wait = stat(stats, "core%d.%s.wait_cycles" % (ci, key))
            full = stat(stats, "core%d.%s.queue_full_cycles" % (ci, key))
            if busy is None or wait is None:
                fail("%s: stats.json has no core%d.%s busy/wait cycles" % (label, ci, key))
                continue
            if c["busy"] + c["memory"] + c["bank"] != busy and (prof["done"] or pipe != "SCALAR"):
                fail("%s core%d %s: busy+memory+bank %d != %s" % (label, ci, pipe,
                     c["busy"] + c["memory"] + c["bank"], busy))
            if c["flag"] + c["cc_flag"] + c["barrier"] != wait:
                fail("%s core%d %s: flag+cc_flag+barrier != %s" % (label, ci, pipe, wait))
            if full is not None:
                full_sum += full
        sc = core["pipes"].get("SCALAR")
        if sc and sc["queue_full"] != full_sum:
            fail("%s core%d: SCALAR queue_full %d != sum of full_cycles %d" % (label, ci, sc["queue_full"], full_sum))


ROW = re.compile(r"^\s*([0-9.]+)%\s+(\d+)\s+(\d+)\s+(.*?)\s{2,}(\S.*)$")


def text_rows(text):
    rows = []
    on = False
    for line in text.splitlines():
        if line.startswith(" share "):
            on = True
            continue
        if not on or "|" in line[:40]:
            continue
        m = re.match(r"^\s*([0-9.]+)%\s+(\d+)\s+(\d+)\s", line)
        if m:
            rows.append((float(m.group(1)), int(m.group(2)), int(m.group(3)), line.rstrip().split()[-1]
                         if " <- " not in line else line[line.rindex(" <- ") - 1:].strip()))
    return rows


def check_text_json(label, text, prof):
    rows = text_rows(text)
    if len(rows) != len(prof["rows"]):
        fail("%s: %d text rows, %d JSON rows" % (label, len(rows), len(prof["rows"])))
        return
    for t, j in zip(rows, prof["rows"]):
        if t[1] != j["cycles"] or t[2] != j["insns"] or abs(t[0] - j["share_pct"]) > 0.051:
            fail("%s: text row %s != JSON row %s" % (label, t, (j["share_pct"], j["cycles"], j["insns"], j["where"])))
            return
        if not j["where"].endswith(t[3].split(" <- ")[-1]) and t[3] not in j["where"]:
            fail("%s: text row names %r, JSON %r" % (label, t[3], j["where"]))
            return
    for line in text.splitlines():
        m = re.match(r"^(\w+)\s+([0-9.]+)%", line)
        if m and m.group(1) in PIPE_KEYS:
            pass


def profile(label, args, expect=0):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "o")
        p = run(["profile"] + args + ["--json", "--top", "0", "--out", out], expect)
        if p.returncode != expect:
            return None
        prof = json.loads(p.stdout)
        with open(os.path.join(out, "stats.json")) as f:
            stats = json.load(f)
        with open(os.path.join(out, "profile.json")) as f:
            if json.load(f) != prof:
                fail("%s: profile.json differs from --json" % label)
        check_sums(label, prof, stats)
        CHECKED.append(label)
        t = run(["profile"] + args + ["--top", "0", "--no-source"], expect)
        check_text_json(label, t.stdout, prof)
        c = run(["profile"] + args + ["--csv", "--top", "0"], expect)
        lines = [l for l in c.stdout.splitlines()[1:] if l.startswith("line,")]
        if len(lines) != len(prof["rows"]):
            fail("%s: %d CSV rows, %d JSON rows" % (label, len(lines), len(prof["rows"])))
        return prof


def ops():
    p = run(["ops"])
    names = re.findall(r"^(\w+) - ", p.stdout, re.M)
    for name in names:
        if name not in OPS:
            fail("operator %s has no small shape in check_profile.py" % name)
            continue
        block = p.stdout.split(name + " - ", 1)[1].split("\n\n", 1)[0]
        variants = re.search(r"variants:\s+(.*)", block).group(1).split(", ")
        for v in variants:
            for chip in ["ascend910", "ascend910b"]:
                args = [name, "--variant", v, "--chip", chip, "--no-data"] + OPS[name]
                if name == "conv2d_bias_relu" and v == "unfused":
                    p2 = run(["profile"] + args, 64)  # three launches: refused in one line
                    if p2.stderr.count("\n") != 1:
                        fail("unfused conv2d: not one line: %r" % p2.stderr)
                    continue
                profile("%s/%s/%s" % (name, v, chip), args)


def samples():
    on_disk = sorted(f for f in os.listdir(os.path.join(SRC, "kernels", "samples")) if f.endswith(".dvs"))
    for f in on_disk:
        if f not in SAMPLES:
            fail("sample %s has no arguments in check_profile.py" % f)
    for name, args in SAMPLES.items():
        profile("sample " + name, [os.path.join("kernels", "samples", name)] + args)


def slow_barrier():
    k = os.path.join("tests", "profile", "slow_barrier.dvs")
    base = [k, "--gm", "x=random:f16:262144:1", "--gm", "z=zeros:262144", "--arg", "n=131072"]
    slow = profile("slow barrier", base + ["--arg", "slow=1"])
    fast = profile("no barrier", base + ["--arg", "slow=0"])
    if not slow or not fast:
        return
    top = slow["rows"][0]
    if not top["where"].endswith("slow_barrier.dvs:47") or max(top["classes"], key=top["classes"].get) != "barrier":
        fail("slow barrier: the top row is %s %s" % (top["where"], top["classes"]))
    if fast["cycles"] >= slow["cycles"]:
        fail("slow barrier: removing it did not shorten the run (%d -> %d)" % (slow["cycles"], fast["cycles"]))
    with tempfile.TemporaryDirectory() as d:
        a, b = os.path.join(d, "a"), os.path.join(d, "b")
        run(["profile"] + base + ["--arg", "slow=1", "--out", a])
        run(["profile"] + base + ["--arg", "slow=0", "--out", b])
        p = run(["diff", a, b, "--json"])
        dj = json.loads(p.stdout)
        moved = {x["where"]: x for x in dj["lines"]}
        line = [w for w in moved if w.endswith("slow_barrier.dvs:47")]
        if not line or moved[line[0]]["new"] != 0:
            fail("diff: the barrier line's cost did not go away: %s" % (line and moved[line[0]]))
        cyc = [m for m in dj["metrics"] if m["name"] == "chip.cycles"]
        if not cyc or cyc[0]["new"] >= cyc[0]["old"]:
            fail("diff: chip.cycles did not drop: %s" % cyc)
        t = run(["diff", a, b])
        if "chip.cycles" not in t.stdout or "slow_barrier.dvs:47" not in t.stdout:
            fail("diff text lacks chip.cycles or the barrier line")
        run(["diff", a, b, "--fail-on", "5"], 1)
        run(["diff", a, a, "--fail-on", "0"], 0)


def missing_set():
    k = os.path.join("tests", "profile", "missing_set.dvs")
    prof = profile("missing set_flag", [k, "--gm", "x=random:f16:65536:1"], 1)
    if not prof:
        return
    never = prof["never_came"]
    if len(never) != 1 or not never[0]["where"].endswith("missing_set.dvs:22") or \
            never[0]["flag"] != "flag mte2->v id 0":
        fail("missing set_flag: never_came is %s" % never)
    t = run(["profile", k, "--gm", "x=random:f16:65536:1"], 1).stdout
    if "never came: flag mte2->v id 0, waited for at tests/profile/missing_set.dvs:22" not in t:
        fail("missing set_flag: the text does not name the wait_flag's line")


def macros():
    k = os.path.join("tests", "profile", "macros.dvs")
    prof = profile("macros", [k, "--gm", "x=random:f16:65536:1", "--gm", "z=zeros:65536", "--arg", "n=8"])
    if not prof:
        return
    calls = [r for r in prof["rows"] if " <- " in r["where"]]
    if not calls or not all(r["where"].startswith("tests/profile/macros.dvs:") and "macros.inc:" in r["where"]
                            for r in calls):
        fail("macros: the rows do not name their calling lines: %s" % [r["where"] for r in prof["rows"]])
    by_call = json.loads(run(["profile", k, "--gm", "x=random:f16:65536:1", "--gm", "z=zeros:65536",
                              "--arg", "n=8", "--by", "call", "--json", "--top", "0"]).stdout)
    wheres = {r["where"] for r in by_call["rows"]}
    for line in (21, 22, 23):
        if "tests/profile/macros.dvs:%d" % line not in wheres:
            fail("macros --by call: no row for macros.dvs:%d (%s)" % (line, sorted(wheres)))


def kinds():
    """--kind: the rows of a mix kernel's AIV side are those of its AIV cores, and add up with the
    AIC side's to the whole run's."""
    base = ["profile", "attention", "--chip", "ascend910b", "--no-data", "--shape", "SQ=64,SK=128", "--json",
            "--top", "0"]
    total = json.loads(run(base).stdout)
    parts = [json.loads(run(base + ["--kind", k]).stdout) for k in ("aic", "aiv")]
    if sum(p["total_cost"] for p in parts) != total["total_cost"]:
        fail("--kind: aic + aiv costs %s != %d" % ([p["total_cost"] for p in parts], total["total_cost"]))
    for p, k in zip(parts, ("aic", "aiv")):
        if {c["kind"] for c in p["per_core"]} != {k}:
            fail("--kind %s: per_core has %s" % (k, {c["kind"] for c in p["per_core"]}))


def deterministic():
    args = ["profile", "matmul", "--shape", "M=64,N=48,K=96", "--json"]
    if run(args).stdout != run(args).stdout:
        fail("two runs gave different profiles")


def bad_input():
    for args, code in [(["profile", "matmul", "--top", "x"], 64), (["profile", "matmul", "--by", "file"], 64),
                       (["profile", "matmul", "--json", "--csv"], 64),
                       (["profile", "matmul", "--shape", "M=64,N=48,K=96", "--core", "99"], 64),
                       (["profile", "matmul", "--shape", "M=64,N=48,K=96", "--kind", "aiv"], 64),
                       (["profile", "matmul", "--kind", "gpu"], 64),
                       (["diff", "/nonexistent/a", "/nonexistent/b"], 66), (["diff", "a"], 64)]:
        p = run(args, code)
        if p.stderr.count("\n") != 1:
            fail("%s: not one line on stderr: %r" % (args, p.stderr))


def metrics_groups():
    p = run(["run", "matmul", "--shape", "M=64,N=48,K=96", "--metrics", "PipeUtilization,Memory", "--json"])
    keys = json.loads(p.stdout)
    for g in ("PipeUtilization", "Memory"):
        if not any(k.startswith("metrics.%s.chip." % g) for k in keys) or \
                not any(k.startswith("metrics.%s.core0." % g) for k in keys):
            fail("--metrics %s is not in --json" % g)
    t = run(["run", "matmul", "--shape", "M=64,N=48,K=96", "--metrics", "PipeUtilization,Memory"]).stdout
    if "\nPipeUtilization" not in t or "\nMemory" not in t:
        fail("--metrics A,B does not print both groups")
    run(["run", "matmul", "--metrics", "PipeUtilization,Nope"], 64)


def trace_classes():
    import gzip
    with tempfile.TemporaryDirectory() as d:
        tr = os.path.join(d, "t.json.gz")
        run(["run", os.path.join("tests", "profile", "slow_barrier.dvs"), "--gm", "x=random:f16:262144:1",
             "--gm", "z=zeros:262144", "--arg", "n=32768", "--arg", "slow=1", "--trace", tr])
        with gzip.open(tr, "rt") as f:
            events = json.load(f)["traceEvents"]
        classes = {e["args"]["stall"] for e in events if e.get("ph") == "X" and "stall" in e.get("args", {})}
        for want in ("flag", "barrier"):
            if want not in classes:
                fail("trace: no slice with stall class %s (%s)" % (want, classes))
        for e in events:
            a = e.get("args", {})
            if "stall" in a and a["stall_cycles"] != a["cycles"]:
                fail("trace: a stall slice's stall_cycles differ from its cycles: %s" % e)
                break


quick = "--quick" in sys.argv
trace_classes()
metrics_groups()
bad_input()
slow_barrier()
missing_set()
macros()
deterministic()
kinds()
samples()
if not quick:
    ops()
print("%d profiles checked: %s" % (len(CHECKED), ", ".join(CHECKED)))
print("%d failures" % len(FAILS))
sys.exit(1 if FAILS else 0)
