#!/usr/bin/env bash
# The registers a lane of each OpenACC compute construct of one source file needs on a GPU,
# worked out here without one: the file compiled as the build compiles it, its offload PTX kept
# from GCC's mkoffload, and CUDA's ptxas run on it for the GPU's architecture (what the driver's
# JIT does at run time; it agreed with ncu on the H200 each time: 56, 72, 85 and 96 registers,
# bench/results/h200/apsp/NOTES.md). Gangs
# that must all be resident at once (kit/acc_grid_barrier.hpp) fit a multiprocessor only while
# gangs x threads x registers <= 65536. OpenACC only: GCC's OpenMP target regions call into
# libgomp's device runtime, which is linked in only at run time.
#
# usage: scripts/acc-registers.sh SOURCE [BUILD_DIR (default build-gpu)] [ARCH (default sm_90)]
#   e.g. scripts/acc-registers.sh workloads/apsp/acc_optimize_resident.cpp
# KEEP=1 leaves the object, the PTX and ptxas's report in the temporary folder it names.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source=$(realpath "${1:?usage: scripts/acc-registers.sh SOURCE [BUILD_DIR] [ARCH]}")
build=$(realpath "${2:-$root/build-gpu}")
arch=${3:-sm_90}
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
[[ -x $ptxas ]] || { echo "acc-registers: no ptxas (CUDA toolkit) here" >&2; exit 2; }
command=$(cd "$build" && ninja -t commands | grep -F -- "-c $source" | head -1) || true
[[ -n $command ]] || { echo "acc-registers: $build does not compile $source" >&2; exit 2; }
work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] && echo "acc-registers: kept $work" >&2 || rm -rf "$work"' EXIT
# The build's own command, writing its object here, without the notes and dependency files.
command=$(sed -e 's|^[^ ]*truncate-notes.sh ||' -e 's|-fopt-info-[^ ]*||g' \
  -e 's|-MD -MT [^ ]* -MF [^ ]*||' -e "s|-o [^ ]*\\.o |-o $work/unit.o |" <<< "$command")
(cd "$build" && eval "$command")
# Linking the object runs mkoffload, which -save-temps leaves behind as PTX; the host link
# itself may fail (the rest of the program is missing) and does not matter.
offload=$(grep -oE -- '-foffload(-options)?=[^ ]*' <<< "$command" | tr '\n' ' ')
grep -q -- -fopenacc <<< "$command" ||
  { echo "acc-registers: $source is not compiled with -fopenacc (OpenACC only)" >&2; exit 2; }
(cd "$work" && g++ -shared -O3 -fopenacc $offload -foffload-options=-save-temps -save-temps \
  unit.o -o unit.so > /dev/null 2>&1) || true
ptx=$(ls "$work"/*.mkoffload.s 2>/dev/null | head -1)
[[ -n $ptx ]] || { echo "acc-registers: GCC left no offload PTX for $source" >&2; exit 1; }
# mkoffload defines its shared buffers (__oacc_bcast, __vector_red, ...) at the end of the
# module; ptxas wants them before their first use.
grep '^\.shared ' "$ptx" > "$work/shared.ptx" || true
grep -v '^\.shared ' "$ptx" |
  awk -v defs="$work/shared.ptx" '{print} /^\/\/ END PREAMBLE/ {while ((getline d < defs) > 0) print d}' \
  > "$work/unit.ptx"
if ! "$ptxas" -arch="$arch" -c -v "$work/unit.ptx" -o "$work/unit.cubin" > "$work/ptxas.txt" 2>&1; then
  echo "acc-registers: ptxas refused GCC's PTX for $source:" >&2
  grep -m 5 error "$work/ptxas.txt" >&2
  exit 1
fi
awk '/Compiling entry function/ {name = $7; gsub(/[\047]/, "", name); sub(/\$_omp_fn\$.*/, "", name)}
     /Used [0-9]+ registers/ {for (i = 1; i <= NF; i++) if ($i == "Used") print $(i + 1), name}' \
  "$work/ptxas.txt" | c++filt
