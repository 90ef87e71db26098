#!/usr/bin/env bash
# acclab's own OpenMP defaults on a busy machine (src/core/host_load.hpp): with every core kept
# busy by other processes and no OpenMP setting of the user's, a run waits passively and starts
# one thread; the user's own settings are kept; ACCLAB_HOST_LOAD=ignore turns it off. What was
# decided is in the report (host.openmp) and in each host result's note.
# usage: busy_machine_test.sh ACCLAB_BINARY
set -u
acclab=$1
dir=$(mktemp -d)
spinners=()
cleanup() {
  ((${#spinners[@]})) && kill "${spinners[@]}" 2> /dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
source "$(dirname "$0")/checks.sh"

field() {  # field FILE PYTHON-EXPRESSION-ON-j
  python3 -c "import json, sys; j = json.load(open(sys.argv[1])); print($2)" "$1"
}
run() {  # run OUT [env assignments...]
  local out=$1
  shift
  env -u OMP_WAIT_POLICY -u OMP_NUM_THREADS -u GOMP_SPINCOUNT -u ACCLAB_HOST_LOAD "$@" \
    "$acclab" run vector --variant triad_openmp --reps 1 --set nx=256 --set ny=256 \
    --format json --out "$out" 2> "$dir/err"
}

cores=$(nproc)
for ((i = 0; i < cores; ++i)); do
  (while :; do :; done) &
  spinners+=($!)
done
sleep 0.5

run "$dir/busy.json"
status=$?
check "busy: exit 0 ($status: $(head -c 200 "$dir/err"))" test $status -eq 0
check "busy: the load was measured and found busy" \
  test "$(field "$dir/busy.json" 'j["host"]["openmp"]["busy"]')" = True
check "busy: passive waiting chosen by acclab" \
  test "$(field "$dir/busy.json" 'j["host"]["openmp"]["wait_policy"]')" = passive
check "busy: one thread for the one core left (every core is busy)" \
  test "$(field "$dir/busy.json" 'j["host"]["openmp"]["max_threads"]')" = 1
check "busy: the result's note says so" \
  grep -q "busy machine" <(field "$dir/busy.json" 'j["results"][0]["note"]')

run "$dir/user.json" OMP_WAIT_POLICY=active OMP_NUM_THREADS=3
status=$?
check "busy, the user's settings: exit 0 ($status)" test $status -eq 0
check "busy, the user's settings: OMP_WAIT_POLICY=active kept" \
  test "$(field "$dir/user.json" 'j["host"]["openmp"]["wait_policy"]')" = active
check "busy, the user's settings: OMP_NUM_THREADS=3 kept" \
  test "$(field "$dir/user.json" 'j["host"]["openmp"]["max_threads"]')" = 3

run "$dir/ignore.json" ACCLAB_HOST_LOAD=ignore
status=$?
check "ACCLAB_HOST_LOAD=ignore: exit 0 ($status)" test $status -eq 0
check "ACCLAB_HOST_LOAD=ignore: the load not measured" \
  test "$(field "$dir/ignore.json" 'j["host"]["openmp"]["load_measured"]')" = False
check "ACCLAB_HOST_LOAD=ignore: libgomp's default policy" \
  test "$(field "$dir/ignore.json" 'j["host"]["openmp"]["wait_policy"]')" = default

kill "${spinners[@]}" 2> /dev/null
wait "${spinners[@]}" 2> /dev/null
spinners=()
exit $((failures > 0))
