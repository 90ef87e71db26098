#!/usr/bin/env bash
# The GPU gate. Run it on the H200 machine, from the repository root, with the bundle of a
# build of the commit to check (cmake --preset gpu && cmake --build build-gpu &&
# scripts/gpu-bundle.sh), before submitting any change under workloads/, src/ or apps/:
#
#   bash scripts/gpu-check.sh            # writes bench/results/gpu-check/LATEST.json
#
# Defaults, chosen so that the whole check fits in one 10-minute call on one H100 or H200 with
# 16 cores: --jobs 8 processes at a time, each given its share of the cores (OMP_NUM_THREADS =
# cores // jobs, divided again by the ranks under mpirun; OMP_WAIT_POLICY=passive; --no-share
# leaves the environment as it is, to measure acclab's own defaults under load), --timeout 150
# seconds a process, --seed-limit 90 seconds a seed run, --seed-slow-limit 20 seconds for a step
# whose ladder row gives a "seed_slow" reason. The longest seed runs that must finish (iccg's
# per-loop and OpenMP target steps: a warm-up and a timed solve of 10-14 s each, the reference
# on 2 threads) are expected to take about a minute. --budget 420 stops starting jobs after
# 420 s, so that a report is written within the call however slow the machine (the check is
# then incomplete); --deadline 560 stops what still runs at 560 s and writes the record, partial,
# where the machine ends the call at 600 s.
#
# Every registered variant of every workload runs in its own process on the small preset (so
# that an abort names its variant), the GPU variants (OpenACC, OpenMP target, CUDA) also on the
# seed preset; a seed run cut at its limit is a problem unless its ladder row
# (workloads/*/ladder.json) says why the step is slow there by design ("seed_slow", printed and
# recorded in its place). Then compute-sanitizer: memcheck over the GPU variants, racecheck and
# synccheck over the CUDA ones; and the solvers users run on their own files, `acclab iccg FILE`
# and `acclab apsp FILE`, with every variant they take (solvers in LATEST.json). LATEST.json
# names the commit the binary was built from, each variant's outcome and each sanitizer's error
# count, the threads each process was given, each seed run's seconds, the seed half's and the
# whole check's wall time. Exit status 1 on any abort, failed verification, seed run cut
# without a reason or sanitizer error. Commit LATEST.json with the change it checked: the test
# gpu_gate (tests/gpu_gate_test.sh) fails when workloads/, src/ or apps/ differ from it.
# Options: scripts/gpu-check.py --help.
set -euo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/bundle:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$PATH:/usr/local/cuda/bin
exec python3 scripts/gpu-check.py "$@"
