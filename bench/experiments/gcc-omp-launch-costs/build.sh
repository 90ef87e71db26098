#!/usr/bin/env bash
# Builds the probe with GCC's nvptx offload compiler (this machine, not the GPU machine) and packs
# it with libgomp and its nvptx plugin, which the GPU machine lacks, into OUT_DIR (default
# bundle-launch/ at the repository root, ignored by git: carry it to the GPU machine).
# usage: build.sh [OUT_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/bundle-launch}
mkdir -p "$out"
g++ -std=c++20 -O2 -fopenmp -foffload=nvptx-none -foffload-options=-misa=sm_80 \
  "$here/omp_launch_costs.cpp" -o "$out/omp_launch_costs"
cp -L "$(g++ -print-file-name=libgomp.so.1)" "$out/"
plugin=$( (/sbin/ldconfig -p || true) | awk '/libgomp-plugin-nvptx.so.1 / {print $NF; exit}')
cp -L "${plugin:-/usr/lib/x86_64-linux-gnu/libgomp-plugin-nvptx.so.1}" "$out/"
g++ --version | head -1 > "$out/BUILD.txt"
git -C "$root" rev-parse HEAD >> "$out/BUILD.txt"
echo "build.sh: $out: $(ls "$out" | tr '\n' ' ')"
