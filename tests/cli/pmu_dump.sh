#!/bin/sh
# pmu_dump.sh DVSIM SOURCE WORKDIR - a sampled run, then dvsim pmu-dump of
# its samples: --json is one JSON document whose records are those of the
# CSV, row for row.
set -eu
dvsim=$1 src=$2 work=$3
rm -rf "$work"
"$dvsim" run "$src" --gm out=zeros:64 --arg n=40 --pmu cube.fractals,cycles --pmu-period 100 --out "$work" \
    > /dev/null
"$dvsim" pmu-dump "$work/pmu.samples.gz" --json > "$work/samples.json"
"$dvsim" pmu-dump "$work/pmu.samples.gz" --csv > "$work/samples.csv"
for fmt in --json --csv; do  # a failed write to stdout is an I/O error
    rc=0
    "$dvsim" pmu-dump "$work/pmu.samples.gz" $fmt > /dev/full 2> "$work/full.err" || rc=$?
    [ "$rc" = 74 ] || { cat "$work/full.err"; echo "FAIL: pmu-dump $fmt to a full disk exits $rc, not 74"; exit 1; }
done
python3 - "$work/samples.json" "$work/samples.csv" <<'PY'
import csv, json, sys
doc = json.load(open(sys.argv[1]))
rows = list(csv.reader(open(sys.argv[2])))
assert rows[0] == ["cycle", "core"] + doc["events"], (rows[0], doc["events"])
assert doc["events"] == ["cube.fractals", "cycles"], doc["events"]
got = [[str(r["cycle"]), str(r["core"])] + [str(v) for v in r["values"]] for r in doc["records"]]
assert got == rows[1:] and len(got) > 0, "the JSON records differ from the CSV rows"
print("pmu-dump: %d records, the same as JSON and CSV" % len(got))
PY
