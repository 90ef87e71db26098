#!/usr/bin/env bash
# Which loop shapes GCC's nvptx OpenMP offload spreads over a warp's 32 lanes (SIMT): compiles a
# few forms of one 2D stencil with the project's offload flags, keeps the PTX mkoffload writes,
# and prints, per region, whether it reads %laneid (a SIMT loop) or not (one lane in 32 works).
# Needs the GCC offload compiler (this machine, not the GPU machine). Usage:
#   scripts/omp-simt-probe.sh [gcc]
set -euo pipefail
cc=${1:-gcc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/shapes.c" <<'C'
#define STENCIL(k) out[k] = 0.25f * (in[k - cols] + in[k + cols] + in[k - 1] + in[k + 1])
void collapse_simd(float *out, const float *in, int rows, int cols) {
  int n = rows * cols;
#pragma omp target teams distribute parallel for simd collapse(2) map(alloc: in[0:n], out[0:n])
  for (int i = 1; i < rows - 1; ++i)
    for (int j = 1; j < cols - 1; ++j) STENCIL(i * cols + j);
}
void collapse_loop(float *out, const float *in, int rows, int cols) {
  int n = rows * cols;
#pragma omp target teams loop collapse(2) map(alloc: in[0:n], out[0:n])
  for (int i = 1; i < rows - 1; ++i)
    for (int j = 1; j < cols - 1; ++j) STENCIL(i * cols + j);
}
void flat_simd(float *out, const float *in, int rows, int cols) {
  int n = rows * cols;
#pragma omp target teams distribute parallel for simd map(alloc: in[0:n], out[0:n])
  for (int k = cols; k < n - cols; ++k)
    if (k % cols != 0 && k % cols != cols - 1) STENCIL(k);
}
void rows_inner_simd(float *out, const float *in, int rows, int cols) {
  int n = rows * cols;
#pragma omp target teams distribute parallel for map(alloc: in[0:n], out[0:n])
  for (int i = 1; i < rows - 1; ++i) {
#pragma omp simd
    for (int j = 1; j < cols - 1; ++j) STENCIL(i * cols + j);
  }
}
void rows_loop_inner_simd(float *out, const float *in, int rows, int cols) {
  int n = rows * cols;
#pragma omp target teams loop map(alloc: in[0:n], out[0:n])
  for (int i = 1; i < rows - 1; ++i) {
#pragma omp simd
    for (int j = 1; j < cols - 1; ++j) STENCIL(i * cols + j);
  }
}
int main(void) { return 0; }
C
(cd "$dir" && "$cc" -O3 -fopenmp -foffload=nvptx-none -foffload-options=-misa=sm_80 -save-temps \
  shapes.c -o shapes 2>/dev/null)
# Each region's outlined functions are named <function>$_omp_fn$<n>; a SIMT loop reads %laneid.
grep -a -E 'BEGIN FUNCTION DEF: .*_omp_fn|%laneid' "$dir"/shapes.xnvptx-none.mkoffload \
  | awk '/BEGIN FUNCTION DEF/ {split($5, part, "$"); fn = part[1]; if (!(fn in simt)) simt[fn] = 0; next}
         fn != "" {simt[fn] = 1}
         END {for (f in simt) printf "%-22s %s\n", f, simt[f] ? "SIMT (32 lanes)" : "no SIMT (one lane a warp)"}' \
  | sort
