#!/usr/bin/env bash
# Parameters are read by name in one place: Params and ProblemFields (src/core/params.hpp and
# params.cpp). A workload reads its problem through its typed Problem (ProblemFields), a step its
# knobs through its StepTunings, and the command line, which serves every workload, only by the
# keys of the specs it is given. This fails on any other read of a parameter by a literal key
# (params.integer("n"), params.has("omp_teams"), params.json()["devices"], ...) in src/, apps/
# and workloads/, naming each file:line.
# usage: string_key_reads_test.sh SOURCE_DIR
set -u
root=${1:?usage: string_key_reads_test.sh SOURCE_DIR}
cd "$root" || exit 1
[[ -d src/core && -d workloads && -d apps ]] || {
  echo "FAILED: not the acclab source tree: $root"
  exit 1
}
# A Params accessor (src/core/params.hpp) called with a string literal as its only argument, or
# the values' JSON indexed by one. ProblemFields' and StepTunings' declarations pass the key with
# the member it fills, so they do not match.
reads='(\.|->)(integer|real|flag|text|has)\([[:space:]]*"[^"]*"[[:space:]]*\)'
reads+='|\.json\(\)[[:space:]]*(\[|\.at\(|\.value\(|\.contains\(|\.find\(|\.count\()[[:space:]]*"'
hits=$(grep -rnE "$reads" src apps workloads --include='*.cpp' --include='*.hpp' --include='*.cu' \
  --include='*.cuh' --include='*.in' | grep -vE '^src/core/params\.(hpp|cpp):')
if [[ -n $hits ]]; then
  echo "FAILED: parameters read by a literal key outside Params/ProblemFields (declare them in"
  echo "the workload's ProblemFields or the step's StepTunings and read the typed member):"
  echo "$hits"
  exit 1
fi
echo "ok: no parameter read by a literal key outside Params/ProblemFields"
