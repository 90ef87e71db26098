"""The parts of scripts/gpu-check.py, the GPU gate: its options and the ladders' rows it reads
(options), the processes it runs (processes), the jobs it plans (plan), the phases that run them
(phases), and the record it writes with its verdict (record)."""
