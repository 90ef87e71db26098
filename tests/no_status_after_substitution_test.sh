#!/usr/bin/env bash
# The shell tests read an exit status as $?, which is the status of whatever ran last. A command
# substitution on the same line runs later than the command under test (`check "x ($(cat err))"
# test $? -eq 0` tests cat, so it passes when the run failed), and so does any command in
# between (an echo, `local x=$(...)`, a [[ ]], an earlier check). This test fails on either shape
# in the shell scripts of a folder, so that a check that cannot fail does not come back; write
# `cmd; status=$?` on its own line right after the command and test "$status".
# It first runs its scanner on samples of each shape (each must be found) and of the sound forms
# (none may be), then on the folder.
# usage: no_status_after_substitution_test.sh TESTS_DIR
set -u
tests=$1
source "$(dirname "$0")/checks.sh"  # check

cat > "$dir/scan.py" <<'PY'
"""Prints FILE:LINE: why, for each $? that does not read the status of the command under test."""
import re
import sys

SUBST = re.compile(r"\$\((?!\()")  # $( but not $(( arithmetic, which runs no command
HEREDOC = re.compile(r"(?<!<)<<(?!<)-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
# Commands whose own status would be read: never the command under test. (A plain
# `name=$(cmd)` leaves cmd's status, `local name=$(cmd)` local's; a command given a substitution
# as an argument leaves its own.)
MASKING = re.compile(
    r"^(echo|printf|local|declare|typeset|export|readonly|:|true|\[\[?|test|cd|shift|check"
    r"|one_line_exit_2)(\s|$)")


def commands(lines):
    """(first line number, text) of each logical command: continuations joined, heredoc bodies,
    blank lines and comment lines dropped."""
    i = 0
    while i < len(lines):
        start, text = i + 1, lines[i].rstrip("\n")
        i += 1
        while text.endswith("\\") and i < len(lines):
            text = text[:-1] + " " + lines[i].strip()
            i += 1
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        for _, word in HEREDOC.findall(stripped):
            while i < len(lines) and lines[i].strip() != word:
                i += 1
            i += 1
        yield start, stripped


def scan(path):
    found = []
    previous = None
    for number, text in commands(open(path, encoding="utf-8", errors="replace").readlines()):
        if "$?" in text:
            if SUBST.search(text):
                found.append(f"{path}:{number}: $? on a line with a command substitution")
            else:
                # The command that ran last: the one before on this line, or the last one of the
                # command before.
                segments = text.split(";")
                k = next(k for k, segment in enumerate(segments) if "$?" in segment)
                if k > 0:
                    before = segments[k - 1].strip()
                elif previous is not None:
                    before = previous.split(";")[-1].strip()
                else:
                    before = ""
                if MASKING.match(before):
                    found.append(f"{path}:{number}: $? right after `{before.split()[0]}`")
        previous = text
    return found


problems = [p for path in sys.argv[1:] for p in scan(path)]
if problems:
    print("\n".join(problems))
sys.exit(1 if problems else 0)
PY

# Each shape the scanner must find, one sample apiece (split at the lines "----").
cat > "$dir/bad" <<'SH'
run > out 2> err
check "exit 0 ($(cat err))" test $? -eq 0
----
run
check "exit 0 ($(head -1 err))" \
  test $? -eq 0
----
f() {
  run
  local got=$(cat out)
  check "exit 0" test $? -eq 0
}
----
run
echo "ran: $(wc -l < out)"
status=$?
----
run
echo done
check "exit 0" test $? -eq 0
----
run
[[ -s out ]]
check "exit 0" test $? -eq 0
----
run
check "something" test -s out
check "exit 0" test $? -eq 0
----
run; echo done; status=$?
----
x=$(run); status=$?
----
run
# a comment does not change $?, but the echo before it does
echo x

status=$?
SH
samples=$(awk -v d="$dir" '/^----$/ { n++; next } { print > (d "/bad" n + 1 ".sh") }
  END { print n + 1 }' "$dir/bad")
for ((j = 1; j <= samples; j++)); do
  python3 "$dir/scan.py" "$dir/bad$j.sh" > "$dir/found" 2>&1
  status=$?
  check "bad sample $j is found: $(tr '\n' ' ' < "$dir/bad$j.sh")" test "$status" -eq 1
done

# The sound forms: none may be reported.
cat > "$dir/good.sh" <<'SH'
run > out 2> err
status=$?
check "exit 0 (exit $status: $(cat err))" test "$status" -eq 0
f() {
  run "$(printf x)" \
    --flag > out
  local status=$?
  check "exit 0" test $status -eq 0
}
out=$(run)
status=$?
python3 - "$x" <<'EOF'
print("a heredoc body: $(ignored) $?")
EOF
check "the script" test $? -eq 0
n=$((3 + 4)); echo "$?"
SH
python3 "$dir/scan.py" "$dir/good.sh" > "$dir/found" 2>&1
status=$?
check "the sound forms pass ($(tr '\n' ' ' < "$dir/found"))" test "$status" -eq 0

python3 "$dir/scan.py" "$tests"/*.sh > "$dir/found" 2>&1
status=$?
cat "$dir/found"
check "no \$? after a command substitution or another command in $tests/*.sh" \
  test "$status" -eq 0
exit $((failures > 0))
