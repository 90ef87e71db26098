#!/usr/bin/env bash
# The OpenMP target libraries (libacclab_omptarget_<workload>.so, an offload image each) rebuilt
# with other -foffload-options, beside the gpu build's own, so that one bundle can time the OpenMP
# target steps under each (LD_LIBRARY_PATH picks the libraries: the acclab binary finds them
# through RUNPATH, which LD_LIBRARY_PATH overrides). The build's own
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
libraries=$(cd "$build" && ninja -t targets all |
  sed -nE 's|^(libacclab_omptarget_[a-z0-9_]*\.so):.*|\1|p' | sort -u)
[[ -n $libraries ]] || { echo "build-variants: $build builds no libacclab_omptarget_*.so" >&2; exit 2; }
# shellcheck disable=SC2086  # one target a word
commands=$(cd "$build" && ninja -t commands $libraries |
  grep -E 'CMakeFiles/acclab_omptarget_[a-z0-9_]*\.dir/' | awk '!seen[$0]++')
grep -qF -- "$base" <<< "$commands" || { echo "build-variants: $build does not use $base" >&2; exit 2; }
while (($# >= 2)); do
  label=$1 options=$2
  shift 2
  alt="$out/$label"
  mkdir -p "$alt"
  flags=""
  for o in $options; do flags+=" -foffload-options=$o"; done
  echo "$flags" > "$alt/offload-options.txt"
  # One command a line; objects and the libraries under $alt, dependency files and the compiler
  # notes (the build's own, for acclab explain) dropped.
  sed -E -e "s|$base|$flags|g" -e 's|-MD -MT [^ ]* -MF [^ ]*||' \
    -e 's|^[^ ]*truncate-notes\.sh ||' -e 's|-fopt-info-[^ ]*||g' \
    -e "s|[^ ]*CMakeFiles/(acclab_omptarget_[a-z0-9_]*)\.dir/|$alt/obj/\1/|g" \
    -e "s|-o (libacclab_omptarget_[a-z0-9_]*\.so)|-o $alt/\1|" <<< "$commands" > "$alt/commands.sh"
  grep -oE -- "-o $alt/obj/[^ ]*" "$alt/commands.sh" | sed "s|^-o ||" | xargs -n1 dirname | sort -u |
    xargs mkdir -p
  # Compiles in parallel, then the links.
  grep -v -- ' -shared ' "$alt/commands.sh" | (cd "$build" && xargs -P "$(nproc)" -d '\n' -I{} bash -c '{}')
  grep -- ' -shared ' "$alt/commands.sh" | (cd "$build" && xargs -P "$(nproc)" -d '\n' -I{} bash -c '{}')
  echo "build-variants: $alt/libacclab_omptarget_*.so ($flags)"
done
