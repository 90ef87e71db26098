#!/usr/bin/env bash
# docs/bad-input.md's contract table, row by row: each row's command must exit with the row's
# status and, for a refusal, print one line on stderr holding the row's text. The table is the
# list: a row added there is tested here.
# usage: bad_input_contract_test.sh ACCLAB_BINARY REPOSITORY_ROOT
set -u
bin=$(realpath "$1")
root=$(realpath "$2")
DATA=$root/tests/data
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
source "$(dirname "$0")/checks.sh"
acclab() { "$bin" "$@"; }
export ACCLAB_PROGRESS_INTERVAL=0

# The small files the rows name.
printf '3 3 1\n1 1 4\n' > "$T/nobanner.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 2 4\n3 3 4\n' \
  > "$T/trunc.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n3 2 2\n1 1 4\n2 2 4\n' > "$T/rect.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 4\n2 2 4\n1 2 1\n' \
  > "$T/nonsym.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 2 1\n2 1 3\n' \
  > "$T/notpd.mtx"
printf '1\n2\n' > "$T/rhs2.txt"
printf '%%%%MatrixMarket matrix array complex general\n494 1\n' > "$T/rhs_complex.mtx"
printf 'c a chain\np sp 3 3\na 1 2 1\na 2 3 1\n' > "$T/short.gr"
printf '0 1 1e-50\n' > "$T/tiny.txt"
printf '0 1 -1\n1 2 -1\n2 0 -1\n' > "$T/negcycle.txt"
printf '0 1 1\n1 2 1\n2 0 1\n' > "$T/poscycle.txt"
cp "$DATA/matrices/494_bus.mtx" "$T/spd.mtx"
python3 -c 'print("\n".join(["1e-170"] * 494))' > "$T/tiny_rhs.txt"
gzip -c "$T/spd.mtx" | head -c 3000 > "$T/cut.mtx.gz"
# The whole stream with bytes of its compressed data (past the 10-byte header) overwritten.
gzip -c "$T/spd.mtx" | python3 -c 'import sys; d = bytearray(sys.stdin.buffer.read())
d[200:260] = b"\xff" * 60; sys.stdout.buffer.write(d)' > "$T/corrupt.mtx.gz"
{ gzip -c "$T/poscycle.txt"; printf 'not gzip\n'; } > "$T/trailing.txt.gz"
printf '\3757zXZ\0\0\4' > "$T/m.mtx.xz"
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$T/sock"

rows=$(sed -n '/<!-- contract:begin -->/,/<!-- contract:end -->/p' "$root/docs/bad-input.md" |
  grep '^| ' | tail -n +2)
count=0
while IFS= read -r row; do
  # | what | `command` | exit | `text` |
  what=$(awk -F' [|] ' '{print $1}' <<< "$row" | sed 's/^| //')
  command=$(awk -F' [|] ' '{print $2}' <<< "$row" | sed 's/^`//; s/`$//')
  want=$(awk -F' [|] ' '{print $3}' <<< "$row")
  text=$(awk -F' [|] ' '{print $4}' <<< "$row" | sed 's/ |$//; s/^`//; s/`$//')
  text=$(eval "printf '%s' \"$text\"")  # $T in the expected text
  [[ -n $command ]] || continue
  count=$((count + 1))
  eval "$command" > "$T/out" 2> "$T/err" < /dev/null
  status=$?
  check "$what: exit $want ($status: $(head -c 200 "$T/err"))" test "$status" = "$want"
  if [[ $want != 0 ]]; then
    check "$what: one line on stderr" test "$(wc -l < "$T/err")" -eq 1
    check "$what: it says '$text'" grep -qF -- "$text" "$T/err"
  fi
done <<< "$rows"
check "the table has its rows ($count)" test "$count" -ge 25
exit $((failures > 0))
