#!/usr/bin/env python3
"""dvsim rt end to end (docs/runtime.md): the figures of its scripts checked
by arithmetic, the launch-level race check with and without an event,
operators on given tensors against dvsim run, determinism of the table and
the trace, and bad scripts (exit 65, one line naming the line).

usage: rt_cli.py DVSIM SOURCE_ROOT"""
import json
import os
import subprocess
import sys
import tempfile

DVSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
SCRIPTS = os.path.join(ROOT, "tests", "runtime", "scripts")
COPY = os.path.join(ROOT, "kernels", "samples", "copy_blocks.dvs")
L = 6000  # ascend910's chip.launch_cycles
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def rt(*args, rc=0):
    p = subprocess.run([DVSIM, "rt", *args], capture_output=True, text=True)
    check(p.returncode == rc, "dvsim rt %s: exit %d, wanted %d: %s" % (" ".join(args), p.returncode, rc, p.stderr))
    return p


def rt_json(script, *args, rc=0):
    return json.loads(rt(script, "--json", *args, rc=rc).stdout)


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def two_branches(tmp):
    """Two matmuls on disjoint halves of the cores: on two streams both start
    at L and end sooner than on one stream (where the second is issued when
    the first ends and starts L later), and no sooner than the longer alone."""
    a = "op s0 matmul M=512,N=512,K=512 cores=0-15 check\n"
    b = "op s0 matmul M=512,N=256,K=512 cores=16-31 check\n"
    alone = [rt_json(write(tmp, "a%d.rt" % i, "stream s0\n" + x))["launches"][0] for i, x in enumerate((a, b))]
    for x in alone:
        check(x["start"] == L and x["end"] == L + x["cycles"] and x["check_passed"], "alone: %s" % x)
    one = rt_json(write(tmp, "one.rt", "stream s0\n" + a + b))["launches"]
    check(one[0]["end"] == alone[0]["end"], "one stream: the first as alone")
    check(one[1]["issue"] == one[0]["end"] and one[1]["start"] == one[0]["end"] + L,
          "one stream: the second issued at the first's end, started L later: %s" % one[1])
    # the second's cycles on a warm L2 stay within 10% of alone
    check(abs(one[1]["cycles"] - alone[1]["cycles"]) <= alone[1]["cycles"] // 10, "one stream: the second's cycles")
    one_end = one[1]["end"]
    two = rt_json(os.path.join(SCRIPTS, "two_streams.rt"))
    t = two["launches"]
    check(t[0]["start"] == L and t[1]["start"] == L, "two streams: both start at L")
    check(t[0]["cores_used"] == "0-15" and t[1]["cores_used"] == "16-31", "two streams: disjoint cores")
    longer = max(alone[0]["end"], alone[1]["end"])
    check(two["cycles"] == max(t[0]["end"], t[1]["end"]), "two streams: end to end is the last end")
    check(longer <= two["cycles"] < one_end, "two streams: %d not in [%d, %d)" % (two["cycles"], longer, one_end))
    # sharing HBM costs the branches at most a third over alone
    check(two["cycles"] - L <= (longer - L) * 4 // 3, "two streams: contention bounded")
    print("two branches: alone %d and %d, one stream %d, two streams %d" %
          (alone[0]["end"], alone[1]["end"], one_end, two["cycles"]))


def chain():
    """100 launches, each enqueued by the callback after the one before."""
    j = rt_json(os.path.join(SCRIPTS, "chain.rt"))
    ls = j["launches"]
    check(len(ls) == 100, "chain: 100 launches, got %d" % len(ls))
    t = ls[0]["cycles"]
    for i, x in enumerate(ls):
        check(x["record"] == i and x["start"] == x["issue"] + L and x["cycles"] == t, "chain: launch %d %s" % (i, x))
        if i:
            check(x["issue"] == ls[i - 1]["end"], "chain: launch %d issued at %d's end" % (i, i - 1))
    check(j["cycles"] == 100 * (L + t), "chain: end to end %d = 100 x (%d + %d)" % (j["cycles"], L, t))


def event_wait(tmp):
    """The event orders the consumer after the producer and the race check
    sees no race; without the wait both start at L and it reports one."""
    src = os.path.join(SCRIPTS, "event_wait.rt")
    j = rt_json(src, "--sanitize")
    p, c = j["launches"]
    check(c["issue"] == p["end"] and c["start"] == p["end"] + L, "event: consumer after producer: %s %s" % (p, c))
    check(j["races"] == [], "event: no race")
    p_txt = rt(src, "--sanitize")
    check("sanitizer: 0 races between launches" in p_txt.stdout, "event: the text says no race")
    with open(src) as f:
        text = f.read().replace("wait cons done\n", "")
    text = text.replace("../../../kernels/samples/copy_blocks.dvs", COPY)
    nowait = write(tmp, "nowait.rt", text)
    j = rt_json(nowait, "--sanitize", rc=1)
    p, c = j["launches"]
    check(p["start"] == L and c["start"] == L, "no wait: both start at L")
    check(len(j["races"]) == 1 and j["races"][0]["first"] == 0 and j["races"][0]["second"] == 1 and
          j["races"][0]["first_writes"] and not j["races"][0]["second_writes"] and j["races"][0]["bytes"] == 524288,
          "no wait: one race, the producer's write of mid against the consumer's read: %s" % j["races"])
    p_txt = rt(nowait, "--sanitize", rc=1)
    check(p_txt.stdout.count("race: GM") == 1 and "written by launch 0" in p_txt.stdout, "no wait: the race line")
    check(p_txt.stderr.count("\n") == 1 and "race" in p_txt.stderr, "no wait: one line on stderr")


def op_given(tmp, chip, op, shape, tensors, outputs):
    """dvsim run's inputs given to dvsim rt's operator: the same outputs, byte for byte."""
    run = [DVSIM, "run", op, "--chip", chip, "--shape", shape]
    for t in tensors:
        run += ["--dump", "%s=%s" % (t, os.path.join(tmp, "%s_%s.bin" % (op, t)))]
    p = subprocess.run(run, capture_output=True, text=True)
    check(p.returncode == 0, "dvsim run %s: %s" % (op, p.stderr))
    lines = ["stream s0"]
    binds = []
    for t in tensors:
        f = os.path.join(tmp, "%s_%s.bin" % (op, t))
        if t in outputs:
            lines.append("buf T%s %d" % (t, os.path.getsize(f)))
        else:
            lines.append("buf T%s file=%s" % (t, f))
        binds.append("%s=T%s" % (t, t))
    lines.append("op s0 %s %s seed=99 check %s" % (op, shape, " ".join(binds)))
    for t in outputs:
        lines.append("dump T%s %s" % (t, os.path.join(tmp, "%s_%s.rt.bin" % (op, t))))
    j = rt_json(write(tmp, op + ".rt", "\n".join(lines) + "\n"), "--chip", chip)
    check(j["launches"][-1].get("check_passed"), "%s on given tensors: check passed" % op)
    for t in outputs:
        with open(os.path.join(tmp, "%s_%s.bin" % (op, t)), "rb") as f:
            want = f.read()
        with open(os.path.join(tmp, "%s_%s.rt.bin" % (op, t)), "rb") as f:
            got = f.read()
        check(got == want, "%s %s on %s: output %s as dvsim run's" % (op, shape, chip, t))


def determinism(tmp):
    """Two runs: the same table, JSON and trace, byte for byte."""
    src = os.path.join(SCRIPTS, "two_streams.rt")
    t1, t2 = os.path.join(tmp, "t1.json"), os.path.join(tmp, "t2.json")
    a = rt(src, "--json", "--trace", t1).stdout
    b = rt(src, "--json", "--trace", t2).stdout
    check(a == b, "determinism: the JSON")
    with open(t1, "rb") as f1, open(t2, "rb") as f2:
        check(f1.read() == f2.read(), "determinism: the trace")
    trace = json.load(open(t1))["traceEvents"]
    names = {e["args"]["name"] for e in trace if e.get("ph") == "M"}
    check({"streams", "stream s0", "stream s1", "core 0", "core 31", "CUBE"} <= names, "trace: lanes %s" % names)
    launches = [e for e in trace if e.get("pid") == 1 and e.get("name") == "matmul"]
    check(len(launches) == 2 and {e["tid"] for e in launches} == {0, 1}, "trace: a launch slice per stream")
    insns = [e for e in trace if e.get("ph") == "X" and e["pid"] >= 100]
    check(len(insns) > 1000, "trace: the cores' instructions")
    gz = os.path.join(tmp, "t.json.gz")
    rt(os.path.join(SCRIPTS, "chain.rt"), "--trace", gz)
    import gzip
    check(len(json.load(gzip.open(gz))["traceEvents"]) > 100 * 2, "trace: gzip")


def split_chip():
    """ascend910b (24 AIC, 2 AIV each, launch overhead 10900): an AIV kernel
    runs a block per AIV of its cores (4 cores: 8 units), a mix kernel an AIC
    with its two AIVs per block (4 blocks: 12 units), an AIC kernel on AICs."""
    j = rt_json(os.path.join(SCRIPTS, "split_chip.rt"), "--chip", "ascend910b")
    sm, at, mm = j["launches"]
    check(sm["units"] == 8 and sm["cores_used"] == "0-3", "split: softmax on the AIVs of cores 0-3: %s" % sm)
    check(at["units"] == 12 and at["cores_used"] == "4-7", "split: attention, 4 mix groups: %s" % at)
    check(mm["units"] == 12 and mm["cores_used"] == "12-23", "split: matmul on 12 AICs: %s" % mm)
    check(all(x["start"] == 10900 and x["check_passed"] for x in (sm, at, mm)), "split: all start at 10900, pass")
    check(j["cycles"] == max(x["end"] for x in (sm, at, mm)), "split: end to end")


def faults(tmp):
    """A launch that faults or deadlocks ends alone: its stream goes on, the
    other streams too; exit 1 with one line; the cycle limit stops them all."""
    fault, dead = os.path.join(ROOT, "tests", "cli", "fault.dvs"), os.path.join(ROOT, "tests", "cli", "deadlock.dvs")
    text = ("stream s0\nstream s1\nbuf a 65536 random\nbuf b 65536\n"
            "kernel s0 %s k blocks=2 cores=0-1\nkernel s0 %s copy a b 65536 cores=0\n"
            "kernel s1 %s k cores=5\nkernel s1 %s copy a b 65536 cores=6\n" % (fault, COPY, dead, COPY))
    path = write(tmp, "fault.rt", text)
    j = rt_json(path, rc=1)
    f, c0, d, c1 = j["launches"]
    check(f["outcome"] == "guest fault" and "past the end of UB" in f["message"], "fault: %s" % f)
    check(c0["outcome"] == "done" and c0["issue"] == f["end"], "fault: the stream goes on")
    # the deadlock is found when nothing else can happen: after s0's copy
    check(d["outcome"] == "deadlock" and d["end"] == c0["end"], "deadlock: %s" % d)
    check(c1["outcome"] == "done" and c1["issue"] == d["end"], "deadlock: the stream goes on")
    p = rt(path, rc=1)
    check(p.stderr.count("\n") == 1 and "guest fault" in p.stderr, "fault: one line: %r" % p.stderr)
    j = rt_json(path, "--max-cycles", "7000", rc=1)
    outs = [x["outcome"] for x in j["launches"]]
    check(outs == ["guest fault", "cycle limit", "cycle limit", "not run"], "limit: %s" % outs)
    check(all(x["end"] == 7000 for x in j["launches"][1:3]) and j["launches"][1]["start"] == 7000, "limit: cycles")


def bad_scripts(tmp):
    cases = [
        ("strm s0\n", 1, "unknown command"),
        ("stream s0\nop s9 matmul\n", 2, "no stream 's9'"),
        ("stream s0\nop s0 matmul M=0\n", 2, "out of range"),
        ("stream s0\nop s0 matmul Q=3\n", 2, "no parameter 'Q'"),
        ("stream s0\nop s0 nope\n", 2, "no operator 'nope'"),
        ("stream s0\nbuf a 10\nop s0 matmul M=64,N=64,K=64 a=a\n", 3, "smaller"),
        ("stream s0\nop s0 matmul cores=0-99\n", 2, "not on the chip"),
        ("stream s0\ncallback s0 sync\n", 2, "not sync"),
        ("stream s0\nstream s0\n", 2, "declared twice"),
        ("stream s0\nkernel s0 %s nokernel\n" % COPY, 2, "no kernel 'nokernel'"),
        ("stream s0\nkernel s0 %s copy zz blocks=2\n" % COPY, 2, "neither a number"),
        ("stream s0\nwait s0 e\n", 2, "no event 'e'"),
        ("# nothing\n", 0, "empty"),
    ]
    for text, line, what in cases:
        path = write(tmp, "bad.rt", text)
        p = rt(path, rc=65)
        check(p.stderr.count("\n") == 1 and what in p.stderr and (not line or ("bad.rt:%d:" % line) in p.stderr),
              "bad script %r: %r" % (text, p.stderr))
    rt(os.path.join(tmp, "missing.rt"), rc=66)
    rt(rc=64)
    rt(os.path.join(SCRIPTS, "chain.rt"), "--bogus", rc=64)


with tempfile.TemporaryDirectory() as tmp:
    two_branches(tmp)
    chain()
    event_wait(tmp)
    op_given(tmp, "ascend910", "matmul", "M=100,N=37,K=75", ["a", "b", "c"], ["c"])
    op_given(tmp, "ascend910b", "matmul", "M=64,N=48,K=1024,KS=4", ["a", "b", "c"], ["c"])
    op_given(tmp, "ascend910", "layernorm", "R=17,C=300", ["x", "gamma", "beta", "y"], ["y"])
    determinism(tmp)
    split_chip()
    faults(tmp)
    bad_scripts(tmp)

if failures:
    print("%d failures" % len(failures))
    sys.exit(1)
print("dvsim rt: every check passed")
