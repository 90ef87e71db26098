#!/usr/bin/env bash
# The MPI steps' device-share check on one H200 (docs/apsp.md, "Device memory"): a program
# holds all but 2 GiB of the GPU, then mpi_acc and mpi_cuda are given shares that do not fit
# (expected: one line, exit 2, before anything is allocated) and one that does (exit 0).
# Run from the repository root on the GPU machine with the bundle extracted; OUT=folder.
set -u
out=${OUT:-.}/share; mkdir -p "$out"
acclab=bundle/acclab
cat > /tmp/hog.cu <<'CU'
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
// Holds all but argv[1] MiB of GPU 0's free memory until killed.
int main(int, char** argv) {
  const size_t keep = std::strtoull(argv[1], nullptr, 10) << 20;
  size_t free_bytes = 0, total = 0;
  cudaMemGetInfo(&free_bytes, &total);
  void* p = nullptr;
  if (cudaMalloc(&p, free_bytes - keep) != cudaSuccess) return 1;
  std::printf("hog: holding %.2f GiB, %zu MiB left\n", (free_bytes - keep) / 1073741824.0, keep >> 20);
  std::fflush(stdout);
  pause();
}
CU
nvcc -o /tmp/hog /tmp/hog.cu || exit 1
/tmp/hog 2048 > "$out/hog.txt" & hog=$!
sleep 5; cat "$out/hog.txt"
mpi=(mpirun --allow-run-as-root -q --bind-to none)
cases=(
  "refused_acc_30000|$acclab apsp --seed-graph 30000 --variant mpi_acc"
  "refused_cuda_30000|$acclab apsp --seed-graph 30000 --variant mpi_cuda"
  "refused_acc_np2_24000|${mpi[*]} -np 2 $acclab apsp --seed-graph 24000 --variant mpi_acc"
  "refused_cuda_np2_24000|${mpi[*]} -np 2 $acclab apsp --seed-graph 24000 --variant mpi_cuda"
  "fits_acc_12000|$acclab apsp --seed-graph 12000 --variant mpi_acc"
  "fits_acc_np2_12000|${mpi[*]} -np 2 $acclab apsp --seed-graph 12000 --variant mpi_acc"
)
for c in "${cases[@]}"; do
  name=${c%%|*} cmd=${c#*|}
  echo "$name: $cmd" >> "$out/commands.txt"
  $cmd > "$out/$name.out" 2> "$out/$name.err"
  echo "== $name: exit $?"; head -3 "$out/$name.out"; cat "$out/$name.err"
done
kill $hog; wait $hog 2>/dev/null
