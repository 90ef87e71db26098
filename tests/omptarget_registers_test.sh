#!/usr/bin/env bash
# The registers of each OpenMP target resident step's entries, as the GPU driver's link of their
# offload image gives them (scripts/omptarget-registers.sh: CUDA's ptxas and nvlink on the PTX
# GCC's mkoffload leaves), stay within the step's budget. An entry gets the registers of the
# heaviest body its image holds, so a heavy region added beside a resident step, or the steps put
# back into one image, raises the step's count and fails here: in one image for all steps every
# entry linked to 254 registers, and libgomp launched the resident steps 8 warps a team instead
# of the 16 they ask for (issue 73). Each budget is the count measured with one image a workload
# (bench/results/cpu-ptxas/omptarget-registers/NOTES.md) rounded up to the next multiple of 8;
# 16 warps a team fit a multiprocessor's 65536 registers up to 128 registers a lane.
# Skipped (77) where CUDA's ptxas and nvlink are not installed.
#
# usage: omptarget_registers_test.sh REGISTERS_SCRIPT BUILD_DIR IMAGE...
set -u
script=$1
build=$2
shift 2
# shellcheck source=tests/checks.sh
source "$(dirname "$0")/checks.sh"  # check, failures

# step | the entries' demangled names (an extended regular expression) | most registers a lane
budgets=(
  "vector/triad_omp_target_resident|acclab::vector::.*::TriadOmpTargetResident::|112"
  "vector/dot_omp_target_resident|acclab::vector::.*::DotOmpTargetResident::|112"
  "jacobi2d/omp_target_resident|acclab::jacobi2d::.*::OmpTargetResident::|120"
  "diffusion3d/omp_target_resident|acclab::diffusion3d::.*::OmpTargetResident::|112"
  "apsp/omp_target_resident|acclab::apsp::.*::OmpTargetResident::|96"
  # Its own bodies take 132 at most; omp_target_tuned's, in the same image, set the 188.
  "iccg/omp_target_resident|acclab::iccg::.*::OmpTargetResident::|192"
)

bash "$script" --build "$build" "$@" > "$dir/registers.txt" 2> "$dir/errors.txt"
status=$?
if ((status == 3)); then
  echo "SKIPPED: $(cat "$dir/errors.txt") (the test needs CUDA's ptxas and nvlink)"
  exit 77
fi
check "the offload images linked (status $status)" test "$status" -eq 0
cat "$dir/errors.txt"
grep '^#' "$dir/registers.txt"

for row in "${budgets[@]}"; do
  IFS='|' read -r step pattern budget <<< "$row"
  grep -E "^[0-9]+ .*$pattern" "$dir/registers.txt" > "$dir/step.txt"
  check "$step: its entries are in the images ($pattern)" test -s "$dir/step.txt"
  [[ -s $dir/step.txt ]] || continue
  most=$(sort -n "$dir/step.txt" | tail -1 | cut -d' ' -f1)
  check "$step: $most registers a lane, budget $budget" test "$most" -le "$budget"
done
((failures == 0)) || { echo "$failures check(s) failed; every entry:"; cat "$dir/registers.txt"; }
exit $((failures > 0))
