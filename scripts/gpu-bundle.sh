#!/usr/bin/env bash
# Packs the acclab binary with the shared libraries it needs that a GPU machine without
# GCC's offload toolchain lacks (libgomp and its nvptx plugin, fmt, ...) into one folder.
# On the GPU machine:  LD_LIBRARY_PATH=$PWD/bundle:/usr/local/cuda/lib64 ./bundle/acclab info --probe
# (cuBLAS is not carried: the GPU machine's CUDA toolkit provides it.)
#
# usage: scripts/gpu-bundle.sh [BUILD_DIR (default build-gpu, else build)] [OUT_DIR (default bundle)]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-}
if [[ -z $build ]]; then
  if [[ -x $root/build-gpu/apps/acclab/acclab ]]; then build=$root/build-gpu; else build=$root/build; fi
fi
out=${2:-$root/bundle}
binary=$build/apps/acclab/acclab
[[ -x $binary ]] || { echo "gpu-bundle: no acclab binary in $build (build it first)" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out"
cp "$binary" "$out/acclab"
[[ -d $build/notes ]] && cp -r "$build/notes" "$out/notes"

# The OpenMP target steps' libraries (libacclab_omptarget_<workload>.so, an offload image each)
# are found through the build's RUNPATH: one missing here would be missing in the bundle too.
missing=$(ldd "$binary" | awk '/not found/ {print $1}' | tr '\n' ' ')
[[ -z $missing ]] || { echo "gpu-bundle: $binary needs libraries not found: $missing" >&2; exit 2; }

# Libraries the binary links, less the C runtime every Linux has (a newer libstdc++ on the
# GPU machine serves an older binary).
ldd "$binary" | awk '/=> \// {print $3}' | while read -r lib; do
  case $(basename "$lib") in
    libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) ;;
    libcuda.so.*) ;;  # the driver belongs to the GPU machine
    libcublas.so.*|libcublasLt.so.*) ;;  # 0.5 GB: the GPU machine's CUDA toolkit has them
    libnccl.so.*) ;;  # 0.2 GB: likewise
    # Open MPI belongs to the machine: its mpirun, its libraries and their plugins go together
    # (the 4.1 series keeps one ABI, so a build against Debian's runs with the machine's).
    libmpi.so.*|libopen-rte.so.*|libopen-pal.so.*|libhwloc.so.*|libevent*|libudev.so.*|libz.so.*) ;;
    *) cp -L "$lib" "$out/" ;;
  esac
done
# libgomp loads its offload plugin by name at run time: ldd does not list it.
plugin=$( (/sbin/ldconfig -p || true) | awk '/libgomp-plugin-nvptx.so.1 / {print $NF; exit}')
[[ -n $plugin ]] || plugin=/usr/lib/x86_64-linux-gnu/libgomp-plugin-nvptx.so.1
cp -L "$plugin" "$out/"
echo "gpu-bundle: $(ls "$out" | tr '\n' ' ')"

# The git trees of the gated folders at this commit, for scripts/gpu-check.sh: the GPU machine
# has no history to read them from. A tree with uncommitted changes there is not a commit that
# the gate can name.
commit=$(git -C "$root" rev-parse HEAD)
# The build's own configuration (cmake/, the top CMakeLists.txt and presets: the offload flags)
# changes the GPU binary as much as the code does.
gated=(workloads src apps cmake CMakeLists.txt CMakePresets.json)
changes=$(git -C "$root" status --porcelain -- "${gated[@]}")
trees=""
for folder in "${gated[@]}"; do
  trees+="${trees:+, }\"$folder\": \"$(git -C "$root" rev-parse "HEAD:$folder")\""
done
printf '{"commit": "%s", "gated_folders_clean": %s, "trees": {%s}}\n' "$commit" \
  "$([[ -z $changes ]] && echo true || echo false)" "$trees" > "$out/PROVENANCE.json"
[[ -z $changes ]] || echo "gpu-bundle: uncommitted changes under ${gated[*]}: scripts/gpu-check.sh will refuse this bundle" >&2
