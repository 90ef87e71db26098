#!/usr/bin/env bash
# scripts/iccg-mesh-mtx.py writes the course's mesh as Matrix Market files, and acclab iccg FILE
# solves them in the iterations the built-in mesh takes (the small preset: 16 x 12 x 10, CM-RCM
# 10 colours), by original and by optimized (the host fallback here).
# usage: iccg_mesh_file_test.sh ACCLAB_BINARY MESH_SCRIPT
set -u
acclab=$1
mesh=$2
source "$(dirname "$0")/checks.sh"

python3 "$mesh" 16 12 10 "$dir/mesh"
check "exit 0 writing the files" test $? -eq 0
check "A: 1920 rows, 1920 + 5288 stored entries" grep -qx "1920 1920 7208" "$dir/mesh.mtx"
check "b: 1920 values" grep -qx "1920 1" "$dir/mesh-b.mtx"

"$acclab" run iccg --variant original --preset small --reps 1 --format json > "$dir/mesh.json"
check "the built-in mesh solves" test $? -eq 0
builtin=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["results"][0]["outputs"]["iterations"])' < "$dir/mesh.json")
for variant in original optimized; do
  "$acclab" iccg "$dir/mesh.mtx" --rhs "$dir/mesh-b.mtx" --colors -10 --variant $variant \
    --format json > "$dir/$variant.json"
  check "$variant: exit 0" test $? -eq 0
  read -r iterations residual < <(python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["iterations"], j["residual"])' < "$dir/$variant.json")
  check "$variant: the built-in mesh's $builtin iterations ($iterations)" test "$iterations" = "$builtin"
  check "$variant: residual $residual below 1e-8" python3 -c "import sys; sys.exit(not $residual < 1e-8)"
done

python3 "$mesh" 16 12 "$dir/short" 2> "$dir/err"
check "missing argument: exit 2" test $? -eq 2
check "missing argument: one line" test "$(wc -l < "$dir/err")" -eq 1
python3 "$mesh" 16 0 10 "$dir/empty" 2> "$dir/err"
check "no cells: exit 2" test $? -eq 2
check "no cells: no file left" test ! -e "$dir/empty.mtx"
exit $((failures > 0))
