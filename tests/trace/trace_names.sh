#!/bin/sh
# trace_names.sh DVSIM TRACE_CHECK DIR - the strings of a trace are escaped:
# a kernel whose file name holds a quote, a backslash, a tab, a control
# byte, a byte that is not UTF-8 and a UTF-8 letter gives a trace that is
# valid JSON for a strict reader (Python's, which rejects bad UTF-8), with
# that name in the instructions' source lines and in the run's title
# (the bad byte as U+FFFD).
set -u
D=$1 TC=$2 DIR=$3
rm -rf "$DIR" && mkdir -p "$DIR" || exit 1
srcroot=$(cd "$(dirname "$0")/../.." && pwd)
name=$(printf 'k "q" \\ b\tt\001\377\303\251.dvs')
cp "$srcroot/kernels/samples/vadd.dvs" "$DIR/$name" || exit 1
"$D" run "$DIR/$name" --gm x=random:f16:32768:1 --gm y=random:f16:32768:2 --gm z=zeros:65536 \
    --arg n=32768 --trace "$DIR/names.json.gz" --out "$DIR/names" >"$DIR/out.txt" 2>&1 ||
    { cat "$DIR/out.txt"; echo "FAIL: dvsim run"; exit 1; }
"$TC" "$DIR/names.json.gz" --stats "$DIR/names/stats.json" --stop "done" || exit 1
python3 - "$DIR/names.json.gz" "$DIR/$name" <<'EOF' || exit 1
import gzip, json, os, sys
doc = json.loads(gzip.open(sys.argv[1]).read().decode("utf-8"))  # strict UTF-8
want = os.fsencode(sys.argv[2]).decode("utf-8", "replace")
sources = {e["args"]["source"] for e in doc["traceEvents"] if e.get("ph") == "X" and "source" in e.get("args", {})}
if not any(s.startswith(want + ":") for s in sources):
    sys.exit("FAIL: no slice has the source %r (got %r)" % (want, sorted(sources)[:3]))
if want not in doc["otherData"]["run"]:
    sys.exit("FAIL: the title %r lacks %r" % (doc["otherData"]["run"], want))
print("trace-names: ok")
EOF
