#!/bin/sh
# roundtrip.sh DVSIM SOURCE WORKDIR - assemble, disassemble, reassemble, and
# check that the second object's listing (hence its .text and .data bytes)
# equals the first one's.
set -eu
dvsim=$1 src=$2 work=$3
mkdir -p "$work"
"$dvsim" asm "$src" -o "$work/a.elf"
"$dvsim" disasm "$work/a.elf" -o "$work/a.dvs"
"$dvsim" asm "$work/a.dvs" -o "$work/b.elf"
"$dvsim" disasm --no-source "$work/a.elf" | tail -n +2 > "$work/a.lst"
"$dvsim" disasm --no-source "$work/b.elf" | tail -n +2 > "$work/b.lst"
cmp "$work/a.lst" "$work/b.lst"
echo "round trip of $src: identical"
