#!/bin/sh
# ladder.sh - the matmul optimisation ladder as a table: for each variant,
# the cycles, Cube utilisation and MTE2 (GM -> L1) bandwidth, and how long
# the simulator took (host seconds, simulated MACs per host second).
#   scripts/ladder.sh [CHIP] [SHAPE] [dvsim run options...]
# e.g. scripts/ladder.sh ascend910b M=1024,N=1024,K=1024 --blocks 1
set -eu
D=${DVSIM:-./build/cli/dvsim}
chip=${1:-ascend910}
shape=${2:-M=1024,N=1024,K=1024}
[ $# -ge 2 ] && shift 2 || shift $#
printf '%-10s %12s %8s %10s %9s %14s\n' variant cycles cube% "MTE2 GB/s" "host s" "sim MAC/s"
for v in naive tiled pipelined db; do
    out=$(mktemp)
    start=$(date +%s.%N)
    "$D" run matmul --chip "$chip" --variant "$v" --shape "$shape" "$@" --json > "$out"
    end=$(date +%s.%N)
    # The figures from the statistics (a JSON object of {"value", "unit",
    # "desc"} objects), read with a JSON parser rather than by their layout:
    # chip.cycles, the mean Cube utilisation, and the sums over the cores of
    # the MACs and of the GM -> L1 bandwidth.
    read -r cycles cube macs gm <<EOF
$(python3 -c '
import json, re, sys
s = json.load(open(sys.argv[1]))
def total(pattern):
    return sum(v["value"] for k, v in s.items() if re.fullmatch(pattern, k))
print("%d %.6f %d %.6f" % (s["chip.cycles"]["value"], s["chip.cube.utilisation_avg_pct"]["value"],
      total(r"core[0-9]+\.cube\.macs"), total(r"core[0-9]+\.path\.gm_to_l1\.gbps")))
' "$out")
EOF
    secs=$(echo "$end - $start" | bc -l)
    printf '%-10s %12s %7.1f%% %10.1f %9.2f %14.3g\n' "$v" "$cycles" "$cube" "$gm" "$secs" \
        "$(echo "$macs / $secs" | bc -l)"
    rm -f "$out"
done
