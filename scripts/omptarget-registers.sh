#!/usr/bin/env bash
# The registers a lane of each OpenMP target entry needs on a GPU, worked out here without one: an
# offload image's PTX as GCC's mkoffload leaves it (every module nvptx-ld put in it, libgomp's and
# libgcc's device runtime included), each module compiled by CUDA's ptxas for the GPU's
# architecture and all of them linked by nvlink, as libgomp's nvptx plugin has the driver do at
# run time (cuLinkAddData of each module, then cuLinkComplete). An entry's count is the most that
# any function it may reach needs, and libgomp's device runtime reaches `parallel` bodies through
# function pointers: every entry of an image may reach every such body of the image. libgomp runs
# `thread_limit` warps a team only while 32 x warps x registers <= 65536.
#
# usage: scripts/omptarget-registers.sh [--build DIR] [--arch ARCH] [--functions] IMAGE...
#   IMAGE  a shared library or executable the Ninja build in DIR (default build) links, e.g.
#          libacclab_omptarget.so: its link command is run again into a temporary folder with
#          -save-temps, which keeps mkoffload's PTX; or such PTX itself (*.xnvptx-none.mkoffload).
#   --arch        the GPU's architecture (default sm_90)
#   --functions   also each function's own registers (ptxas alone, before the link), the heaviest
#                 first: which body sets the image's count
# Prints, for each image, a line "# IMAGE: ..." and then "REGISTERS ENTRY" a line, demangled.
# KEEP=1 leaves the PTX, objects and reports in the temporary folder it names.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
arch=sm_90
functions=0
images=()
while (($#)); do
  case $1 in
    --build) build=$(realpath "$2"); shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --functions) functions=1; shift ;;
    -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) images+=("$1"); shift ;;
  esac
done
((${#images[@]})) || { echo "usage: scripts/omptarget-registers.sh [--build DIR] [--arch ARCH] [--functions] IMAGE..." >&2; exit 2; }
cuda_bin=$(dirname "$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)")
ptxas=$cuda_bin/ptxas
nvlink=$cuda_bin/nvlink
[[ -x $ptxas && -x $nvlink ]] ||
  { echo "omptarget-registers: no ptxas and nvlink (CUDA toolkit) here" >&2; exit 3; }

work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] && echo "omptarget-registers: kept $work" >&2 || rm -rf "$work"' EXIT

# mkoffload's PTX of IMAGE, linked again where IMAGE is the build's.
offload_ptx() {
  local image=$1 out=$2
  if [[ -f $image ]] && head -c 4096 "$image" | tr -d '\000' | grep -q '^// BEGIN PREAMBLE'; then
    echo "$image"
    return
  fi
  local name command
  [[ -e $image ]] && image=$(realpath "$image")
  name=${image#"$build"/}
  command=$(cd "$build" && ninja -t commands "$name" | tail -1) || true
  [[ $command == *-foffload=nvptx* ]] ||
    { echo "omptarget-registers: $build links no offload image $name" >&2; return 1; }
  # The build's own link, writing here, keeping GCC's temporary files beside its output.
  command=$(sed -e 's|^: && ||' -e 's| && :$||' -e "s| -o [^ ]* | -o $out/image |" <<< "$command")
  (cd "$build" && eval "$command -foffload-options=-save-temps -save-temps" > "$out/link.txt" 2>&1) ||
    { echo "omptarget-registers: the link of $name failed:" >&2; tail -5 "$out/link.txt" >&2; return 1; }
  [[ -f $out/image.xnvptx-none.mkoffload ]] ||
    { echo "omptarget-registers: GCC left no offload PTX for $name" >&2; return 1; }
  echo "$out/image.xnvptx-none.mkoffload"
}

# The register count of each function of a relocatable cubin (EIATTR_REGCOUNT in .nv.info).
regcounts() {
  python3 - "$@" << 'EOF'
import struct, sys
for path in sys.argv[1:]:
    data = open(path, 'rb').read()
    shoff = struct.unpack_from('<Q', data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    secs = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
    cstr = lambda o: data[o:data.index(b'\0', o)].decode()
    names = secs[shstrndx][4]
    symtab = next(s for s in secs if s[1] == 2)
    strings = secs[symtab[6]][4]
    symbol = lambda i: cstr(strings + struct.unpack_from('<I', data, symtab[4] + i * 24)[0])
    for s in secs:
        if cstr(names + s[0]) != '.nv.info':
            continue
        p, end = s[4], s[4] + s[5]
        while p < end:
            form, attribute, size = struct.unpack_from('<BBH', data, p)
            if form != 4:  # EIFMT_SVAL carries a size; the other forms are 4 bytes
                p += 4
                continue
            if attribute == 0x2f:  # EIATTR_REGCOUNT: symbol index, registers
                index, registers = struct.unpack_from('<II', data, p + 4)
                print(registers, symbol(index))
            p += 4 + size
EOF
}

# "NAME$_omp_fn$N" demangled as "name $_omp_fn$N".
demangle() {
  sed -E 's/\$(_omp_fn|_omp_cpyfn)\$/ $\1$/' | c++filt |
    sed 's/std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >/std::string/g'
}

status=0
for image in "${images[@]}"; do
  dir=$work/$(basename "$image")
  mkdir -p "$dir/parts"
  ptx=$(offload_ptx "$image" "$dir") || { status=1; continue; }
  # nvptx-ld joins the modules, each from its "// BEGIN PREAMBLE", with NUL bytes between them.
  tr -d '\000' < "$ptx" |
    awk -v dir="$dir/parts" '/^\/\/ BEGIN PREAMBLE/ {f = sprintf("%s/m%04d.ptx", dir, ++n)} f {print > f}'
  modules=("$dir"/parts/*.ptx)
  if ! printf '%s\n' "${modules[@]}" | xargs -P "$(nproc)" -I{} sh -c \
      '"$1" -c -arch="$2" "$3" -o "${3%.ptx}.o" > "${3%.ptx}.ptxas.txt" 2>&1' _ "$ptxas" "$arch" {}; then
    echo "omptarget-registers: ptxas refused a module of $image:" >&2
    cat "$dir"/parts/*.ptxas.txt | grep -m 5 -i error >&2
    status=1
    continue
  fi
  if ! "$nvlink" -arch="$arch" -v "$dir"/parts/*.o -o "$dir/image.cubin" > "$dir/nvlink.txt" 2>&1; then
    echo "omptarget-registers: nvlink failed on $image:" >&2
    grep -m 5 -i error "$dir/nvlink.txt" >&2
    status=1
    continue
  fi
  entries=$(awk '/Function properties for/ {name = $NF; gsub(/[\047:]/, "", name)}
                 /used [0-9]+ registers/ {for (i = 1; i <= NF; i++) if ($i == "used" && $(i + 2) ~ /^registers/) print $(i + 1), name}' \
              "$dir/nvlink.txt")
  echo "# $image: ${#modules[@]} PTX modules, $(grep -c . <<< "$entries") entries, linked for $arch"
  sort -k1,1nr -k2 <<< "$entries" | demangle
  if ((functions)); then
    echo "# $image: each function's own registers, before the link"
    regcounts "$dir"/parts/*.o | sort -k1,1nr -k2 | demangle | sed 's/^/  /'
  fi
done
exit $status
