#!/bin/bash
# apsp past n^2 = 2^31 on one H200, the wide steps not run there before: two ranks sharing
# the GPU (gather and MPI-IO write in pieces), cuda_blocked_multi, mpi_acc, multidevice.
# Usage: bash wide2.sh OUTDIR LIMIT_S   (acclab from bundle/, CUDA libraries on the path)
out=$1 limit=$2 start=$SECONDS
a=$PWD/bundle/acclab
left() { echo $((limit - (SECONDS - start))); }
mpi=(mpirun --allow-run-as-root -q --bind-to none)
step() {  # name, command...: bounded by the time left, output kept
  local name=$1; shift
  local t=$(left); ((t > 20)) || { echo "$name: skipped, $t s left" | tee -a "$out/log.txt"; return; }
  local s=$SECONDS
  echo "$name: $*" >> "$out/commands.txt"
  timeout "$t" "$@" > "$out/$name.out" 2> "$out/$name.err"
  echo "$name: exit $? after $((SECONDS - s)) s" | tee -a "$out/log.txt"
}
mkdir -p "$out"; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > "$out/gpu.txt"
step seed_np2 "${mpi[@]}" -np 2 "$a" apsp --seed-graph 48000 --variant mpi_cuda --out /tmp/mc2.bin
step seed_alone "$a" apsp --seed-graph 48000 --variant cuda_blocked --out /tmp/cb.bin
ls -l /tmp/mc2.bin /tmp/cb.bin >> "$out/files.txt" 2>&1
cmp /tmp/cb.bin /tmp/mc2.bin >> "$out/files.txt" 2>&1 && echo "identical files" >> "$out/files.txt"
rm -f /tmp/cb.bin /tmp/mc2.bin
step cbm "$a" run apsp --set n=48000 --variant cuda_blocked_multi --reps 1 --format json --out "$out/cbm.json"
step mpi_acc "${mpi[@]}" -np 1 "$a" run apsp --set n=48000 --variant mpi_acc --reps 1 --format json --out "$out/mpi_acc.json"
step multidevice "$a" run apsp --set n=48000 --variant multidevice --reps 1 --format json --out "$out/multidevice.json"
grep -h "digest" "$out"/*.out >> "$out/digests.txt" 2>/dev/null
for f in "$out"/*.json; do
  python3 -c "import json,sys
for r in json.load(open(sys.argv[1]))['results']:
    print(r['variant'], r['status'], (r.get('time_s') or {}).get('median'), (r.get('outputs') or {}).get('matrix_digest'))" "$f" >> "$out/digests.txt" 2>&1
done
