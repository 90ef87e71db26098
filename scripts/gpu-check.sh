#!/usr/bin/env bash
# The GPU gate. Run it on the H200 machine, from the repository root, with the bundle of a
# build of the commit to check (cmake --preset gpu && cmake --build build-gpu &&
# scripts/gpu-bundle.sh), before submitting any change under workloads/, src/ or apps/:
#
#   bash scripts/gpu-check.sh            # writes bench/results/gpu-check/LATEST.json
#
# Every registered variant of every workload runs in its own process on the small preset (so
# that an abort names its variant), the GPU variants (OpenACC, CUDA) also on the seed preset
# (up to --seed-limit seconds each); then compute-sanitizer: memcheck over the GPU variants,
# racecheck and synccheck over the CUDA ones; and the solvers users run on their own files,
# `acclab iccg FILE` and `acclab apsp FILE`, with every variant they take (solvers in
# LATEST.json). LATEST.json names the commit the binary was built
# from, each variant's outcome and each sanitizer's error count. Exit status 1 on any abort,
# failed verification or sanitizer error. Commit LATEST.json with the change it checked: the
# test gpu_gate (tests/gpu_gate_test.sh) fails when workloads/, src/ or apps/ differ from it.
# Options: scripts/gpu-check.py --help.
set -euo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/bundle:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$PATH:/usr/local/cuda/bin
exec python3 scripts/gpu-check.py "$@"
