#!/bin/sh
# out_dir.sh DVSIM KERNEL OUTDIR - with --sanitize and --out, the findings go
# to OUTDIR/sanitizer.json (the object --json prints as "sanitizer") and
# stats.json stays the model's figures alone; without --sanitize there is no
# sanitizer.json.
set -u
D=$1 K=$2 OUT=$3
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
"$D" run "$K" --sanitize --gm x=random:f16:4096:1 --gm z=zeros:8192 --out "$OUT/on" >"$OUT/on.txt" 2>&1
[ $? -eq 1 ] || { cat "$OUT/on.txt"; echo "FAIL: a finding must exit 1"; exit 1; }
python3 - "$OUT/on" <<'PY' || exit 1
import json, sys
san = json.load(open(sys.argv[1] + "/sanitizer.json"))
stats = json.load(open(sys.argv[1] + "/stats.json"))
assert san["summary"]["race"] == 1 and san["summary"]["findings"] == 1, san["summary"]
assert san["findings"][0]["check"] == "race", san["findings"][0]
assert "sanitizer" not in stats and "chip.cycles" in stats
PY
"$D" run "$K" --gm x=random:f16:4096:1 --gm z=zeros:8192 --out "$OUT/off" >"$OUT/off.txt" 2>&1
[ -e "$OUT/off/sanitizer.json" ] && { echo "FAIL: sanitizer.json without --sanitize"; exit 1; }
[ -s "$OUT/off/stats.json" ] || { echo "FAIL: no stats.json"; exit 1; }
echo "sanitizer out dir ok"
