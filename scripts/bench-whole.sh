#!/bin/sh
# bench-whole.sh [DVSIM] [SIZES] - the table of issue 21: CPU seconds (user +
# sys, every thread, median of 3) of a whole `dvsim run matmul --variant db
# --blocks 1 --shape M=N=K=S`, of its simulation and its reference check
# (the run's host.* figures), of the same with the plain reference
# (DVSIM_REFERENCE=plain; skipped above 2048: a minute and more), and of the
# timing-only run; with peak RSS against the simulated state in use (GM
# tensors plus the core's buffers; the chip is ascend910). Prints a markdown
# table.
set -eu
dvsim=${1:-build/cli/dvsim}
sizes=${2:-"1024 2048 4096"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one run: prints "cpu_total sim_cpu check_cpu rss_kb"
one() {
    env "$@" > "$tmp/out.json" 2> "$tmp/time" || { cat "$tmp/time" >&2; exit 1; }
    python3 - "$tmp/out.json" "$tmp/time" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
u, s, rss = open(sys.argv[2]).read().split()[-3:]
g = lambda k: d.get(k, {}).get('value', 0)
print(float(u) + float(s), g('host.sim_cpu_seconds'), g('host.check_cpu_seconds'), rss)
PY
}

median() { sort -n | sed -n 2p; }

echo "| shape | whole run CPU s | simulation | check | whole, plain check | timing-only whole | peak RSS MiB | simulated state MiB |"
echo "|---|---|---|---|---|---|---|---|"
for n in $sizes; do
    shape="M=$n,N=$n,K=$n"
    run="$dvsim run matmul --chip ascend910 --variant db --blocks 1 --shape $shape --json"
    : > "$tmp/full"; : > "$tmp/nd"; : > "$tmp/plain"
    for i in 1 2 3; do
        one /usr/bin/time -f "%U %S %M" $run >> "$tmp/full"
        one /usr/bin/time -f "%U %S %M" $run --no-data >> "$tmp/nd"
    done
    if [ "$n" -le 2048 ]; then
        for i in 1 2 3; do one DVSIM_REFERENCE=plain /usr/bin/time -f "%U %S %M" $run >> "$tmp/plain"; done
        plain=$(printf '%.3f' "$(cut -d' ' -f1 "$tmp/plain" | median)")
    else
        plain="-"
    fi
    whole=$(cut -d' ' -f1 "$tmp/full" | median)
    sim=$(cut -d' ' -f2 "$tmp/full" | median)
    chk=$(cut -d' ' -f3 "$tmp/full" | median)
    rss=$(cut -d' ' -f4 "$tmp/full" | median)
    nd=$(cut -d' ' -f1 "$tmp/nd" | median)
    # simulated state in use: A, B, C in f16 in GM and the core's L1, L0A,
    # L0B, L0C and UB (ascend910: 1 MiB, 64, 64, 256, 256 KiB)
    state=$(python3 -c "n=$n; gm=3*n*n*2; print(round((gm+(1<<20)+(64<<10)*2+(256<<10)*2)/2**20,1))")
    printf '| %s^3 | %.3f | %.3f | %.3f | %s | %.3f | %.0f | %s |\n' "$n" "$whole" "$sim" "$chk" "$plain" "$nd" \
        "$(echo "$rss / 1024" | bc -l)" "$state"
done
