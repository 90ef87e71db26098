#!/usr/bin/env bash
# The GPU gate as CI sees it: tests/gpu_gate.py reads bench/results/gpu-check/LATEST.json and
# passes on a complete passing gate of this checkout's gated trees, skips (77) on a stale record,
# fails on an untrustworthy record or one that shows problems of these very trees.
# usage: gpu_gate_test.sh SOURCE_DIR [LATEST.json]
set -u
exec python3 "$(dirname "$0")/gpu_gate.py" "$@"
