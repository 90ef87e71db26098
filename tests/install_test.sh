#!/usr/bin/env bash
# acclab as people install it: `cmake --install` into a prefix, then moved elsewhere, and the
# Debian package `cpack -G DEB` makes, unpacked: the binary finds its OpenMP target libraries,
# its report renderer and its compiler notes under its own prefix (cmake/AcclabInstall.cmake),
# never in the source or build tree, and runs a step, explains one and draws a report.
# usage: install_test.sh BUILD_DIR
set -u
build=$(realpath "$1")
source "$(dirname "$0")/checks.sh"
unset ACCLAB_SCRIPTS ACCLAB_PROGRESS_INTERVAL
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# Whatever the tree is called now: $1 is the prefix, $2 what the case is called.
check_tree() {
  local prefix=$1 what=$2 acclab=$1/bin/acclab
  check "$what: bin/acclab exists" test -x "$acclab"
  local missing
  missing=$(ldd "$acclab" | grep "not found")
  check "$what: every library found ($missing)" test -z "$missing"
  local outside
  outside=$(ldd "$acclab" | grep -E "libacclab_omptarget|libcudart" | grep -v "$prefix/")
  check "$what: acclab's own libraries come from the prefix ($outside)" test -z "$outside"
  local scripts
  scripts=$("$acclab" --version --format json | json "d['scripts']")
  check "$what: the report renderer from the prefix ($scripts)" \
    test "$scripts" = "$prefix/share/acclab/scripts"
  local status
  "$acclab" run vector --variant original,acc_kernels --reps 1 --quiet --format json \
    --out "$dir/run.json" 2> "$dir/err"
  status=$?
  check "$what: run verifies ($status: $(head -c 300 "$dir/err"))" test $status -eq 0
  "$acclab" explain vector/acc_kernels > "$dir/explain" 2> "$dir/err"
  status=$?
  check "$what: explain runs ($status: $(head -c 300 "$dir/err"))" test $status -eq 0
  check "$what: explain reads the installed notes" \
    grep -q "notes     $prefix/share/acclab/notes/" "$dir/explain"
  "$acclab" report "$dir/run.json" --out "$dir/page.html" 2> "$dir/err"
  status=$?
  check "$what: report draws its page ($status: $(head -c 300 "$dir/err"))" test $status -eq 0
  check "$what: the page holds the run" grep -q "acc_kernels" "$dir/page.html"
  rm -f "$dir/ladder.html"
  "$acclab" ladder vector --variant original,acc_kernels --reps 1 --quiet \
    --report "$dir/ladder.html" > /dev/null 2> "$dir/err"
  status=$?
  check "$what: ladder --report draws its page ($status: $(head -c 300 "$dir/err"))" \
    test $status -eq 0 -a -s "$dir/ladder.html"
  check "$what: the docs installed" test -s "$prefix/share/doc/acclab/README.md"
}

cmake --install "$build" --prefix "$dir/prefix" > "$dir/install.log" 2>&1
status=$?
check "cmake --install: exit 0 ($status: $(tail -c 300 "$dir/install.log"))" test $status -eq 0
check_tree "$dir/prefix" "installed"
mv "$dir/prefix" "$dir/moved"
check_tree "$dir/moved" "installed, then moved"
rm -rf "$dir/moved"

# The Debian package, unpacked rather than installed (dpkg -i would change this machine).
if command -v cpack > /dev/null && command -v dpkg-deb > /dev/null; then
  (cd "$dir" && cpack -G DEB --config "$build/CPackConfig.cmake" > cpack.log 2>&1)
  status=$?
  check "cpack -G DEB: exit 0 ($status: $(tail -c 300 "$dir/cpack.log"))" test $status -eq 0
  deb=$(ls "$dir"/acclab_*_amd64.deb 2> /dev/null | head -1)
  check "cpack -G DEB: acclab_<version>_amd64.deb" test -n "$deb"
  if [[ -n $deb ]]; then
    depends=$(dpkg-deb -f "$deb" Depends)
    for package in libgomp1 libfmt9 python3-matplotlib; do
      check "the package depends on $package ($depends)" grep -q "$package" <<< "$depends"
    done
    dpkg-deb -x "$deb" "$dir/unpacked"
    check_tree "$dir/unpacked/usr" "the Debian package"
    # Installed for real where this runs as root (CI's fresh machine), then removed: nothing of
    # it may stay. Never over an acclab package the machine already has.
    if [[ $EUID -eq 0 ]] && ! dpkg -s acclab > /dev/null 2>&1; then
      dpkg -i "$deb" > "$dir/dpkg.log" 2>&1
      status=$?
      check "dpkg -i: exit 0 ($status: $(tail -c 300 "$dir/dpkg.log"))" test $status -eq 0
      if ((status == 0)); then
        check_tree /usr "dpkg -i"
        files=$(dpkg -L acclab | grep -E "^/usr/(bin|lib|share/acclab)/" || true)
        dpkg -r acclab > "$dir/dpkg.log" 2>&1
        status=$?
        check "dpkg -r: exit 0 ($status)" test $status -eq 0
        left=""
        for file in $files; do [[ -f $file ]] && left+=" $file"; done
        check "dpkg -r: none of its files left ($left)" test -z "$left"
        check "dpkg -r: no /usr/lib/acclab or /usr/share/acclab left" \
          test ! -e /usr/lib/acclab -a ! -e /usr/share/acclab
      else
        dpkg -r acclab > /dev/null 2>&1
      fi
    else
      echo "note: not root, or an acclab package is installed here: dpkg -i and -r left out"
    fi
  fi
else
  echo "note: no cpack or dpkg-deb here: the Debian package rows are left out"
fi

echo "$failures failure(s)"
exit $((failures > 0))
