#!/usr/bin/env bash
# CUDA compiler launcher: keeps ptxas's resource report (-Xptxas -v: registers, shared memory,
# spills per kernel) of each .cu source in NOTES_DIR/<folder>/<stem>.ptxas.txt for acclab
# explain, and out of the build log.
# usage: capture-ptxas.sh NOTES_DIR compiler args...
notes_dir=$1
shift
source_file=
for arg in "$@"; do
  case $arg in *.cu) source_file=$arg ;; esac
done
report='^(ptxas info|[[:space:]]+[0-9]+ bytes stack frame)'
log=$(mktemp)
"$@" 2>"$log"
status=$?
if [[ -n $source_file ]]; then
  folder=$(basename "$(dirname "$source_file")")
  mkdir -p "$notes_dir/$folder"
  grep -E "$report" "$log" > "$notes_dir/$folder/$(basename "${source_file%.cu}").ptxas.txt"
fi
grep -vE "$report" "$log" >&2
rm -f "$log"
exit $status
