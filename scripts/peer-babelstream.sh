#!/usr/bin/env bash
# BabelStream's OpenMP model as the peer of acclab's OpenMP target steps (omp_target_*), built
# here with the compiler and offload flags acclab's own omptarget steps use, so that on the GPU
# machine the two differ only in their code. BabelStream's source is not part of acclab: bring a
# checkout (https://github.com/UoB-HPC/BabelStream) and name it:
#   BABELSTREAM_SRC=path/to/BabelStream scripts/peer-babelstream.sh [BUILD_DIR]
# writes BUILD_DIR/omp-stream (default peers/babelstream, ignored by git) and BUILD.txt beside
# it (the peer's commit, compiler, flags). Carry BUILD_DIR to the GPU machine with the bundle;
# scripts/bench-directive-models.sh runs it at vector's `large` size when it is there.
# BabelStream's OpenACC model does not compile with GCC 12 (its ACCStream.cpp reads members of
# a dependent base without this->), so only the OpenMP one is built.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${BABELSTREAM_SRC:?set BABELSTREAM_SRC to a BabelStream checkout}
out=${1:-peers/babelstream}
[[ -f $src/src/omp/OMPStream.cpp ]] || { echo "BABELSTREAM_SRC=$src: no src/omp/OMPStream.cpp" >&2; exit 2; }
cxx=${CXX:-g++-12}
# The flags cmake/AcclabBackends.cmake picks for ACCLAB_OMPTARGET_FLAGS where GCC's nvptx
# offload compiler is present.
# offload compiler is present; -no-pie as acclab's executables link (Debian's crtoffloadtable.o
# is not position independent).
flags=(-O3 -std=c++17 -fopenmp -foffload=nvptx-none -foffload-options=-misa=sm_80 -no-pie)
mkdir -p "$out"
"$cxx" "${flags[@]}" -DOMP -DOMP_TARGET_GPU -I"$src/src" -I"$src/src/omp" \
  "$src/src/main.cpp" "$src/src/omp/OMPStream.cpp" -o "$out/omp-stream.tmp"
mv "$out/omp-stream.tmp" "$out/omp-stream"
{
  echo "BabelStream $(git -C "$src" rev-parse HEAD 2>/dev/null || echo '(not a git checkout)'), OpenMP model"
  echo "$("$cxx" --version | head -1)"
  echo "$cxx ${flags[*]} -DOMP -DOMP_TARGET_GPU src/main.cpp src/omp/OMPStream.cpp"
} > "$out/BUILD.txt"
cat "$out/BUILD.txt"
