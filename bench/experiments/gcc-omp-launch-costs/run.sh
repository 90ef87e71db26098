#!/usr/bin/env bash
# On the GPU machine, from the repository root, after build.sh's folder was carried:
#   OUT=folder bash bench/experiments/gcc-omp-launch-costs/run.sh [BUNDLE_DIR (default bundle-launch)]
# Writes launch_costs.csv (30 launches a case), gomp_debug.txt (libgomp's launch lines, the
# shapes it chose) and, where nsys is there, the CUDA API calls of two shapes (under the cache
# limit and over it: a cuMemFree and cuMemAlloc a launch expected over it only).
set -u
bundle=${1:-bundle-launch}
out=${OUT:?OUT names the folder for the results}
export LD_LIBRARY_PATH=$PWD/$bundle:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L > "$out/gpu.txt"
cp "$bundle/BUILD.txt" "$out/"
timeout 300 "$bundle/omp_launch_costs" 30 > "$out/launch_costs.csv" 2> "$out/stderr.txt"
echo "probe: exit $?" >> "$out/stderr.txt"
GOMP_DEBUG=1 timeout 120 "$bundle/omp_launch_costs" 1 2>&1 > /dev/null |
  grep -E 'GOMP_OFFLOAD_run: kernel .*: launch' | sort | uniq -c > "$out/gomp_debug.txt"
if command -v nsys > /dev/null; then
  timeout 200 nsys profile -t cuda,osrt -o "$out/launch" --force-overwrite true \
    "$bundle/omp_launch_costs" 10 > /dev/null 2>&1
  nsys stats -r cuda_api_sum,cuda_gpu_kern_sum "$out/launch.nsys-rep" > "$out/nsys_stats.txt" 2>&1
  rm -f "$out/launch.sqlite"
fi
