#!/bin/sh
# bench-ips.sh [DVSIM] - timing-only (--no-data) speed of every sample kernel
# and every operator at its default shape: simulated instructions (every pipe
# of every core) per CPU second of the simulation (host.sim_cpu_seconds; the
# whole process for a dvsim without it), the best of 3 runs; the
# 32-core matmul against the same work on one core. Prints a markdown table.
set -eu
dvsim=${1:-build/cli/dvsim}
S=kernels/samples
MB=1048576
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
ips() { # LABEL ARGS...: best of 3
    label=$1
    shift
    best=$(for i in 1 2 3; do
        /usr/bin/time -f "%U %S" -o "$tmp" "$dvsim" run "$@" --no-data --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
ins = sum(v["value"] for k, v in d.items() if k.startswith("core") and k.endswith(".instructions") and k.count(".") == 2)
cpu = d.get("host.sim_cpu_seconds", {}).get("value")
if cpu is None:  # a dvsim without host.* figures: the whole process
    u, s = open(sys.argv[1]).read().split()[-2:]
    cpu = float(u) + float(s)
print(ins / cpu if cpu else 0, ins, cpu)' "$tmp"
    done | sort -g | tail -1)
    set -- $best
    printf '| %s | %.0f | %.3g M/s | %.1f ns |\n' "$label" "$2" "$(echo "$1 / 1000000" | bc -l)" \
        "$(echo "1000000000 / $1" | bc -l)"
}
echo "| workload (timing only) | instructions | simulated instructions / CPU s | ns / instruction |"
echo "|---|---|---|---|"
ips "vadd_loop.dvs n=200000" $S/vadd_loop.dvs --arg n=200000
ips "mmad_loop.dvs n=200000" $S/mmad_loop.dvs --arg n=200000
ips "vadd.dvs n=16M" $S/vadd.dvs --gm x=zeros:$((32 * MB)) --gm y=zeros:$((32 * MB)) --gm z=zeros:$((32 * MB)) --arg n=$((16 * MB))
ips "copy_blocks.dvs 32 MiB, 8 blocks" $S/copy_blocks.dvs --blocks 8 --gm src=zeros:$((32 * MB)) --gm dst=zeros:$((32 * MB)) --arg per_block=$((4 * MB))
ips "copy_db.dvs 32 MiB, 8 blocks" $S/copy_db.dvs --blocks 8 --gm src=zeros:$((32 * MB)) --gm dst=zeros:$((32 * MB)) --arg per_block=$((4 * MB))
ips "reread.dvs 8 MiB x 4, 8 blocks" $S/reread.dvs --blocks 8 --gm src=zeros:$((8 * MB)) --arg per_block=$MB --arg passes=4
ips "pmu_loop.dvs n=200000" $S/pmu_loop.dvs --gm out=zeros:64 --arg n=200000
for op in $("$dvsim" ops | grep -E '^[a-z0-9_]+ - ' | cut -d' ' -f1); do
    chip=ascend910
    [ "$op" = attention ] && chip=ascend910b
    ips "$op (default shape, $chip)" "$op" --chip $chip
done
ips "matmul db 2048^3, 32 cores" matmul --shape M=2048,N=2048,K=2048 --chip ascend910
ips "matmul db 2048^3, 1 core" matmul --shape M=2048,N=2048,K=2048 --chip ascend910 --blocks 1
ips "mmad_loop.dvs n=2000, 32 blocks" $S/mmad_loop.dvs --arg n=2000 --blocks 32
ips "mmad_loop.dvs n=64000, 1 block (the same mmads)" $S/mmad_loop.dvs --arg n=64000 --blocks 1
