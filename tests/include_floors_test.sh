#!/usr/bin/env bash
# The include rules of docs/architecture.md ("What may include what"), checked on the source:
# the harness (src/core) never includes the device kit, the readers, a workload or the command
# line; the kit never a reader, a workload or the command line; a workload never another
# workload or the command line; the command line, of the workloads, only the two file solvers.
# usage: include_floors_test.sh SOURCE_DIR
set -u
root=${1:?usage: include_floors_test.sh SOURCE_DIR}
cd "$root" || exit 1
failures=0
# expect_no_hits RULE HITS: ok where HITS (the offending #include lines) is empty, else FAILED
# with them.
expect_no_hits() {
  if [[ -n $2 ]]; then
    echo "FAILED: $1:"
    echo "$2"
    failures=$((failures + 1))
  else
    echo "ok: $1"
  fi
}
forbid() {  # forbid FOLDER REGEX WHY: no #include in FOLDER matches REGEX
  expect_no_hits "$3" "$(grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"($2)" "$1" \
    --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.in')"
}
[[ -d src/core && -d src/kit && -d src/io && -d workloads && -d apps ]] || {
  echo "FAILED: not the acclab source tree: $root"
  exit 1
}
workloads=$(find workloads -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | paste -sd'|')
forbid src/core "kit/|io/|workloads/|apps/|$workloads/" "src/core includes only src/core"
forbid src/kit "io/|workloads/|apps/|$workloads/" "src/kit includes src/kit and src/core only"
forbid src/io "kit/|workloads/|apps/|$workloads/" "src/io includes no kit, workload or app"
# Of the harness, src/io needs only the error type, the atomic output file and the enum name
# tables (a header of the standard library's alone).
expect_no_hits "src/io includes, of src/core, only error.hpp, atomic_file.hpp and enum_names.hpp" \
  "$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"core/' src/io |
    grep -vE '"core/(error|atomic_file|enum_names)\.hpp"')"
for w in ${workloads//|/ }; do
  others=$(paste -sd'|' <<< "$(tr '|' '\n' <<< "$workloads" | grep -vx "$w")")
  forbid "workloads/$w" "apps/|($others)/|workloads/($others)/" \
    "workloads/$w includes no other workload and no app"
done
# apps/: of the workloads only the file solvers; never the kit a step is written with.
header='^[[:space:]]*#[[:space:]]*include[[:space:]]*"(workloads/)?[a-z0-9_]+/[a-z0-9_]+\.hpp"'
allowed='"(core|io)/|"(workloads/)?apsp/graph_solve\.hpp"|"(workloads/)?iccg/matrix_solve\.hpp"'
expect_no_hits "apps/ includes, of the workloads, only the two file solvers, and no kit" \
  "$(grep -rnhE "$header" apps | grep -vE "$allowed" | grep -vE '"acclab/')"
echo "$failures failures"
exit $((failures > 0))
