#!/usr/bin/env bash
# libacclab_omptarget.so rebuilt with other -foffload-options, beside the gpu build's own, so that
# one bundle can time the OpenMP target steps under each (LD_LIBRARY_PATH picks the library: the
# acclab binary finds it through RUNPATH, which LD_LIBRARY_PATH overrides). The build's own
# compile and link commands are replayed with the offload options replaced, objects and library
# written under OUT_DIR/LABEL/.
#
# usage: build-variants.sh BUILD_DIR OUT_DIR LABEL 'OFFLOAD OPTIONS' [LABEL 'OPTIONS' ...]
#   e.g. build-variants.sh build-gpu /tmp/omp-alt sm_70 '-misa=sm_70' o1 '-misa=sm_80 -O1'
set -euo pipefail
build=$(realpath "${1:?usage: build-variants.sh BUILD_DIR OUT_DIR LABEL OPTIONS ...}")
out=$(realpath -m "${2:?OUT_DIR}")
shift 2
base='-foffload-options=-misa=sm_80'
commands=$(cd "$build" && ninja -t commands acclab_omptarget |
  grep -E 'CMakeFiles/acclab_omptarget\.dir/|-o libacclab_omptarget\.so')
grep -qF -- "$base" <<< "$commands" || { echo "build-variants: $build does not use $base" >&2; exit 2; }
while (($# >= 2)); do
  label=$1 options=$2
  shift 2
  alt="$out/$label"
  mkdir -p "$alt"
  flags=""
  for o in $options; do flags+=" -foffload-options=$o"; done
  echo "$flags" > "$alt/offload-options.txt"
  # One command a line; objects and the library under $alt, dependency files dropped.
  sed -e "s|$base|$flags|g" -e 's|-MD -MT [^ ]* -MF [^ ]*||' \
    -e "s|CMakeFiles/acclab_omptarget\.dir/|$alt/obj/|g" \
    -e "s|-o libacclab_omptarget\.so|-o $alt/libacclab_omptarget.so|" <<< "$commands" > "$alt/commands.sh"
  grep -oE -- "-o $alt/obj/[^ ]*" "$alt/commands.sh" | sed "s|^-o ||" | xargs -n1 dirname | sort -u |
    xargs mkdir -p
  # Compiles in parallel, then the link (the last line).
  head -n -1 "$alt/commands.sh" | (cd "$build" && xargs -P "$(nproc)" -d '\n' -I{} bash -c '{}')
  (cd "$build" && bash -c "$(tail -n 1 "$alt/commands.sh")")
  echo "build-variants: $alt/libacclab_omptarget.so ($flags)"
done
